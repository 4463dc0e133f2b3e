"""A claim's scope against its source's: restrictions, conditions, parts of the year,
and words of one closed kind replaced beside the same word."""

from __future__ import annotations

from deepcite.factcheck.judge import judge
from deepcite.factcheck.restrictions import restrictions, scope_clash
from tests.fakes import passage

POOL_RULES = [
    passage("Pool rules", "The Brindle Lane pool opens daily from 7:00 to 21:00 except on "
            "Tuesdays. Lane swimming is for members only. Toddlers swim free when a "
            "parent is in the water with them. The outdoor basin is heated from May to "
            "September. Towels are hired out at the front desk, not at the poolside."),
    passage("Pool history", "The pool was built in 1962 and renovated in 2015. It has "
            "the blue slide on its north side and the third lane is kept for training."),
]


def _verdict(claim: str) -> tuple[str, str]:
    judgement = judge(claim, POOL_RULES)
    note = "; ".join(f"{c.draft} / {c.source}" for c in judgement.conflicts) or \
        "; ".join(judgement.missing)
    return judgement.verdict, note


def test_a_claim_for_all_against_a_source_that_excludes_is_contradicted() -> None:
    verdict, note = _verdict("The Brindle Lane pool opens every day from 7:00 to 21:00.")
    assert verdict == "contradicted" and "except on Tuesdays" in note
    verdict, note = _verdict("Lane swimming is for anyone.")
    assert verdict == "contradicted" and "members only" in note


def test_a_dropped_condition_is_part_of_the_claim_the_source_does_not_say() -> None:
    verdict, note = _verdict("Toddlers always swim free.")
    assert verdict == "partly_supported" and "when a parent is in the water" in note


def test_a_part_of_the_year_against_all_year_round() -> None:
    verdict, note = _verdict("The outdoor basin is heated all year round.")
    assert verdict == "contradicted" and "from May to September" in note
    # the claim that names the same part of the year is the source's own scope
    assert _verdict("The outdoor basin is heated from May to September.")[0] == "supported"


def test_a_restriction_the_source_does_not_state_or_states_otherwise() -> None:
    sources = [passage("Gym", "The climbing wall at Brindle Lane is open from 9:00 to "
                       "20:00. The sauna is open to adults only.")]
    claim = "The climbing wall at Brindle Lane is open to members only from 9:00 to 20:00."
    judgement = judge(claim, sources)
    assert judgement.verdict == "partly_supported"
    assert any("members only" in missing for missing in judgement.missing)
    other = judge("The sauna is open to children only.", sources)
    assert other.verdict == "contradicted"
    assert any("adults only" in c.source for c in other.conflicts)


def test_the_same_restriction_in_other_words_is_no_clash() -> None:
    assert scope_clash("Lane swimming is only for members.",
                       "Lane swimming is for members only.") is None
    assert scope_clash("The pool is open daily between May and September.",
                       "The pool is open every day between May and September.") is None
    [period] = restrictions("It is heated from May to September.")
    assert period.kind == "period"
    [only] = restrictions("Reads are served from the primary only.")
    assert only.kind == "exclusive" and "primary" in only.text


def test_a_colour_or_an_ordinal_replaced_beside_the_same_word() -> None:
    verdict, note = _verdict("The pool has the red slide on its north side.")
    assert verdict == "contradicted" and "blue" in note
    verdict, note = _verdict("The pool keeps the second lane for training.")
    assert verdict == "contradicted" and "third" in note


def test_rather_than_denies_what_it_names() -> None:
    sources = [passage("Boats", "The Ferrow rowing club trains on the river rather than "
                       "on the lake.")]
    judgement = judge("The Ferrow rowing club trains on the lake.", sources)
    assert judgement.verdict == "contradicted"


def test_what_the_source_says_in_other_words_is_not_a_scope_change() -> None:
    verdict, _ = _verdict("Towels are hired out at the front desk.")
    assert verdict == "supported"
    verdict, note = _verdict("Towels are hired out at the poolside.")
    assert verdict == "contradicted" and "not at the poolside" in note
