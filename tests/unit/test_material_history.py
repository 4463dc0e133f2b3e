"""What the history keeps of the user's materials, and what follow-ups and replays do
with it: by default the passages a run cites (so a follow-up and a replay check those
citations again), with ``store.keep_material_text = false`` none of their text (so
they say which citations they cannot check, and check them with the materials handed
in again). Real runs - the Researcher with a scripted model - in a real SQLite store."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from deepcite.config import Settings
from deepcite.materials import UserMaterial
from deepcite.research import Researcher
from deepcite.research.material_runs import analyse_materials
from deepcite.runs.execute import run_question
from deepcite.runs.replay import replay_verification
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "How does the Quillmoor archive keep its ledgers?"
FOLLOW_UP = "And what must visitors do?"
#: Sentences of the material no answer repeats: none may reach a history that keeps
#: no material text - the cited one is the quote verification finds.
CITED = "The Quillmoor archive stores its ledgers in cedar boxes lined with copper foil."
UNCITED = "Visitors must sign the brass register kept beside the vault door."
MATERIAL = {"url": "https://notes.example/quillmoor", "title": "Quillmoor visit notes",
            "content": f"{CITED} {UNCITED}"}
#: Paraphrases: supported by word overlap, so the check's quote is the material's own
#: sentence, which the answer does not contain.
ANSWER = "Quillmoor archive ledgers are stored in cedar boxes lined with copper [1]."
FOLLOW_UP_ANSWER = ("As said before, Quillmoor archive ledgers are stored in cedar boxes "
                    "lined with copper [1].")
WEB = [passage("weather", "The weather in the valley is mild in spring.")]
SECRET = ("lined with copper foil", "brass register", "vault door")


def _settings(make_settings: Any, *, keep: bool = True) -> Settings:
    made: Settings = make_settings(**{
        "research.iterations": 1, "research.questions_per_iteration": 0,
        "research.max_sources": 3, "store.keep_material_text": keep})
    return made


def _run(settings: Settings, store: HistoryStore, question: str, answer: str, *,
         materials: list[dict[str, Any]] | None = None, parent: str | None = None
         ) -> tuple[str, ResearchResult]:
    """One quick run as every front end makes it, begun and finished in ``store``."""
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [answer],
                                      "material_analysis": [""]})
    run_id = store.begin(question, mode="quick", settings=settings, parent_id=parent)
    follow_up = store.get(parent).result if parent else None
    with Researcher(settings, model, [MemoryEngine(WEB)],
                    on_event=lambda event: store.record_event(run_id, event)) as researcher:
        analysed = analyse_materials(researcher, question, materials) if materials else None
        result = run_question(researcher, question, follow_up=follow_up, materials=analysed)
    store.finish(run_id, result)
    return run_id, result


def _material_check(result: ResearchResult) -> str:
    return next(c.outcome for c in result.citation_checks if c.number == 1)


def _stored_text(data_dir: Path) -> str:
    """Every value of every row of every table of the history, as one text."""
    with sqlite3.connect(data_dir / "history.db") as db:
        tables = [row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        return "\n".join(str(row) for table in tables
                         for row in db.execute(f'SELECT * FROM "{table}"'))


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    return _settings(make_settings)


def test_a_follow_up_checks_the_material_citations_again(settings: Settings) -> None:
    with HistoryStore.open(settings) as store:
        parent, first = _run(settings, store, QUESTION, ANSWER, materials=[MATERIAL])
        assert first.sources[0].engine == "user_material" and "[1]" in first.answer
        kept = store.get(parent).result.sources[0]
        assert CITED in kept.snippet  # the cited passage, for follow-ups and replays

        _, follow = _run(settings, store, FOLLOW_UP, FOLLOW_UP_ANSWER, parent=parent)

    assert "[1]" in follow.answer  # today's history: removed, the passage was empty
    assert _material_check(follow) == "supported"
    assert not [w for w in follow.warnings if w.code in ("materials",
                                                         "unsupported_citations")]


def test_without_material_text_the_history_holds_none_of_it(make_settings: Any) -> None:
    settings = _settings(make_settings, keep=False)
    with HistoryStore.open(settings) as store:
        parent, result = _run(settings, store, QUESTION, ANSWER, materials=[MATERIAL])
        assert _material_check(result) == "supported"
        assert any("copper foil" in (c.quote or "") for c in result.citation_checks)
        stored = store.get(parent).result

    everything = _stored_text(settings.data_dir)
    assert "Quillmoor visit notes" in everything  # the run and its sources are there
    assert [phrase for phrase in SECRET if phrase in everything] == []
    assert stored.sources[0].snippet == "" and stored.sources[0].full_text is None
    assert stored.citation_checks[0].outcome == "supported"  # the verdict stays,
    assert stored.citation_checks[0].quote is None  # not the quote from the material


def test_a_follow_up_names_the_material_citations_it_cannot_check(
        make_settings: Any) -> None:
    settings = _settings(make_settings, keep=False)
    with HistoryStore.open(settings) as store:
        parent, _ = _run(settings, store, QUESTION, ANSWER, materials=[MATERIAL])
        _, follow = _run(settings, store, FOLLOW_UP, FOLLOW_UP_ANSWER, parent=parent)

    notice = next(w.message for w in follow.warnings if w.code == "materials")
    assert "[1]" in notice and "'Quillmoor visit notes'" in notice
    assert "hand the same material(s) in again" in notice
    material = next(s for s in follow.sources if s.number == 1)  # the citation's source
    assert (material.title, material.url) == (MATERIAL["title"], MATERIAL["url"])


def test_a_follow_up_checks_them_with_the_materials_handed_in_again(
        make_settings: Any) -> None:
    settings = _settings(make_settings, keep=False)
    with HistoryStore.open(settings) as store:
        parent, _ = _run(settings, store, QUESTION, ANSWER, materials=[MATERIAL])
        follow_id, follow = _run(settings, store, FOLLOW_UP, FOLLOW_UP_ANSWER,
                                 materials=[MATERIAL], parent=parent)
        stored = store.get(follow_id).result

    assert "[1]" in follow.answer and _material_check(follow) == "supported"
    assert not [w for w in follow.warnings if w.code == "materials"]
    materials = [s.number for s in follow.sources if s.engine == "user_material"]
    assert materials == [1]  # the passage handed in again is source 1, not a new one
    assert stored.sources[0].snippet == ""  # and the follow-up keeps no text either


def test_a_changed_material_is_not_taken_for_the_cited_one(make_settings: Any) -> None:
    settings = _settings(make_settings, keep=False)
    changed = {**MATERIAL, "content": MATERIAL["content"].replace("cedar", "pine")}
    with HistoryStore.open(settings) as store:
        parent, _ = _run(settings, store, QUESTION, ANSWER, materials=[MATERIAL])
        _, follow = _run(settings, store, FOLLOW_UP, FOLLOW_UP_ANSWER,
                         materials=[changed], parent=parent)

    assert any("[1]" in w.message for w in follow.warnings if w.code == "materials")


def test_replay_checks_the_kept_passages_again(settings: Settings) -> None:
    with HistoryStore.open(settings) as store:
        run_id, _ = _run(settings, store, QUESTION, ANSWER, materials=[MATERIAL])
        outcome = replay_verification(store.get(run_id), settings)

    assert outcome.matches, [d.describe() for d in outcome.differences]
    assert outcome.citation_checks[0].outcome == "supported"
    assert not [n for n in outcome.notes if "cannot be checked" in n]


def test_replay_without_material_text_names_what_it_cannot_check(
        make_settings: Any) -> None:
    settings = _settings(make_settings, keep=False)
    with HistoryStore.open(settings) as store:
        run_id, _ = _run(settings, store, QUESTION, ANSWER, materials=[MATERIAL])
        stored = store.get(run_id)
    blind = replay_verification(stored, settings)
    again = replay_verification(stored, settings, [UserMaterial.model_validate(MATERIAL)])

    assert any("[1]" in n and "cannot be checked again" in n for n in blind.notes)
    assert not blind.matches  # not reproduced, and said why
    assert again.matches, [d.describe() for d in again.differences]
    assert any("checked against the materials handed in again" in n for n in again.notes)


def test_a_citation_it_cannot_check_is_kept_in_the_follow_up(make_settings: Any) -> None:
    settings = _settings(make_settings, keep=False)
    with HistoryStore.open(settings) as store:
        parent, _ = _run(settings, store, QUESTION, ANSWER, materials=[MATERIAL])
        _, follow = _run(settings, store, FOLLOW_UP, FOLLOW_UP_ANSWER, parent=parent)

    assert "[1]" in follow.answer and "\u201c\u201d" not in follow.answer
