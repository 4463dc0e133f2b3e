"""Kinds of draft error a check missed before (issue 48's misses on unseen drafts): a
share in words, a describing word between a number and what it counts, "every day"
against "a day", a word and its prefixed opposite, "all year" against a part of the
year said of "it", another doer after "by", a short denial of the claim's own word,
"free" against "pay", "both" against "only"."""

from __future__ import annotations

from deepcite.factcheck.judge import judge
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

ORCHARD = [
    passage("Fenwick Orchard", "Fenwick Orchard covers 14 hectares on the slopes above "
            "Dunmere. Roughly a quarter of the orchard's trees are pear trees. The orchard "
            "was planted in 1931 by nine trained gardeners. The cider house presses about "
            "900 litres of juice a day in October. Payment is by card only; the kiosk does "
            "not accept cash. Adults pay 6 euros for the orchard walk; children under 5 go free."),
    passage("Visiting Fenwick", "The Fenwick footpath is walked anticlockwise. The old "
            "chapel roof was repaired in 2009 with money raised by parishioners. Bikes are "
            "allowed only on the lower terrace."),
    passage("The Fenwick café", "The café sits by the cider house. It opens from April "
            "to October."),
]


def _verdict(claim: str) -> tuple[str, str]:
    judgement = judge(claim, ORCHARD)
    note = "; ".join(f"{c.draft} / {c.source}" for c in judgement.conflicts) or \
        "; ".join(judgement.missing)
    return judgement.verdict, note


def test_a_share_in_words_is_a_percentage() -> None:
    shares = [(v.kind, v.key) for v in extract_values("About two thirds of the land and "
                                                      "half of the trees")]
    assert shares == [("percent", "66.6667"), ("percent", "50")]
    assert not any(v.kind == "percent" for v in extract_values("It took three and a half "
                                                                "hours."))
    verdict, note = _verdict("About half of the orchard's trees are pear trees.")
    assert verdict == "contradicted" and "a quarter" in note
    assert _verdict("Around a quarter of the orchard's trees are pear trees.")[0] \
        == "supported"


def test_a_describing_word_between_a_number_and_what_it_counts() -> None:
    assert [v.unit for v in extract_values("nine trained gardeners")] == \
        [v.unit for v in extract_values("nine gardeners")]
    assert _verdict("The orchard was planted in 1931 by nine gardeners.")[0] == "supported"
    verdict, note = _verdict("The orchard was planted in 1931 by six gardeners.")
    assert verdict == "contradicted" and "nine" in note


def test_every_day_is_an_amount_a_day() -> None:
    assert _verdict("Every day the cider house presses about 900 litres of juice.")[0] \
        in ("supported", "partly_supported")
    verdict, note = _verdict("Every week the cider house presses about 900 litres of juice.")
    assert verdict == "contradicted" and "a day" in note


def test_a_word_against_its_prefixed_opposite() -> None:
    verdict, note = _verdict("The Fenwick footpath is walked clockwise.")
    assert verdict == "contradicted" and "anticlockwise" in note


def test_always_against_a_part_of_the_year_said_of_it() -> None:
    verdict, note = _verdict("It opens all year round.")
    assert verdict == "contradicted" and "April to October" in note


def test_another_doer_after_by() -> None:
    verdict, note = _verdict("The old chapel roof was repaired in 2009, paid for by a "
                             "lottery grant.")
    assert verdict == "contradicted" and "parishioners" in note
    # the doer the source names is no contradiction
    assert _verdict("The old chapel roof was repaired in 2009 by parishioners.")[0] \
        != "contradicted"


def test_a_short_denial_of_the_claims_own_word() -> None:
    verdict, note = _verdict("Visitors can pay cash at the gate.")
    assert verdict == "contradicted" and "does not accept cash" in note


def test_free_against_pay_and_both_against_only() -> None:
    verdict, note = _verdict("Children under 5 pay half price for the orchard walk.")
    assert verdict == "contradicted" and "free" in note
    verdict, note = _verdict("Bikes are allowed on both terraces.")
    assert verdict == "contradicted" and "only on the lower terrace" in note


HARBOUR = [
    passage("Ardlow Harbour", "Ardlow Boat Trips operates four vessels between Ardlow and "
            "the Gannet Rocks. The harbour has 120 mooring berths. Trips must be booked in "
            "advance and cost 18 pounds."),
]


def test_a_count_under_another_noun_in_the_subjects_sentence() -> None:
    said = judge("Ardlow Boat Trips runs four boats between Ardlow and the Gannet Rocks.",
                 HARBOUR)
    assert said.verdict == "supported"
    wrong = judge("Ardlow Boat Trips runs six boats between Ardlow and the Gannet Rocks.",
                  HARBOUR)
    assert wrong.verdict != "supported"
    # a noun naming the kind before the plural counted: "mooring berths" are berths
    other = judge("The harbour has 210 berths.", HARBOUR)
    assert other.verdict == "contradicted" and "120" in other.conflicts[0].source


def test_a_claim_denying_what_a_short_sentence_requires() -> None:
    judged = judge("Trips can be taken without booking.", HARBOUR)
    assert judged.verdict == "contradicted"
    assert "booked in advance" in judged.conflicts[0].source


def test_comparatives_before_the_same_noun_are_no_roles() -> None:
    telescopes = [passage("Telescopes", "Beside the main dome stands a second, smaller "
                          "refractor dating from 1911, still used for viewing the moon.")]
    judged = judge("An older refractor from 1911 is still used for viewing the moon.",
                   telescopes)
    assert judged.verdict == "supported"
    roles = [passage("Staff", "The workshop was set up in 1990 by a Danish carpenter.")]
    assert judge("The workshop was set up in 1990 by a Danish plumber.", roles).verdict \
        == "contradicted"


def test_go_the_language_is_a_word_go_the_verb_is_not() -> None:
    library = [passage("Brookline", "Brookline is a queue library written in Rust.")]
    judged = judge("Brookline is a queue library written in Go.", library)
    assert judged.verdict == "contradicted"
