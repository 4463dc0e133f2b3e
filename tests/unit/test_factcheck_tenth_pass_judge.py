"""Claims a check judged wrongly on drafts it had not seen (issue 48's tenth pass, the
judge's share): a value the source says was replaced, given as holding now; keeping
against stripping; an acronym the source spells out; an "every" of another thing than
the source's exception; the date of another release than the claim's."""

from __future__ import annotations

from deepcite.factcheck.changes import Change, changes_in
from deepcite.factcheck.judge import Judgement, judge
from deepcite.factcheck.names import spelled_out
from tests.fakes import passage

TOOL = [
    passage("Changelog", "Version 3.0 (5 May 2023). The default compression level "
            "changed from fast to balanced. The maximum number of threads was raised "
            "from 16 to 128. Uploads can now be up to 2 GB (previously 500 MB)."),
    passage("Release", "Current version: 3.4.2 (released 12 October 2024). It runs on "
            "Linux and macOS."),
    passage("Privacy", "By default the exporter strips all location data from the "
            "photos it writes. Use --keep-location to copy it."),
]
HARBOUR = [
    passage("History", "The harbour was built in 1890 for the Great Western Railway, "
            "which ran a ferry to Cork. The lighthouse was added in 1902."),
    passage("Visiting", "The visitor centre opens at 09:00 and closes at 17:00 every "
            "day except Christmas Day, when the harbour is closed to visitors."),
]


def _judged(claim: str, passages: list) -> tuple[Judgement, str]:  # type: ignore[type-arg]
    judgement = judge(claim, passages)
    return judgement, "; ".join(f"{c.draft} / {c.source}" for c in judgement.conflicts)


def test_a_change_is_read_with_its_old_and_new_value() -> None:
    assert list(changes_in("The default level changed from `fast` to `balanced`.")) \
        == [Change("fast", "balanced")]
    assert list(changes_in("The limit is now 12 (it was 11).")) == [Change("11", "12")]
    assert list(changes_in("It now defaults to 8 instead of 4.")) == [Change("4", "8")]


def test_a_replaced_value_given_as_current_is_contradicted_by_the_new_one() -> None:
    judgement, note = _judged("The default compression level is fast.", TOOL)
    assert judgement.verdict == "contradicted" and "balanced" in note


def test_a_claim_about_the_past_value_is_no_contradiction() -> None:
    judgement, _ = _judged("The default compression level was fast before 3.0.", TOOL)
    assert judgement.verdict != "contradicted"


def test_keeping_against_stripping_is_contradicted_naming_what_the_source_does() -> None:
    judgement, note = _judged("By default the exporter keeps the location data of the "
                              "photos it writes.", TOOL)
    assert judgement.verdict == "contradicted" and "strips all location" in note


def test_an_acronym_the_passage_spells_out_is_stated() -> None:
    assert spelled_out("GWR", "built for the Great Western Railway, which")
    assert not spelled_out("GWR", "built for the Great Northern Railway")
    judgement = judge("The harbour was built in 1890 for the GWR.", HARBOUR)
    assert "GWR" not in judgement.missing and judgement.verdict == "supported"


def test_an_every_of_another_thing_is_not_limited_by_the_sources_exception() -> None:
    judgement = judge("Every June the harbour holds a regatta for visitors.", HARBOUR)
    assert judgement.verdict != "contradicted"
    # an "every day" the source's exception limits stays contradicted
    judgement, note = _judged("The visitor centre is open every day of the year.", HARBOUR)
    assert judgement.verdict == "contradicted" and "except" in note.lower()
    # an "any" the sentence's "only" limits, quantifying nothing itself, stays limited
    store = [passage("Replicas", "The store keeps two replicas of every table. Queries "
                     "are answered by the leader only.")]
    judgement, note = _judged("Queries can be answered by any replica.", store)
    assert judgement.verdict == "contradicted" and "only" in note


def test_the_date_of_another_release_does_not_contradict_the_claims() -> None:
    judgement = judge("Version 3.0 came out in May 2023 and was the first release to "
                      "support plugins.", TOOL)
    assert judgement.verdict != "contradicted"


CONVERTER = [
    passage("About", "imgpress is a command-line tool for shrinking and converting "
            "photos. It is licensed under the MIT License."),
    passage("Options", "--level L sets the compression level, from 1 to 9. The default "
            "is 6 for PNG and 4 for WebP. imgpress refuses any photo whose width exceeds "
            "20,000 pixels."),
    passage("Parking", "In the short-stay car park the first 20 minutes are free, then "
            "£3 per hour."),
]


def test_a_verb_of_refusing_says_what_a_negation_says() -> None:
    judgement = judge("imgpress will not open a photo whose width is above 20,000 pixels.",
                      CONVERTER)
    assert judgement.verdict == "supported"


def test_a_range_between_two_numbers_is_not_cut_into_clauses() -> None:
    judgement = judge("The --level option takes any number between 1 and 9, and there is "
                      "also a preset that picks a level by itself.", CONVERTER)
    assert judgement.verdict == "partly_supported"
    assert any("preset" in part for part in judgement.missing)


def test_a_default_in_other_words_is_the_default() -> None:
    for claim in ("If you don't set a level yourself, PNG files are compressed at 6.",
                  "Out of the box, PNG files are compressed at level 6."):
        judgement = judge(claim, CONVERTER)
        assert judgement.verdict != "not_found" and not any(
            "yourself" in part or "box" in part for part in judgement.missing), claim


def test_a_program_is_a_tool_and_two_verbs_of_one_thing_stay_one_clause() -> None:
    judgement = judge("imgpress is a command-line program for shrinking and converting "
                      "photos, released under the MIT licence.", CONVERTER)
    assert judgement.verdict == "supported"


def test_costs_nothing_is_no_denial() -> None:
    judgement = judge("Parking in the short-stay car park costs nothing for the first "
                      "20 minutes.", CONVERTER)
    assert judgement.verdict != "contradicted"


def test_bags_on_board_and_handed_in_however_written() -> None:
    airport = [passage("Security", "Lighters are permitted in carry-on bags only. Never "
                       "put one in checked baggage.")]
    judgement, note = _judged("Lighters have to go in your hold luggage rather than your "
                              "hand luggage.", airport)
    assert judgement.verdict == "contradicted" and "carry-on bags only" in note


def test_a_clause_denied_stays_denied_though_the_whole_states_its_last_name() -> None:
    shop = [passage("Shop", "The metal shop has a lathe and a MIG welder. TIG welding is "
                    "not available.")]
    judgement, note = _judged("The metal shop has a lathe and offers both MIG and TIG "
                              "welding.", shop)
    assert judgement.verdict == "contradicted" and "not available" in note
