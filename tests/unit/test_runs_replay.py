"""Offline replay of a stored run's verification: real runs (a scripted model over a
small collection of passages), stored in a SQLite history, verified again."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepcite.config import CitationSettings, Settings
from deepcite.errors import InputError
from deepcite.research import Researcher
from deepcite.runs.replay import replay_verification, stored_citation_settings, verified_text
from deepcite.store import HistoryStore, StoredRun
from deepcite.types import ResearchResult, Source
from tests.fakes import MemoryEngine, ScriptedChatModel, passage
from tests.unit.test_store import detailed_result

QUESTION = "How do I parse command line arguments and what does logging record?"
PASSAGES = [
    passage("argparse", "The argparse module parses command line arguments and options. "
            "It was added to the standard library in Python 3.2."),
    passage("sys.argv", "sys.argv is the list of command line arguments passed to a script."),
    passage("logging", "The logging module records events while software runs."),
]
#: Supported (exact, overlap), unsupported (a wrong version: removed from the answer),
#: and one sentence citing two sources, one partly, one not at all.
ANSWER = ("The argparse module parses command line arguments and options [1]. "
          "sys.argv is the list of command line arguments passed to a script [2]. "
          "Argparse was added in Python 2.1 [1]. "
          "The logging module writes poems [3][1].")


def research(settings: Settings, answer: str = ANSWER, **script: Any) -> ResearchResult:
    """One real run: the Researcher with a scripted model and an in-memory engine."""
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [answer], **script})
    with Researcher(settings, model, [MemoryEngine(PASSAGES)]) as researcher:
        return researcher.run(QUESTION)


def keep(store: HistoryStore, settings: Settings, result: ResearchResult) -> str:
    run_id = store.begin(result.question, mode=result.mode, settings=settings)
    store.finish(run_id, result)
    return run_id


def tamper(data_dir: Path, run_id: str, number: int, text: str) -> None:
    """Change a stored source's texts behind the store's back, as an edit would."""
    with sqlite3.connect(data_dir / "history.db") as db:
        changed = db.execute("UPDATE sources SET snippet = ?, full_text = NULL "
                             "WHERE run_id = ? AND number = ?", (text, run_id, number))
        assert changed.rowcount == 1


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    made: Settings = make_settings(**{"research.iterations": 1})
    return made


@pytest.fixture
def store(settings: Settings) -> Iterator[HistoryStore]:
    with HistoryStore.open(settings) as opened:
        yield opened


def test_replay_of_a_real_run_reproduces_its_verification(store: HistoryStore,
                                                           settings: Settings) -> None:
    result = research(settings)
    counts = result.verification
    assert counts is not None and counts.supported and counts.partial and counts.unsupported
    assert "Python 2.1 [1]" not in result.answer  # removed: the stored answer is not
    stored = store.get(keep(store, settings, result))  # what was verified

    outcome = replay_verification(stored, settings)

    assert outcome.matches, [d.describe() for d in outcome.differences]
    assert outcome.differences == [] and outcome.notes == []
    assert outcome.verified_text == "synthesis"
    assert outcome.verification == counts == outcome.stored_verification
    assert outcome.citation_checks == result.citation_checks
    assert outcome.citations == settings.citations


@pytest.mark.parametrize("overrides", [
    {"research.strategy": "focused-iteration"},
    {"research.strategy": "topic-organization"},
    {"citations.answer_mode": "grounded"},  # how the bundled model answers
    {"citations.handler": "precision"},
    {"citations.mark_unsupported": True, "citations.unsupported": "flag"},
], ids=lambda overrides: ",".join(f"{k}={v}" for k, v in overrides.items()))
def test_replay_matches_for_every_strategy_and_answer_mode(
        store: HistoryStore, make_settings: Any, overrides: dict[str, Any]) -> None:
    configured: Settings = make_settings(**{"research.iterations": 1, **overrides})
    result = research(configured, focused_queries=[""], focused_answer=[ANSWER],
                      topics=[""], topic_section=[ANSWER], precision=[ANSWER])
    assert result.verification is not None and result.citation_checks
    outcome = replay_verification(store.get(keep(store, configured, result)), configured)
    assert outcome.matches, [d.describe() for d in outcome.differences]
    assert outcome.verified_text == "synthesis"


def test_a_tampered_source_text_is_named(store: HistoryStore, settings: Settings,
                                         make_settings: Any) -> None:
    run_id = keep(store, settings, research(settings))
    tamper(settings.data_dir, run_id, 2, "Nothing to see.")

    outcome = replay_verification(store.get(run_id), settings)

    assert not outcome.matches
    fields = {d.field: d for d in outcome.differences}
    assert fields["verification.supported"].stored == "2"
    assert fields["verification.supported"].replayed == "1"
    changed = fields["citation_checks[1].outcome"]
    assert (changed.stored, changed.replayed) == ("supported", "unsupported")
    assert changed.citation is not None and changed.citation.startswith("[2] ")
    assert "sys.argv is the list" in changed.citation
    assert "citation_checks[1].outcome" in changed.describe()
    assert "supported → unsupported" in changed.describe()
    assert "citation_checks[0].outcome" not in fields  # source 1 is untouched


def test_a_tampered_synthesis_finding_shows_as_differences(store: HistoryStore,
                                                           settings: Settings) -> None:
    result = research(settings)
    findings = [f.model_copy(update={"content": f.content.replace("[2]", "[3]")})
                if f.phase == "synthesis" else f for f in result.findings]
    stored = store.get(keep(store, settings, result.model_copy(update={"findings": findings})))
    outcome = replay_verification(stored, settings)
    assert not outcome.matches
    assert any(d.field == "citation_checks[1].number" for d in outcome.differences)


def test_the_stored_citation_settings_are_used_not_the_current_ones(
        store: HistoryStore, make_settings: Any) -> None:
    flagging: Settings = make_settings(**{"research.iterations": 1,
                                          "citations.unsupported": "flag"})
    result = research(flagging)
    assert "^(unverified)" in result.answer
    stored = store.get(keep(store, flagging, result))
    current: Settings = make_settings()  # remove, the default
    outcome = replay_verification(stored, current)
    assert outcome.matches and outcome.citations.unsupported == "flag"


def test_stored_citation_settings_ignore_unknown_keys_and_fill_missing_ones() -> None:
    fallback = CitationSettings(mark_unsupported=True)
    read = stored_citation_settings(
        {"citations": {"unsupported": "flag", "from_a_newer_deepcite": 1}}, fallback)
    assert read.unsupported == "flag" and read.mark_unsupported is True
    assert stored_citation_settings({}, fallback) == fallback
    with pytest.raises(InputError, match=r"citations\.unsupported"):
        stored_citation_settings({"citations": {"unsupported": "burn"}}, fallback)


def test_model_verdicts_are_replayed_from_the_stored_checks(store: HistoryStore,
                                                            make_settings: Any) -> None:
    """With verify_with_model the replay calls no model: a stored verdict counts again
    only while its quote is still in the source."""
    answer = "Logging keeps a diary of what programs do [3]. Argparse came with 2.1 [1]."

    def verdict(prompt: str) -> str:
        if "diary" in prompt:
            return "VERDICT: SUPPORTED\nQUOTE: The logging module records events"
        return "VERDICT: UNSUPPORTED\nQUOTE: none"

    checking: Settings = make_settings(**{"research.iterations": 1,
                                          "citations.verify_with_model": True})
    result = research(checking, answer, verify=[verdict])
    methods = [(c.method, c.outcome) for c in result.citation_checks]
    assert ("model", "supported") in methods and ("model", "unsupported") in methods
    run_id = keep(store, checking, result)

    outcome = replay_verification(store.get(run_id), checking)
    assert outcome.matches, [d.describe() for d in outcome.differences]
    assert outcome.verification is not None and outcome.verification.model_calls == 2
    assert any("no model was called" in note for note in outcome.notes)

    tamper(checking.data_dir, run_id, 3, "The logging module writes events down somewhere.")
    tampered = replay_verification(store.get(run_id), checking)
    assert not tampered.matches
    assert any(d.field == "citation_checks[0].outcome" and d.replayed == "unsupported"
               for d in tampered.differences)


def test_a_run_that_ended_early_replays_its_stored_answer(store: HistoryStore,
                                                          settings: Settings) -> None:
    engine = MemoryEngine(PASSAGES)
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [ANSWER]})
    with Researcher(settings, model, [engine]) as researcher:
        original = engine.search

        def cancel_once(query: str, *, max_results: int) -> Any:
            researcher.cancel()
            return original(query, max_results=max_results)

        engine.search = cancel_once  # type: ignore[method-assign]
        result = researcher.run(QUESTION)
    assert result.cancelled and result.sources and result.verification is not None
    # the answer is the quoted passages (a quote is one sentence: attribution adds no
    # marker inside it), and replay builds them again rather than reading the answer
    assert "Passages found so far" in result.answer
    text, origin = verified_text(result)
    assert origin == "passages"
    assert result.answer.startswith(text.split("\u201c", 1)[0])
    run_id = keep(store, settings, result)
    outcome = replay_verification(store.get(run_id), settings)
    assert outcome.matches, [d.describe() for d in outcome.differences]
    assert outcome.verified_text == "passages"
    assert any("quoted passages were built again" in note for note in outcome.notes)

    tamper(settings.data_dir, run_id, 3, "Logging writes nothing at all, ever.")
    assert not replay_verification(store.get(run_id), settings).matches


def test_a_stored_answer_is_the_last_resort(settings: Settings) -> None:
    result = research(settings)
    unfound = result.model_copy(update={"findings": [], "answer": "Some answer [1]."})
    assert verified_text(unfound) == ("Some answer [1].", "answer")


def test_verification_off_replays_to_nothing(store: HistoryStore, make_settings: Any) -> None:
    unchecked: Settings = make_settings(**{"research.iterations": 1, "citations.verify": False})
    result = research(unchecked)
    assert result.verification is None
    outcome = replay_verification(store.get(keep(store, unchecked, result)), unchecked)
    assert outcome.matches and outcome.verification is None and outcome.citation_checks == []
    assert any("verification was off" in note for note in outcome.notes)


def test_detailed_reports_and_unfinished_runs_are_refused(store: HistoryStore,
                                                          settings: Settings) -> None:
    report = store.get(keep(store, settings, detailed_result()))
    with pytest.raises(InputError, match="detailed report"):
        replay_verification(report, settings)
    running = store.begin(QUESTION, mode="quick", settings=settings)
    with pytest.raises(InputError, match="no result to replay"):
        replay_verification(store.get(running), settings)
    store.fail(running, "stopped")


def test_the_users_materials_are_named_as_not_checkable(store: HistoryStore,
                                                        settings: Settings) -> None:
    result = research(settings)
    material = Source(number=9, title="my notes", url="file:///notes.md",
                      canonical_url="file:///notes.md", snippet="The logging module "
                      "records events while software runs.", engine="user_material")
    stored = store.get(keep(store, settings, result.model_copy(
        update={"sources": [*result.sources, material]})))
    assert isinstance(stored, StoredRun) and stored.result.sources[-1].snippet == ""
    outcome = replay_verification(stored, settings)
    assert outcome.matches  # source 9 was not cited
    assert any("Source(s) 9 are the user's materials" in note for note in outcome.notes)
