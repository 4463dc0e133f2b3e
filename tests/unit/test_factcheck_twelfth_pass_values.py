"""Classes a check judged wrongly on unseen drafts (issue 48's twelfth pass, values):
a value the source says was replaced, money said in words ("a pound", "10p"), "around
the clock" against hours the next-ranked sentences give, a second statement ", and it
..." cut into a claim of its own, and the writer's own comment a claim ends with."""

from __future__ import annotations

from deepcite.factcheck.claims import split_claims
from deepcite.factcheck.comments import without_comment, writer_comment
from deepcite.factcheck.judge import judge
from deepcite.factcheck.passages import values_of
from tests.fakes import passage


def _judge(claim: str, *sources: str):  # type: ignore[no-untyped-def]
    return judge(claim, [passage(f"Doc {n}", s) for n, s in enumerate(sources)])


def test_a_pound_and_pence_are_money() -> None:
    [pound] = values_of("Members pay a flat pound for each locker.")
    assert (pound.kind, pound.unit, pound.amount) == ("money", "gbp", 1.0)
    [euro, _hour] = values_of("It costs a euro per hour.")
    assert (euro.kind, euro.unit) == ("money", "eur")
    assert not values_of("Add a pound of sugar.")
    pence = [v for v in values_of("Lockers cost 20p per hour.") if v.kind == "money"]
    assert pence and pence[0].amount == 0.2
    assert [v.amount for v in values_of("a fee of 30 pence") if v.kind == "money"] == [0.3]


def test_a_value_the_source_says_was_replaced_contradicts_it_given_as_current() -> None:
    source = ("When the lockers opened in 2019 the fee was a flat £2 per day. "
              "Hourly pricing replaced the flat fee in April 2022. "
              "Lockers now cost 40p per hour.")
    judged = _judge("Renting a locker costs a flat £2 per day.", source)
    assert judged.verdict == "contradicted"
    assert judged.conflicts[0].draft == "£2"
    # a claim of the past itself is not
    assert _judge("In 2019 the locker fee was a flat £2 per day.",
                  source).verdict != "contradicted"


def test_a_value_held_until_a_date_is_no_longer_the_value() -> None:
    source = "The studio pass was priced at £40 until May 2021, when it rose to £55."
    judged = _judge("The studio pass is priced at £40.", source)
    assert judged.verdict == "contradicted"
    # the change written by the claim itself agrees
    assert _judge("The studio pass went up from £40 to £55 in May 2021.",
                  source).verdict == "supported"


def test_around_the_clock_against_hours_of_a_sentence_ranked_lower() -> None:
    sources = ("Greystone Marina has 60 berths and a fuel dock on the east pier.",
               "Berths on the east pier can be booked online.",
               "Pontoons in the outer basin operate from 7:00 to 21:00 only.")
    judged = _judge("Every pontoon at the marina is open around the clock.", *sources)
    assert judged.verdict == "contradicted"
    assert "7:00 to 21:00" in judged.conflicts[0].source


def test_around_the_clock_stated_by_a_candidate_is_not_contradicted_without_every() -> None:
    sources = ("Pontoons in the inner basin are open 24 hours a day.",
               "Pontoons in the outer basin operate from 7:00 to 21:00 only.")
    assert _judge("The inner basin pontoons are open around the clock.",
                  *sources).verdict != "contradicted"


def test_a_second_statement_by_a_pronoun_is_a_claim_of_its_own() -> None:
    text = "The kiln fires at 1,200 degrees, and it never runs unattended overnight."
    assert [c.text for c in split_claims(text)] == [
        "The kiln fires at 1,200 degrees", "it never runs unattended overnight."]
    # without a pronoun opening the second, the sentence stays whole
    whole = "The kiln fires at 1,200 degrees, and glazes are mixed on site."
    assert [c.text for c in split_claims(whole)] == [whole]


def test_the_writers_comment_is_no_part_of_the_claim() -> None:
    text = "The kiln only takes stoneware, which suits us since we never use porcelain."
    assert without_comment(text) == "The kiln only takes stoneware."
    assert writer_comment("I pay £5 a month, so I save money.") is None
    assert writer_comment("It opens at 9, so late visits are fine.") is None
    judged = _judge(text, "The kiln only takes stoneware; porcelain is not accepted.")
    assert judged.verdict == "supported"
    # a sentence whose claim ends with a hedged comment of the writer's is still checked
    hedged = "The kiln ships with a digital firing scheduler, which would let us retire our timers."
    assert [c.text for c in split_claims(hedged)] == [hedged]


def test_a_pronoun_after_a_claim_with_an_opening_phrase_stands_for_its_subject() -> None:
    from deepcite.factcheck.referents import resolve_pronouns

    document = ("By default, the kiln fires at 1,200 degrees, and it cools overnight "
                "before the doors are opened.")
    claims = split_claims(document)
    said = resolve_pronouns(document, claims)
    assert said[claims[1].number].text.startswith("the kiln cools overnight")


def test_a_restriction_of_another_subject_beside_the_sentence_does_not_limit_the_claim() -> None:
    from deepcite.factcheck.outright import limited

    neighbour = "Guest passes are accepted only when no member card has been issued."
    claim = "Any member card opens every door."
    assert limited(claim, neighbour, frozenset({"member", "card", "door", "open"})) is None


def test_a_clause_of_purpose_worded_otherwise_does_not_make_a_claim_partly_supported() -> None:
    from deepcite.factcheck.judge import _PURPOSE

    assert _PURPOSE.match("to find a free berth elsewhere")
    assert _PURPOSE.match("in order to save time")
    assert not _PURPOSE.match("to the harbour office")


def test_a_value_shared_places_a_sentence_worded_otherwise_and_another_contradicts() -> None:
    sources = ("The survey counted 3,450 nesting pairs on 27 islands between 2019 and 2021.",
               "Volunteers walked each island twice a season.")
    judged = _judge("Roughly 3,450 couples bred across 72 islands.", *sources)
    assert judged.verdict == "contradicted"
    assert (judged.conflicts[0].draft, judged.conflicts[0].source) == ("72 islands",
                                                                       "27 islands")
    # no value shared: nothing places the sentence
    assert _judge("Roughly 900 couples bred across 72 islands.",
                  *sources).verdict != "contradicted"


def test_a_negated_bound_is_the_other_bound() -> None:
    [low, high] = values_of("Riders must be at least 14 and no older than 70.")
    assert (low.bound, high.bound) == ("min", "max")
    assert [v.bound for v in values_of("no more than 6 guests")] == ["max"]
    assert [v.bound for v in values_of("no younger than 12")] == ["min"]
    assert [v.bound for v in values_of("more than 6 guests")] == ["min"]
