"""A run's brief: evidence it starts with, and searching only what is left open."""

from __future__ import annotations

import re
from typing import Any

from deepcite.research import Researcher
from deepcite.research.brief import RunBrief
from deepcite.types import SearchResult
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "How do Python programs parse command line arguments?"
WEB = [passage("argparse", "The argparse module parses command line arguments for "
               "Python programs.")]
MATERIAL = SearchResult(title="Team notes", url="/home/me/notes.md", engine="user_material",
                        snippet="Our tools parse command line arguments with click groups.",
                        metadata={"material_id": "M1"})


def _cite_all(prompt: str) -> str:
    return " ".join(f"Said here [{n}]." for n in re.findall(r'<source id="(\d+)"', prompt))


def _run(make_settings: Any, brief: RunBrief, engine: MemoryEngine, **overrides: Any
         ) -> tuple[Any, ScriptedChatModel]:
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [_cite_all]})
    settings = make_settings(**{"iterations": 1, "questions_per_iteration": 0,
                                "citations.verify": False, "max_sources": 1, **overrides})
    with Researcher(settings, model, [engine]) as researcher:
        return researcher.run(QUESTION, brief=brief), model


def test_evidence_is_numbered_first_and_always_given_to_the_answer(make_settings: Any) -> None:
    engine = MemoryEngine(WEB)
    result, model = _run(make_settings, RunBrief(evidence=(MATERIAL,)), engine)
    assert result.sources[0].number == 1 and result.sources[0].engine == "user_material"
    assert {s.engine for s in result.sources} == {"user_material", "memory"}  # not cut
    prompt = next(user for purpose, user in model.calls if purpose == "synthesis")
    assert "click groups" in prompt
    assert "[1]" in result.answer


def test_no_search_queries_answers_from_the_evidence_alone(make_settings: Any) -> None:
    engine = MemoryEngine(WEB)
    result, _ = _run(make_settings, RunBrief(evidence=(MATERIAL,), search_queries=()), engine)
    assert engine.queries == []
    assert result.metrics.searches == 0
    assert [s.engine for s in result.sources] == ["user_material"]


def test_search_queries_replace_the_question_in_the_first_iteration(
        make_settings: Any) -> None:
    engine = MemoryEngine(WEB)
    _run(make_settings, RunBrief(search_queries=("argparse subcommands",)), engine)
    assert engine.queries == ["argparse subcommands"]
