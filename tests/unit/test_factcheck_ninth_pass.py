"""Claims a check judged wrongly on drafts it had not seen (issue 48's ninth pass): an
amount with a half, decades against years, a weekly day against one day of each month,
"on its own" against a partner, an "every" the next sentence limits, a ban of the
claim's subject anywhere or "never", a price of nothing on both sides, a remark on
those counted that no sentence says, how often alone, and phrases written for one
word ("get in" for entry, "become a member" for join, "a dummy pill" for a placebo)."""

from __future__ import annotations

from deepcite.factcheck.agreement import agrees
from deepcite.factcheck.judge import Judgement, judge
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

RESERVE = [
    passage("Marram Fen", "Marram Fen is a wetland nature reserve of 285 hectares. The "
            "reserve is owned by the Fenland Wildlife Trust and managed jointly with the "
            "Environment Agency. The reserve has four bird hides, linked by 7 km of "
            "boardwalk and gravel paths. Three of the hides can be reached by wheelchair; "
            "the Heron Hide can only be reached by a flight of steps. Bitterns returned to "
            "breed in 2012 after an absence of sixty years."),
    passage("Visiting", "Entry is free for members of the Fenland Wildlife Trust. Dogs "
            "are not allowed anywhere on the reserve, except assistance dogs. Cycling is "
            "permitted on the perimeter track only. Guided walks leave the visitor centre "
            "at 10am on the first Sunday of each month and last about two hours."),
    passage("Volunteering", "About 140 volunteers help to run Marram Fen. They carry out "
            "the annual bird count in January."),
]
WORKSHOP = [
    passage("Membership", "Anyone aged 16 or over can become a member. Full membership "
            "costs 35 pounds a month. There is no joining fee. Inductions are free and "
            "last about 90 minutes."),
    passage("Equipment", "The laser cutter can cut wood and acrylic up to 6 mm thick. It "
            "must never be used to cut PVC, which gives off toxic fumes."),
    passage("Trial", "Half of the patients were given a placebo. The placebo had no "
            "effect on sleep."),
]


def _judged(claim: str, passages: list) -> tuple[Judgement, str]:  # type: ignore[type-arg]
    judgement = judge(claim, passages)
    return judgement, "; ".join(f"{c.draft} / {c.source}" for c in judgement.conflicts)


def test_an_amount_with_a_half_is_the_whole_amount() -> None:
    [hour] = extract_values("It lasts about an hour and a half.")
    [minutes] = extract_values("It lasts about 90 minutes.")
    [two] = extract_values("It takes two and a half hours.")
    [half] = extract_values("It takes half an hour.")
    assert agrees(hour, minutes) and not agrees(two, minutes) and not agrees(half, minutes)
    assert judge("Each induction lasts about an hour and a half.", WORKSHOP).verdict \
        == "supported"
    judgement, note = _judged("Inductions are free and last two and a half hours.", WORKSHOP)
    assert judgement.verdict == "contradicted" and "90 minutes" in note


def test_decades_are_ten_years_each() -> None:
    judgement, _ = _judged("Bitterns came back to breed in 2012, having been absent for "
                           "six decades.", RESERVE)
    assert judgement.verdict == "supported"


def test_a_weekly_day_against_one_day_of_each_month_is_contradicted() -> None:
    judgement, note = _judged("Guided walks run every Sunday morning.", RESERVE)
    assert judgement.verdict == "contradicted" and "first Sunday of each month" in note
    assert judge("Guided walks run on the first Sunday of every month.", RESERVE).verdict \
        != "contradicted"


def test_on_its_own_against_a_partner_is_contradicted() -> None:
    judgement, note = _judged("The Trust manages the reserve on its own.", RESERVE)
    assert judgement.verdict == "contradicted" and "Environment Agency" in note
    assert judge("The Trust manages the reserve together with the Environment Agency.",
                 RESERVE).verdict == "supported"


def test_every_in_a_later_clause_limited_by_the_next_sentence_is_contradicted() -> None:
    judgement, note = _judged("There are four hides along 7 km of paths, and every hide "
                              "can be reached by wheelchair.", RESERVE)
    assert judgement.verdict == "contradicted" and "Heron Hide" in note
    assert judge("There are four hides along 7 km of paths.", RESERVE).verdict == "supported"


