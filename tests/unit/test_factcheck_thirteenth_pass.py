"""Claims a check judged wrongly on unseen drafts (issue 48's thirteenth pass): two
denials of one subject in other words agree ("Cash isn't an option" against "Cash is
not accepted"), and a condition framing the claim for its reader ("If you ride
regularly, ...") bounds nothing a source must state."""

from __future__ import annotations

from deepcite.factcheck.agreeing import denial_credit
from deepcite.factcheck.framing import reader_framing
from deepcite.factcheck.judge import judge
from deepcite.factcheck.restrictions import scope_clash
from tests.fakes import passage


def _verdict(claim: str, source: str) -> str:
    return judge(claim, [passage("Doc", source)]).verdict


def test_a_denial_of_the_same_subject_in_other_words_agrees() -> None:
    assert denial_credit("Cash isn't an option", "Cash is not accepted.") == {"option"}
    source = ("All plans are paid by card, in the app or at a terminal. Cash is not "
              "accepted. A hold of 150 pounds is placed on the card.")
    assert _verdict("Cash isn't an option.", source) == "supported"


def test_denials_of_one_predicate_adding_other_words_do_not_agree() -> None:
    # the same denial ("not allowed"), of another place: what the claim adds stays unsaid
    assert not denial_credit("Dogs are not allowed on the bus", "Dogs are not allowed in the park.")
    # another subject denied
    assert not denial_credit("Cash isn't an option", "Cheques are not accepted.")
    # a denial against a plain statement is no agreement
    assert not denial_credit("Cash isn't an option", "Cash is accepted.")


def test_a_denial_still_contradicts_a_plain_claim() -> None:
    assert _verdict("Cash is accepted at the terminal.",
                    "Cash is not accepted at the terminal.") == "contradicted"


def test_a_condition_on_the_readers_needs_or_habits_is_framing() -> None:
    for framing in ("If you ride regularly", "If you need a receipt",
                    "When you're planning a trip", "if you travel a lot"):
        assert reader_framing(framing), framing
    for condition in ("if you cancel within 24 hours", "If you turn up at a full station",
                      "If the station is full", "if you arrive after 6pm"):
        assert not reader_framing(condition), condition


def test_framing_leaves_the_claim_unbounded_but_a_real_condition_does_not() -> None:
    source = "The Annual plan costs 90 pounds and includes 45 minutes per ride."
    assert scope_clash("If you ride regularly, the Annual plan costs 90 pounds.",
                       source) is None
    clash = scope_clash("If you book before May, the Annual plan costs 90 pounds.", source)
    assert clash is not None and clash.outcome == "partly"
