"""Claims written otherwise than their source, which a check judged wrongly on drafts
it had not seen (issue 48's eighth pass): a bound after its number ("18 or older"),
people counted under another noun, a bound word the source writes otherwise, a
material on the same thing, "since the day it opened" against a later start, "free"
against a price, hours without a colon, someone said to "still" hold a role another
holds, a language where the claim names a place, the last item of a list no
sentence says, and "abroad" written otherwise ("elsewhere in Europe", "outside the
UK")."""

from __future__ import annotations

from deepcite.factcheck.agreement import agrees, same_slot
from deepcite.factcheck.judge import judge
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

HOSTEL = [
    passage("Fernhill Hostel", "Fernhill Hostel was founded by Anna Kowalski in 2009; "
            "its manager today is Tomas Berg. It opened in a rented farmhouse and moved "
            "to the old mill on Weir Lane in 2016. Since 2019 the hostel has run a bike "
            "workshop in the yard. Guests must be at least 18 years old unless they "
            "come with a parent."),
    passage("Stays and prices", "A bed costs 28 pounds a night and dogs stay for 5 "
            "pounds a night. The hostel has 40 beds and a shared kitchen. Every guest "
            "gets a cotton towel. Reception is open from 8 am to 10 pm. The walking "
            "festival had 1,200 entrants last year, and about 300 volunteers help run it "
            "each summer. Fernhill offers guided walks in Welsh for small groups."),
]


def _note(claim: str) -> tuple[str, str]:
    judgement = judge(claim, HOSTEL)
    return judgement.verdict, "; ".join(f"{c.draft} / {c.source}"
                                        for c in judgement.conflicts)


def test_a_bound_after_its_number_is_a_limit_like_at_least() -> None:
    [older] = extract_values("You have to be 18 or older to stay.")
    [least] = extract_values("Guests must be at least 18 years old.")
    assert older.bound == "min" and older.text == "18 or older"
    assert agrees(older, least)
    [younger] = extract_values("anyone aged 16 or over")
    assert same_slot(younger, least) and not agrees(younger, least)
    assert _note("Guests have to be 18 or older.")[0] == "supported"
    verdict, note = _note("Guests have to be 16 or older.")
    assert verdict == "contradicted" and "18 years" in note


def test_people_counted_under_another_noun_are_the_same_count() -> None:
    [people] = extract_values("1,500 people walked it")
    [entrants] = extract_values("it had 1,200 entrants")
    [volunteers] = extract_values("about 300 volunteers")
    [helpers] = extract_values("around 300 helpers")
    assert same_slot(people, entrants) and not agrees(people, entrants)
    assert agrees(helpers, volunteers)
    verdict, note = _note("Around 300 helpers run the walking festival each summer.")
    assert verdict == "supported", note
    verdict, note = _note("1,500 people took part in the walking festival last year.")
    assert verdict == "contradicted" and "1,200" in note


def test_another_material_on_the_same_thing_is_named() -> None:
    verdict, note = _note("Every guest gets a linen towel.")
    assert verdict == "contradicted" and "cotton towel" in note


def test_since_it_opened_against_a_start_the_source_dates_later() -> None:
    verdict, note = _note("The hostel has been in the old mill on Weir Lane since the "
                          "day it opened.")
    assert verdict == "contradicted" and "rented farmhouse" in note
    verdict, note = _note("The hostel has run a bike workshop in the yard from the start.")
    assert verdict == "contradicted" and "2019" in note
    # the same claim without "from the start" is what the source says
    assert _note("The hostel runs a bike workshop in the yard.")[0] == "supported"


def test_free_against_a_price() -> None:
    [free] = extract_values("Dogs stay free.")
    assert free.kind == "money" and free.amount == 0
    verdict, note = _note("Dogs stay free at the hostel.")
    assert verdict == "contradicted" and "5 pounds" in note
    # a price is not contradicted by something else being free
    [price] = extract_values("A bed costs 28 pounds.")
    assert not same_slot(price, free)


def test_hours_written_without_a_colon() -> None:
    assert [(v.key, v.dimension) for v in extract_values("open from 9 am to 5.30pm")] == [
        ("09:00", "clock"), ("17:30", "clock")]
    assert [v.key for v in extract_values("from midnight to noon")] == ["00:00", "12:00"]
    assert _note("Reception is open from 8 to 10.")[0] == "supported"
    verdict, note = _note("Reception is open from 8 am to 11 pm.")
    assert verdict == "contradicted" and "10 pm" in note


def test_still_holding_a_role_someone_else_holds() -> None:
    verdict, note = _note("Fernhill Hostel was founded by Anna Kowalski, who still runs "
                          "it today.")
    assert verdict == "contradicted" and "Tomas Berg" in note


def test_a_language_in_the_place_of_a_claims_place_is_no_contradiction() -> None:
    verdict, note = _note("Fernhill offers guided walks in Snowdonia.")
    assert verdict == "not_found", note
    # one language against another is still another name
    verdict, note = _note("Fernhill offers guided walks in English.")
    assert verdict == "contradicted" and "Welsh" in note


def test_the_last_item_of_a_list_no_sentence_says() -> None:
    judgement = judge("The hostel has a shared kitchen and a sauna.", HOSTEL)
    assert judgement.verdict == "partly_supported" and "a sauna" in judgement.missing


def test_abroad_however_written_is_one_scope() -> None:
    shop = [passage("Orders", "Parcels are posted free within the UK. The shop does not "
                    "ship outside the UK.")]
    judgement = judge("The shop also delivers to customers elsewhere in Europe.", shop)
    assert judgement.verdict == "contradicted"
    assert any("outside the UK" in c.source for c in judgement.conflicts)


def test_free_is_a_word_of_the_claim_not_a_value_that_lowers_the_bar() -> None:
    cafe = [passage("Loyalty", "The loyalty card gives a free coffee after every nine "
                    "coffees bought. The café opens at 8 am.")]
    judgement = judge("The loyalty card gives a free coffee after every nine, and card "
                      "holders get a discount on their birthday.", cafe)
    assert judgement.verdict == "partly_supported"