def test_a_ban_of_the_claims_subject_anywhere_contradicts_a_welcome() -> None:
    judgement, note = _judged("Well-behaved dogs are welcome on a lead.", RESERVE)
    assert judgement.verdict == "contradicted" and "not allowed" in note
    # a ban in one place only leaves a permission elsewhere as it was
    assert judge("Cycling is permitted on the perimeter track.", RESERVE).verdict \
        != "contradicted"


def test_must_never_in_the_next_sentence_contradicts_can() -> None:
    judgement, note = _judged("The laser cutter can cut PVC as well as wood.", WORKSHOP)
    assert judgement.verdict == "contradicted" and "never" in note
    assert judge("The laser cutter can cut acrylic.", WORKSHOP).verdict == "supported"


def test_a_price_of_nothing_is_not_denied_by_no_fee() -> None:
    # "cost nothing" and "no joining fee" both say free: no denial of one by the other
    assert judge("Inductions cost nothing.", WORKSHOP).verdict == "supported"


def test_a_remark_on_those_counted_that_no_sentence_says_is_partly_supported() -> None:
    judgement = judge("Around 140 volunteers help out, most of them retired.", RESERVE)
    assert judgement.verdict == "partly_supported"
    assert any("retired" in m for m in judgement.missing)


def test_how_often_alone_is_no_support() -> None:
    assert judge("The reserve hosts a photography festival every spring.", RESERVE).verdict \
        == "not_found"


def test_phrases_written_for_one_word() -> None:
    assert judge("Trust members get in without paying.", RESERVE).verdict == "supported"
    judgement, note = _judged("You have to be 18 or over to join.", WORKSHOP)
    assert judgement.verdict == "contradicted" and "16" in note
    assert judge("The dummy pill had no effect on sleep.", WORKSHOP).verdict == "supported"


FARM = [
    passage("Hollins Farm", "Hollins Farm is a working farm of 80 hectares near Tessford. "
            "The farm is owned by Tessford District Council and let to a tenant family."),
]


def test_privately_owned_against_a_public_owner_is_contradicted() -> None:
    judgement, note = _judged("The farm is privately owned.", FARM)
    assert judgement.verdict == "contradicted" and "Tessford District Council" in note
    assert judge("The farm is owned by the council.", FARM).verdict == "supported"


def test_no_limit_is_unlimited_not_a_denial() -> None:
    gym = [passage("Prices", "A monthly membership costs 55 pounds and includes "
                   "unlimited entry. A single entry costs 13 pounds.")]
    judgement, note = _judged("A monthly membership with no limit on entry costs 55 pounds.",
                              gym)
    assert judgement.verdict == "supported", note
    judgement, note = _judged("A monthly membership with no limit on entry costs 45 pounds.",
                              gym)
    assert judgement.verdict == "contradicted" and "55 pounds" in note


CLINIC = [
    passage("Harbour Clinic", "The Harbour Clinic opened in 1998 on Mill Street and moved "
            "to Quay Road in 2015. The clinic has always offered free flu jabs. Lunch at "
            "the staff canteen is free for nurses who work night shifts. Tidebase supports "
            "PostgreSQL and MySQL; SQLite is not supported."),
]


def test_has_always_against_a_later_move_is_contradicted() -> None:
    judgement, note = _judged("The clinic has always been located on Quay Road.", CLINIC)
    assert judgement.verdict == "contradicted" and "2015" in note
    # a later start of the clinic alone says nothing of what it has always offered
    assert judge("The clinic has always offered free flu jabs.", CLINIC).verdict \
        == "supported"


def test_every_against_a_restrictive_who_clause_is_contradicted() -> None:
    judgement, note = _judged("Lunch at the staff canteen is free for every nurse.", CLINIC)
    assert judgement.verdict == "contradicted" and "night shifts" in note
    assert judge("Lunch at the staff canteen is free for nurses who work night shifts.",
                 CLINIC).verdict == "supported"


def test_a_denial_names_the_clause_that_denies() -> None:
    judgement, note = _judged("Tidebase supports PostgreSQL, MySQL and SQLite.", CLINIC)
    assert judgement.verdict == "contradicted" and "SQLite is not supported" in note


def test_a_who_clause_inside_a_condition_stays_the_conditions() -> None:
    hut = [passage("Hut", "Half board costs 62 euros for adults. Children under 12 stay "
                   "free when accompanied by a parent who is a member.")]
    # the condition leaves "always" partly supported; it does not exclude the claim
    assert judge("Children under 12 always stay for free.", hut).verdict == "partly_supported"
