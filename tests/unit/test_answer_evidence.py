"""A model-written answer is sent the passages that bear on the question, not whole
pages, and the queries cost as many calls as ``research.query_planning`` says."""

from __future__ import annotations

from typing import Any

import pytest

from deepcite.citations.evidence import passages_of, select_evidence
from deepcite.research import Researcher
from deepcite.types import Source
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "When was the harbour of Porthmoor widened?"
PADDING = " ".join(f"Walkers on the coastal path pass stile number {n} near the dunes."
                   for n in range(40))
HARBOUR = (f"{PADDING} The harbour of Porthmoor was widened in 1926 to take larger "
           f"trawlers. {PADDING}")
UNRELATED = "Sourdough bread needs a starter that is fed with flour every day."


def _source(number: int, title: str, text: str) -> Source:
    url = f"https://notes.example/{number}"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text,
                  engine="memory")


def test_each_source_gives_its_passages_on_the_question_within_the_budget() -> None:
    sources = [_source(1, "Harbour", HARBOUR), _source(2, "Bread", UNRELATED),
               _source(3, "Trawlers", "Porthmoor trawlers land hake. The harbour of "
                       "Porthmoor silts up each winter.")]
    excerpts = select_evidence(QUESTION, sources, 450)
    assert set(excerpts) == {1, 3}  # the bread page shares nothing with the question
    assert "widened in 1926" in excerpts[1]
    assert excerpts[1].startswith("…") and excerpts[1].endswith("…")  # the page goes on
    assert sum(len(text) for text in excerpts.values()) <= 450 + 20
    assert len(excerpts[1]) < len(HARBOUR) / 4
    roomy = select_evidence(QUESTION, sources, 2000)  # room left: its opening comes last
    assert roomy[2] == UNRELATED and roomy[1] == excerpts[1]


def test_passages_are_whole_sentences_and_cover_the_text() -> None:
    pieces = passages_of(HARBOUR, size=200)
    assert " ".join(pieces) == " ".join(HARBOUR.split())
    assert all(piece.endswith(".") for piece in pieces)


def _run(make_settings: Any, planning: str, **extra: Any) -> tuple[Any, ScriptedChatModel]:
    model = ScriptedChatModel(script={
        "questions": ["Porthmoor harbour history\nPorthmoor harbour works 1920s\n"
                      "Porthmoor trawler fleet"],
        "followups": ["Porthmoor harbour engineers"],
        "synthesis": ["The harbour of Porthmoor was widened in 1926 [1]."]})
    engine = MemoryEngine([passage("Harbour", HARBOUR),
                           passage("Trawlers", "Porthmoor trawlers land hake in the harbour.")])
    settings = make_settings(iterations=2, answer_mode="abstractive",
                             query_planning=planning, **extra)
    return Researcher(settings, model, [engine]).run(QUESTION), model


@pytest.mark.parametrize(("planning", "calls"), [
    ("results", ["synthesis"]),
    ("plan", ["questions", "synthesis"]),
    ("model", ["questions", "followups", "synthesis"]),
])
def test_queries_cost_the_calls_the_planning_setting_says(
        make_settings: Any, planning: str, calls: list[str]) -> None:
    result, model = _run(make_settings, planning)
    assert [p for p in model.purposes() if p != "verify"] == calls
    assert set(result.questions_by_iteration) == {1, 2}  # two iterations searched either way
    assert "[1]" in result.answer


def test_a_planned_run_searches_the_plans_follow_ups_in_its_second_iteration(
        make_settings: Any) -> None:
    result, _ = _run(make_settings, "plan", questions_per_iteration=1,
                     followups_per_iteration=2)
    assert result.questions_by_iteration[1][1:] == ["Porthmoor harbour history"]
    later = " | ".join(result.questions_by_iteration[2])
    assert "1920s" in later and "trawler fleet" in later


def _answer_prompt(model: ScriptedChatModel) -> str:
    return next(user for purpose, user in model.calls if purpose == "synthesis")


def test_the_answer_prompt_carries_the_evidence_and_citations_check_the_whole_source(
        make_settings: Any) -> None:
    result, model = _run(make_settings, "results")
    prompt = _answer_prompt(model)
    assert "widened in 1926" in prompt
    assert prompt.count("stile number") < 20  # not the 80 of the whole page
    assert result.verification is not None and result.verification.supported >= 1
    _, whole = _run(make_settings, "results", evidence_chars=0)
    assert _answer_prompt(whole).count("stile number") > 2 * prompt.count("stile number")


def test_a_planned_run_that_found_nothing_first_makes_no_second_query_call(
        make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["Porthmoor harbour history\n"
                                                    "Porthmoor harbour works 1920s"]})
    engine = MemoryEngine([passage("Harbour", HARBOUR)])
    original = engine.search
    engine.search = lambda query, *, max_results: (  # type: ignore[method-assign]
        original(query, max_results=max_results) if "1920s" in query else [])
    settings = make_settings(iterations=2, answer_mode="abstractive", query_planning="plan",
                             questions_per_iteration=1, followups_per_iteration=1)
    result = Researcher(settings, model, [engine]).run(QUESTION)
    assert model.purposes().count("questions") == 1
    assert "1920s" in " ".join(result.questions_by_iteration.get(2, []))
