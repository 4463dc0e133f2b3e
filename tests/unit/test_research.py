"""The source-based research loop, driven by a scripted model and an in-memory engine."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from deepcite.citations import cited_numbers
from deepcite.citations.handlers import NO_SOURCES_ANSWER
from deepcite.errors import InputError
from deepcite.research import Researcher
from deepcite.types import Event, Finished, ModelCall, QuestionsGenerated, SearchDone
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "How do I parse command line arguments?"
PASSAGES = [
    passage("argparse", "The argparse module parses command line arguments and options."),
    passage("getopt", "getopt is a C-style parser for command line options."),
    passage("shlex", "shlex splits strings using shell-like syntax, useful for arguments."),
    passage("sys.argv", "sys.argv is the list of command line arguments passed to a script."),
    passage("logging", "The logging module records events while software runs."),
]


def _researcher(make_settings: Any, model: ScriptedChatModel, engine: MemoryEngine,
                events: list[Event] | None = None, **overrides: Any) -> Researcher:
    sink = events.append if events is not None else None
    # The model writes the queries here: these tests drive its sub-queries and follow-ups.
    settings = make_settings(**{"query_planning": "model", **overrides})
    return Researcher(settings, model, [engine], sink)


def test_two_iterations_use_at_most_four_model_calls(make_settings: Any) -> None:
    model = ScriptedChatModel(script={
        "questions": ["argparse tutorial\ngetopt options\nsys.argv list"],
        "followups": ["shlex split arguments\nargparse subcommands"],
        "synthesis": ["Use argparse to parse command line arguments [1]."],
    })
    engine = MemoryEngine(PASSAGES)
    events: list[Event] = []
    result = _researcher(make_settings, model, engine, events, iterations=2).run(QUESTION)

    assert model.purposes() == ["questions", "followups", "synthesis"]
    assert result.metrics.model_calls == 3
    assert result.questions_by_iteration[1] == [
        QUESTION, "argparse tutorial", "getopt options", "sys.argv list"]
    # follow-ups keep the question's key terms
    assert result.questions_by_iteration[2] == [
        "parse shlex split arguments", "parse argparse subcommands"]
    assert engine.queries[0] == QUESTION or QUESTION in engine.queries
    assert set(cited_numbers(result.answer)) <= {s.number for s in result.sources}
    assert [s.number for s in result.sources] == list(range(1, len(result.sources) + 1))
    assert result.metrics.searches == 6 and result.metrics.prompt_tokens > 0
    assert isinstance(events[-1], Finished)
    assert sum(isinstance(e, ModelCall) for e in events) == 3
    assert sum(isinstance(e, SearchDone) for e in events) == 6
    assert [e.iteration for e in events if isinstance(e, QuestionsGenerated)] == [1, 2]


def test_followups_are_built_from_accumulated_results(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["argparse"], "followups": ["shlex"],
                                      "synthesis": ["ok answer here [1]."]})
    _researcher(make_settings, model, MemoryEngine(PASSAGES), iterations=3).run(QUESTION)
    followup_prompts = [user for purpose, user in model.calls if purpose == "followups"]
    assert len(followup_prompts) == 2
    assert "The argparse module parses command line arguments" in followup_prompts[0]
    # Iteration 3 still sees iteration 1's results, not just iteration 2's.
    assert "The argparse module parses command line arguments" in followup_prompts[1]
    assert "<source" in followup_prompts[0]


def test_long_question_is_not_searched_verbatim(make_settings: Any) -> None:
    long_question = "command line arguments " * 20
    model = ScriptedChatModel(script={"questions": ["argparse usage"],
                                      "synthesis": ["Answer [1]."]})
    engine = MemoryEngine(PASSAGES)
    _researcher(make_settings, model, engine, iterations=1).run(long_question)
    assert engine.queries == ["argparse usage"]


def test_malformed_question_reply_degrades_to_the_question_and_derived_queries(
        make_settings: Any) -> None:
    model = ScriptedChatModel(script={
        "questions": [f"{QUESTION}\n\n\n"], "followups": ["Write search queries:"],
        "synthesis": ["argparse parses command line arguments [1]."]})
    engine = MemoryEngine(PASSAGES)
    result = _researcher(make_settings, model, engine, iterations=2).run(QUESTION)
    assert engine.queries[0] == QUESTION
    derived = engine.queries[1:]  # follow-ups built from what the question found
    assert derived and all(q.startswith("parse command line arguments ") for q in derived)
    assert result.sources and "argparse" in result.answer
    assert any("question only" in w.message for w in result.warnings)


def test_nothing_found_skips_synthesis_and_says_so(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["quantum gravity"],
                                      "followups": ["loop quantum"]},
                              default="Made up [1].")
    result = _researcher(make_settings, model, MemoryEngine(PASSAGES), iterations=2).run(
        "Tell me about quantum gravity")
    assert result.answer == NO_SOURCES_ANSWER
    assert "synthesis" not in model.purposes()
    assert result.sources == []


def test_failing_engine_is_a_warning_not_a_crash(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": [""], "synthesis": ["Answer [1]."]})
    broken = MemoryEngine([], name="broken", fail_with="HTTP 503 from upstream")
    settings = make_settings(iterations=1)
    result = Researcher(settings, model, [broken, MemoryEngine(PASSAGES)]).run(QUESTION)
    assert result.error is None and result.sources
    assert any("broken failed" in w.message and "503" in w.message for w in result.warnings)


def test_empty_question_is_a_clear_error(make_settings: Any) -> None:
    with pytest.raises(InputError, match="empty"):
        _researcher(make_settings, ScriptedChatModel(), MemoryEngine(PASSAGES)).run("   ")


def test_cancel_returns_what_was_found_without_synthesis(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["argparse"], "synthesis": ["x [1]."]})
    engine = MemoryEngine(PASSAGES)
    researcher = _researcher(make_settings, model, engine, iterations=3)
    original = engine.search
    cancelled = threading.Event()

    def search_then_cancel(query: str, *, max_results: int) -> Any:
        hits = original(query, max_results=max_results)
        researcher.cancel()
        cancelled.set()
        return hits

    engine.search = search_then_cancel  # type: ignore[method-assign]
    result = researcher.run(QUESTION)
    assert cancelled.is_set() and result.cancelled
    assert "synthesis" not in model.purposes()
    assert result.sources and "cancelled" in result.answer
    assert set(cited_numbers(result.answer)) <= {s.number for s in result.sources}


def test_sources_are_capped_and_numbered_by_rank(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["command line"],
                                      "synthesis": ["Answer [1] [3]."]})
    result = _researcher(make_settings, model, MemoryEngine(PASSAGES), iterations=1,
                         max_sources=2).run(QUESTION)
    assert [s.number for s in result.sources] == [1, 2]
    assert "[3]" not in result.answer


def test_model_call_budget_keeps_one_call_for_the_answer(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["argparse tutorial"],
                                      "synthesis": ["argparse parses arguments [1]."]})
    engine = MemoryEngine(PASSAGES)
    result = _researcher(make_settings, model, engine, iterations=3,
                         max_model_calls=1).run(QUESTION)
    assert model.purposes() == ["synthesis"]
    assert engine.queries == [QUESTION]
    assert sum("model-call budget of 1" in w.message for w in result.warnings) == 1
    assert set(cited_numbers(result.answer)) <= {s.number for s in result.sources}


def test_search_budget_caps_queries_and_still_answers(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["argparse\ngetopt\nshlex"],
                                      "followups": ["sys.argv"],
                                      "synthesis": ["Use argparse [1]."]})
    engine = MemoryEngine(PASSAGES)
    result = _researcher(make_settings, model, engine, iterations=3,
                         max_searches=2).run(QUESTION)
    assert len(engine.queries) == 2 and result.metrics.searches == 2
    assert "synthesis" in model.purposes() and result.sources
    assert any("search budget of 2" in w.message for w in result.warnings)


def test_time_budget_answers_from_what_it_has(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["argparse"], "synthesis": ["x [1]."]})
    result = _researcher(make_settings, model, MemoryEngine(PASSAGES), iterations=3,
                         max_seconds=1e-9).run(QUESTION)
    assert result.error is None and not result.cancelled
    assert any("time budget" in w.message for w in result.warnings)
    assert result.answer  # the no-sources answer or quoted passages, never a crash


def test_cancel_does_not_wait_for_a_model_call_in_progress(make_settings: Any) -> None:
    release = threading.Event()
    in_synthesis = threading.Event()

    def slow_synthesis(prompt: str) -> str:
        in_synthesis.set()
        release.wait(30)  # a provider call that ignores cancellation
        return "late answer [1]."

    model = ScriptedChatModel(script={"questions": ["argparse"],
                                      "synthesis": [slow_synthesis]})
    researcher = _researcher(make_settings, model, MemoryEngine(PASSAGES), iterations=1)
    threading.Thread(target=lambda: (in_synthesis.wait(10), researcher.cancel())).start()
    try:
        result = researcher.run(QUESTION)
        assert not release.is_set()  # returned while the model call was still running
        assert result.cancelled and result.sources
        assert "late answer" not in result.answer and "[1]" in result.answer
    finally:
        release.set()


def test_relevance_filter_keeps_and_ranks_this_runs_results(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["command line"],
                                      "relevance": ["C2, C1"],
                                      "synthesis": ["Answer [1]."]})
    result = _researcher(make_settings, model, MemoryEngine(PASSAGES), iterations=1,
                         relevance_filter=True).run(QUESTION)
    assert "relevance" in model.purposes()
    assert len(result.sources) == 2
    relevance_prompt = next(user for purpose, user in model.calls if purpose == "relevance")
    second_candidate = relevance_prompt.split('title="C2 ', 1)[1].split('"', 1)[0]
    assert result.sources[0].title == second_candidate


def test_relevance_filter_never_touches_earlier_sources(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["argparse"], "relevance": ["C1"],
                                      "synthesis": ["Answer [1]."]})
    researcher = _researcher(make_settings, model, MemoryEngine(PASSAGES), iterations=1,
                             relevance_filter=True)
    first = researcher.run(QUESTION)
    numbered = {s.number: s.url for s in first.sources}
    second = researcher.run("What does the logging module record?")
    assert "relevance" in model.purposes()[len(model.purposes()) // 2:]
    for number, url in numbered.items():  # earlier numbers still mean the same sources
        source = researcher.numbering.get(number)
        assert source is not None and source.url == url
    for source in second.sources:
        known = researcher.numbering.get(source.number)
        assert known is not None and known.url == source.url


def test_garbage_relevance_reply_keeps_everything(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["command line"], "relevance": ["hmm"],
                                      "synthesis": ["Answer [1]."]})
    result = _researcher(make_settings, model, MemoryEngine(PASSAGES), iterations=1,
                         relevance_filter=True, max_sources=3).run(QUESTION)
    assert len(result.sources) == 3
    assert any("relevance filter" in w.message for w in result.warnings)


def test_cancel_in_a_slow_second_iteration_keeps_the_first(make_settings: Any) -> None:
    release = threading.Event()
    engine = MemoryEngine(PASSAGES)
    original = engine.search

    hung = threading.Event()

    def search(query: str, *, max_results: int) -> Any:
        if "shlex splitting" in query:  # iteration 2's query hangs like a dead host
            hung.set()
            release.wait(30)
        return original(query, max_results=max_results)

    engine.search = search  # type: ignore[method-assign]
    model = ScriptedChatModel(script={"questions": ["argparse"],
                                      "followups": ["shlex splitting"],
                                      "synthesis": ["Answer [1]."]})
    researcher = _researcher(make_settings, model, engine, iterations=2)

    threading.Thread(target=lambda: (hung.wait(10), researcher.cancel()), daemon=True).start()
    try:
        result = researcher.run(QUESTION)
        assert result.cancelled and not release.is_set()
        assert any(s.title == "argparse" for s in result.sources)
        assert result.questions_by_iteration[1][0] == QUESTION
    finally:
        release.set()


def test_reply_in_another_script_falls_back(make_settings: Any) -> None:
    chinese = "使用 argparse 模块来解析命令行参数。这是标准库的一部分。"
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [chinese]})
    result = _researcher(make_settings, model, MemoryEngine(PASSAGES), iterations=1).run(
        QUESTION)
    assert any("another script" in w.message for w in result.warnings)
    assert "[1]" in result.answer and "使用" not in result.answer


def test_unsupported_citations_are_removed_before_the_answer_leaves(make_settings: Any
                                                                    ) -> None:
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [
        "The argparse module parses command line arguments [1]. "
        "It was written in 1066 by the Normans [1]."]})
    result = _researcher(make_settings, model, MemoryEngine(PASSAGES), iterations=1).run(
        QUESTION)
    assert "parses command line arguments [1]." in result.answer
    assert "Normans [1]" not in result.answer and "Normans" in result.answer
    assert result.verification.unsupported == 1 and result.verification.supported >= 1
    messages = [w.message for w in result.warnings]
    assert any("do not support" in m or "does not support" in m for m in messages)
    check = next(c for c in result.citation_checks if c.outcome == "supported")
    source = next(s for s in result.sources if s.number == check.source_number)
    assert source.text[check.start:check.end] == check.quote


def test_quoted_passages_survive_verification(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [""]})
    # Titles with names the passages never mention (as in the demo's module docs).
    titled = [p.model_copy(update={"title": f"Python Library Reference: {p.title}"})
              for p in PASSAGES]
    result = _researcher(make_settings, model, MemoryEngine(titled), iterations=1,
                         max_sources=3).run(QUESTION)
    assert "did not produce a usable answer" in result.answer
    assert cited_numbers(result.answer) == [1, 2, 3]  # every quote keeps its citation
    assert result.verification.unsupported == 0
