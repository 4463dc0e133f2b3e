"""The focused-iteration and topic-organization strategies, through the Researcher."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from deepcite.citations import cited_numbers
from deepcite.citations.handlers import NO_SOURCES_ANSWER
from deepcite.research import Researcher
from deepcite.research.strategies import load_strategy, resolve_name
from deepcite.research.strategies.focused_iteration import FocusedIterationStrategy
from deepcite.research.strategies.topic_organization import TopicOrganizationStrategy
from deepcite.types import Event, PhaseStarted, QuestionsGenerated, ResearchResult, SourcesAdded
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "How do I parse command line arguments?"
PASSAGES = [
    passage("argparse", "The argparse module parses command line arguments and options."),
    passage("getopt", "getopt is a C-style parser for command line options."),
    passage("shlex", "shlex splits strings using shell-like syntax, useful for arguments."),
    passage("sys.argv", "sys.argv is the list of command line arguments passed to a script."),
    passage("nargs", "Setting nargs to plus accepts one or more values for an option."),
    passage("metavar", "A metavar renames a value in usage messages."),
    passage("logging", "The logging module records events while software runs."),
]
_SOURCE_TAG = re.compile(r'<source id="(\d+)" title="([^"]*)">')


def _run(make_settings: Any, cls: type[Any], model: ScriptedChatModel,
         engine: MemoryEngine, events: list[Event] | None = None,
         question: str = QUESTION, **overrides: Any) -> ResearchResult:
    """Run ``cls`` through the Researcher, chosen by name as a user would."""
    settings = make_settings(**{"research.strategy": cls.name, "query_planning": "model",
                                **overrides})
    sink = events.append if events is not None else None
    return Researcher(settings, model, [engine], sink).run(question)


def _resolves(result: ResearchResult) -> bool:
    return set(cited_numbers(result.answer)) <= {s.number for s in result.sources}


def _ids(prompt: str) -> dict[str, int]:
    """title -> source number, as fenced in a prompt."""
    return {title: int(number) for number, title in _SOURCE_TAG.findall(prompt)}


# -- focused-iteration ---------------------------------------------------------------


def test_focused_stops_when_an_iteration_finds_nothing_new(make_settings: Any) -> None:
    model = ScriptedChatModel(script={
        "focused_queries": ["nargs values", "metavar usage", "argparse options"],
        "focused_answer": ["Set nargs to plus to accept several values [1]."],
    })
    engine = MemoryEngine(PASSAGES)
    events: list[Event] = []
    result = _run(make_settings, FocusedIterationStrategy, model, engine, events)

    # Iteration 3 only found known passages: saturated, so no iteration 4.
    assert [e.iteration for e in events if isinstance(e, QuestionsGenerated)] == [1, 2, 3]
    assert model.purposes() == ["focused_queries"] * 3 + ["focused_answer"]
    assert result.questions_by_iteration == {
        1: [QUESTION, "nargs values"], 2: ["metavar usage"], 3: ["argparse options"]}
    assert {"questions", "search", "synthesis"} <= {
        e.phase for e in events if isinstance(e, PhaseStarted)}
    assert any(isinstance(e, SourcesAdded) for e in events)
    second_prompt = [user for purpose, user in model.calls if purpose == "focused_queries"][1]
    assert "What we know so far" in second_prompt and "<source" in second_prompt
    assert "- nargs values" in second_prompt


def test_focused_short_answer_cites_registered_sources_plus_evidence(make_settings: Any) -> None:
    model = ScriptedChatModel(script={
        "focused_queries": ["argparse module"],
        "focused_answer": ["The argparse module parses command line arguments [1][99]."],
    })
    result = _run(make_settings, FocusedIterationStrategy, model,
                  MemoryEngine(PASSAGES))
    short, heading, evidence = result.answer.partition("\n\nEvidence:\n\n")
    assert heading and short.startswith("The argparse module parses")
    assert "[99]" not in result.answer and _resolves(result)
    assert evidence.startswith("- ") and "\u201c" in evidence
    assert any("Removed 1 citation" in w.message for w in result.warnings)


def test_focused_no_sources_means_no_answer_call(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"focused_queries": ["quantum gravity"]},
                              default="Made up [1].")
    result = _run(make_settings, FocusedIterationStrategy, model,
                  MemoryEngine(PASSAGES), question="Tell me about quantum gravity")
    assert result.answer == NO_SOURCES_ANSWER and result.sources == []
    assert "focused_answer" not in model.purposes()


@pytest.mark.parametrize("reply", [
    "", 'print(f"The answer is: {answer}")',
    "the model rambles on about many things that are not queries at all in this line"])
def test_focused_garbage_queries_fall_back_to_the_question(make_settings: Any,
                                                           reply: str) -> None:
    model = ScriptedChatModel(script={"focused_queries": [reply],
                                      "focused_answer": ["argparse parses arguments [1]."]})
    engine = MemoryEngine(PASSAGES)
    result = _run(make_settings, FocusedIterationStrategy, model, engine)
    assert engine.queries == [QUESTION]  # searched once; iteration 2 had nothing to ask
    assert result.sources and _resolves(result)
    assert any("question only" in w.message for w in result.warnings)


def test_focused_unusable_answer_gives_quoted_evidence_once(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"focused_queries": ["argparse"],
                                      "focused_answer": [""]})
    result = _run(make_settings, FocusedIterationStrategy, model,
                  MemoryEngine(PASSAGES))
    assert result.answer.startswith("The model did not produce a usable answer")
    assert "Evidence:" not in result.answer and _resolves(result)
    assert any("not usable" in w.message for w in result.warnings)


# -- topic-organization --------------------------------------------------------------


def _grouping(prompt: str) -> str:
    ids = _ids(prompt)
    return json.dumps({"topics": [
        {"title": "Python modules", "sources": [ids["argparse"], ids["sys.argv"], 99]},
        {"title": "C-style parsing", "sources": [ids["getopt"]]},
    ]})


def _section(prompt: str) -> str:
    first = min(_ids(prompt).values())
    return f"These tools handle command line parsing in detail [{first}][42]."


def test_topics_group_sources_and_write_cited_sections(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["argparse tutorial\ngetopt options"],
                                      "topics": [_grouping], "topic_section": [_section]})
    events: list[Event] = []
    result = _run(make_settings, TopicOrganizationStrategy, model,
                  MemoryEngine(PASSAGES), events, iterations=1)

    assert model.purposes() == ["questions", "topics"] + ["topic_section"] * 3
    headings = re.findall(r"^### (.+)$", result.answer, re.MULTILINE)
    assert headings == ["Python modules", "C-style parsing", "Other"]  # shlex unplaced
    assert _resolves(result) and "[42]" not in result.answer and "[99]" not in result.answer
    assert any("Dropped 1 topic source" in w.message for w in result.warnings)
    sections = [user for purpose, user in model.calls if purpose == "topic_section"]
    assert set(_ids(sections[1])) == {"getopt"}  # a section sees only its own sources
    assert "topics" in {e.phase for e in events if isinstance(e, PhaseStarted)}


@pytest.mark.parametrize("reply", ["Sure, the topics are parsing and splitting.",
                                   '{"topics": "parsing"}', "[]", ""])
def test_unusable_topics_fall_back_to_one_topic_per_document(
        make_settings: Any, reply: str) -> None:
    model = ScriptedChatModel(script={"questions": ["argparse tutorial"], "topics": [reply],
                                      "topic_section": [_section]})
    result = _run(make_settings, TopicOrganizationStrategy, model,
                  MemoryEngine(PASSAGES), iterations=1)
    headings = re.findall(r"^### (.+)$", result.answer, re.MULTILINE)
    assert headings == [s.title for s in result.sources]  # distinct titles, source order
    assert any("grouped sources by document" in w.message for w in result.warnings)
    assert _resolves(result)


def test_topic_sections_are_bounded(make_settings: Any) -> None:
    many = [passage(f"doc {i}", f"Command line arguments note number {i}.") for i in range(9)]

    def eight_topics(prompt: str) -> str:
        return json.dumps({"topics": [{"title": f"T{n}", "sources": [n]}
                                      for n in sorted(_ids(prompt).values())]})

    model = ScriptedChatModel(script={"questions": [""], "topics": [eight_topics],
                                      "topic_section": [_section]})
    result = _run(make_settings, TopicOrganizationStrategy, model,
                  MemoryEngine(many), iterations=1, **{"search.max_results": 20})
    assert len(result.sources) == 9
    assert model.purposes().count("topic_section") == 5
    headings = re.findall(r"^### (.+)$", result.answer, re.MULTILINE)
    assert headings == ["T1", "T2", "T3", "T4", "Other"]
    assert _resolves(result)


def test_topics_no_sources_means_no_model_calls_after_search(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["quantum gravity"]}, default="Made up [1].")
    result = _run(make_settings, TopicOrganizationStrategy, model,
                  MemoryEngine(PASSAGES), question="Tell me about quantum gravity",
                  iterations=1)
    assert result.answer == NO_SOURCES_ANSWER
    assert model.purposes() == ["questions"]


def test_strategies_are_registered_by_name() -> None:
    for cls in (FocusedIterationStrategy, TopicOrganizationStrategy):
        assert load_strategy(resolve_name(cls.name)) is cls
        assert cls.description and "\n" not in cls.description
