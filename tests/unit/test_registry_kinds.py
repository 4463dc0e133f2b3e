"""Strategies and citation handlers through the shared registry: spellings, fallbacks,
plugins that take part in real runs, plugins that may not shadow built-ins; and the
small follow-ups of the registry move (``collection search -k``, ``s2`` tags, closing)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite import plugins as registry
from deepcite.citations.handlers import (
    HANDLER_REGISTRY,
    HANDLERS,
    NO_SOURCES_ANSWER,
    AnswerStyle,
    CitedAnswer,
    Completer,
    ForcedCitationHandler,
    PrecisionCitationHandler,
    StandardCitationHandler,
    get_handler,
    handler_statuses,
)
from deepcite.citations.hyperlinks import hyperlink, source_tag
from deepcite.citations.numbering import SourceNumbering
from deepcite.citations.render import normalise
from deepcite.cli import app
from deepcite.errors import ConfigError
from deepcite.llm import ChatClient
from deepcite.research import Researcher
from deepcite.research.cancel_token import CancelToken
from deepcite.research.context import Plan, RunContext, StrategyOutcome
from deepcite.research.strategies import (
    STRATEGY_REGISTRY,
    create_strategy,
    describe_strategies,
    load_strategy,
    normalise_name,
    resolve_name,
    strategy_statuses,
)
from deepcite.research.strategies.base import Strategy
from deepcite.research.strategies.focused_iteration import FocusedIterationStrategy
from deepcite.research.strategies.source_based import SourceBasedStrategy
from deepcite.research.strategies.topic_organization import TopicOrganizationStrategy
from deepcite.types import ResearchResult, Source
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

HERE = __name__
QUESTION = "When was argparse added to the standard library?"
PASSAGES = [
    passage("argparse history", "argparse was added to the standard library in 2011 "
                                "with Python 3.2."),
    passage("getopt", "getopt is a C-style parser for command line options."),
]
ANSWER = "It arrived with Python 3.2 in 2011 [1]."

# ------------------------------------------------------------------ plugin objects


class OneSearchStrategy(Strategy):
    """A plugin strategy: the question searched once, verbatim, then one answer."""

    name: ClassVar[str] = "one-search"
    description: ClassVar[str] = "Searches the question once [plugin]."

    def plan(self) -> Plan:
        return Plan(steps=2, iterations=1)

    def run(self, question: str) -> StrategyOutcome:
        self.by_iteration[1] = [question]
        results = [hit for engine in self._ctx.engines
                   for hit in engine.search(question, max_results=3)]
        sources = self._ctx.register(results)
        return self._step.answer(question, sources, self.by_iteration, [])


class HalfStrategy(Strategy):
    """Subclasses Strategy but implements neither run nor plan."""

    name: ClassVar[str] = "half"
    description: ClassVar[str] = "half a strategy"


class QuoteHandler:
    """Quotes the first source verbatim, cited; never calls the model (a plugin)."""

    name = "quote"
    follows_strategy = False

    def __init__(self, client: Completer) -> None:
        self.client = client

    def answer(self, question: str, sources: list[Source], *, prior_knowledge: str = "",
               style: AnswerStyle | None = None, draft: str | None = None) -> CitedAnswer:
        if not sources:
            return CitedAnswer(text=NO_SOURCES_ANSWER, model_called=False)
        first = sources[0]
        return CitedAnswer(text=f"{first.snippet} [{first.number}]", model_called=False)


def quote_factory(client: Completer) -> QuoteHandler:
    """A handler factory that is a plain function, not a class."""
    return QuoteHandler(client)


def not_a_handler_factory(client: Completer) -> object:
    """Builds something that is no handler."""
    return object()


class NoAnswerHandler:
    """A class lacking answer()."""

    name = "no-answer"


def not_a_strategy(context: Any) -> None:
    """A function where a Strategy subclass belongs."""


# ------------------------------------------------------------------------ fixtures


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(script={"questions": ["argparse standard library"],
                                     "synthesis": [ANSWER]})


def _client() -> ChatClient:
    return ChatClient(ScriptedChatModel(), context_size=4096, max_tokens=256)


def _run(make_settings: Any, model: Any = None, engines: list[Any] | None = None,
         **overrides: Any) -> ResearchResult:
    settings = make_settings(**{"iterations": 1, **overrides})
    engines = engines if engines is not None else [MemoryEngine(PASSAGES)]
    return Researcher(settings, model or _model(), engines).run(QUESTION)


def _codes(result: ResearchResult) -> list[str]:
    return [warning.code for warning in result.warnings]


# ------------------------------------------------------------------ strategies: names


@pytest.mark.parametrize(("name", "expected"), [
    ("Focused_Iteration", "focused-iteration"),
    ("focused iteration", "focused-iteration"),
    (" FOCUSED-ITERATION ", "focused-iteration"),
    ("focused", "focused-iteration"),
    ("Topic_Organization", "topic-organization"),
    ("TOPICS", "topic-organization"),
    ("source_based_search", "source-based"),
    ("Agent", "agent"),
    ("langgraph_agent", "agent"),
])
def test_every_spelling_of_a_strategy_resolves_without_a_warning(name: str,
                                                                 expected: str) -> None:
    warnings: list[str] = []
    assert resolve_name(name, warnings.append) == expected
    assert normalise_name(name) == expected
    assert warnings == []


@pytest.mark.parametrize(("name", "cls"), [
    ("Focused_Iteration", FocusedIterationStrategy),
    ("topic organization", TopicOrganizationStrategy),
    ("SOURCE-BASED", SourceBasedStrategy),
])
def test_spellings_load_the_strategy_class(name: str, cls: type[Strategy]) -> None:
    assert load_strategy(name) is cls


def test_a_replaced_strategy_says_so_and_uses_its_successor() -> None:
    warnings: list[str] = []
    assert resolve_name("MCP", warnings.append) == "agent"
    assert warnings == ["The strategy 'MCP' is not available any more; using 'agent'"]


def test_an_unknown_strategy_warns_with_the_closest_names_and_falls_back() -> None:
    warnings: list[str] = []
    assert resolve_name("focussed-iteraton", warnings.append) == "source-based"
    assert warnings == ["Unknown strategy 'focussed-iteraton'; using 'source-based' "
                        "(did you mean 'focused-iteration' or "
                        "'focused-iteration-standard'?)"]


def test_an_unknown_strategy_in_a_run_is_a_strategy_warning(make_settings: Any) -> None:
    result = _run(make_settings, strategy="deep-magic")
    assert result.strategy == "source-based" and result.sources
    strategy = [w.message for w in result.warnings if w.code == "strategy"]
    assert len(strategy) == 1
    assert strategy[0].startswith("Unknown strategy 'deep-magic'; using 'source-based'")


def test_without_warn_an_unknown_strategy_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="deepcite.plugins"):
        assert resolve_name("nonsense") == "source-based"
    assert "Unknown strategy 'nonsense'" in caplog.text


# ------------------------------------------------------------------ handlers: names


@pytest.mark.parametrize(("name", "cls"), [
    ("PRECISION", PrecisionCitationHandler),
    ("Precision_", PrecisionCitationHandler),
    (" precision ", PrecisionCitationHandler),
    ("Forced", ForcedCitationHandler),
    ("STANDARD", StandardCitationHandler),
])
def test_every_spelling_of_a_handler_resolves_without_a_warning(name: str,
                                                                cls: type[Any]) -> None:
    warnings: list[str] = []
    assert isinstance(get_handler(name, _client(), warnings.append), cls)
    assert warnings == []


def test_built_in_handlers_load_as_their_own_classes() -> None:
    for name, cls in HANDLERS.items():
        assert HANDLER_REGISTRY.load(name) is cls


def test_an_unknown_handler_warns_with_the_closest_names_and_falls_back() -> None:
    warnings: list[str] = []
    handler = get_handler("precise", _client(), warnings.append)
    assert isinstance(handler, StandardCitationHandler)
    assert warnings == ["Unknown citation handler 'precise'; using 'standard' "
                        "(did you mean 'precision'?)"]


def test_an_unknown_handler_in_a_run_is_a_handler_warning(make_settings: Any) -> None:
    result = _run(make_settings, **{"citations.handler": "fancy"})
    assert result.handler == "standard" and result.answer.startswith("It arrived")
    handler = [w.message for w in result.warnings if w.code == "handler"]
    assert len(handler) == 1
    assert handler[0].startswith("Unknown citation handler 'fancy'; using 'standard'")


# ------------------------------------------------------------------ plugins in real runs


def test_a_plugin_strategy_runs_a_real_question(make_settings: Any,
                                                plugins: Callable[..., None]) -> None:
    plugins(registry.STRATEGIES_GROUP, One_Search=f"{HERE}:OneSearchStrategy")
    assert "one-search" in STRATEGY_REGISTRY.names()
    engine = MemoryEngine(PASSAGES)
    model = _model()
    result = _run(make_settings, model, [engine], strategy="ONE_SEARCH")
    assert result.strategy == "one-search" and "strategy" not in _codes(result)
    assert engine.queries == [QUESTION]  # its own search, not source-based's
    assert "questions" not in model.purposes()
    assert result.answer.startswith("It arrived with Python 3.2 in 2011 [1]")
    assert result.sources[0].title == "argparse history"


@pytest.mark.parametrize("target", ["QuoteHandler", "quote_factory"])
def test_a_plugin_handler_answers_a_real_run(make_settings: Any, plugins: Callable[..., None],
                                             target: str) -> None:
    plugins(registry.CITATION_HANDLERS_GROUP, Quote=f"{HERE}:{target}")
    model = _model()
    result = _run(make_settings, model, **{"citations.handler": "QUOTE"})
    assert result.handler == "quote" and "handler" not in _codes(result)
    assert result.answer.startswith("argparse was added to the standard library in 2011 "
                                    "with Python 3.2. [1]")
    assert "synthesis" not in model.purposes()


def test_a_plugin_strategy_and_handler_together(make_settings: Any,
                                                plugins: Callable[..., None]) -> None:
    plugins(registry.STRATEGIES_GROUP, **{"one-search": f"{HERE}:OneSearchStrategy"})
    plugins(registry.CITATION_HANDLERS_GROUP, quote=f"{HERE}:QuoteHandler")
    model = _model()
    result = _run(make_settings, model, strategy="one-search",
                  **{"citations.handler": "quote"})
    assert (result.strategy, result.handler) == ("one-search", "quote")
    assert model.purposes() == [] and result.warnings == []


# ------------------------------------------------------------------ plugins cannot shadow


def test_a_plugin_cannot_shadow_the_standard_handler(
        make_settings: Any, plugins: Callable[..., None],
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="deepcite.plugins"):
        plugins(registry.CITATION_HANDLERS_GROUP, Standard=f"{HERE}:QuoteHandler")
        assert HANDLER_REGISTRY.load("standard") is StandardCitationHandler
        assert HANDLER_REGISTRY.names() == ["standard", "forced", "precision"]
    assert "is built in" in caplog.text and f"{HERE}:QuoteHandler" in caplog.text
    result = _run(make_settings, **{"citations.handler": "standard"})
    assert result.handler == "standard" and result.answer.startswith("It arrived")


@pytest.mark.parametrize("name", ["source_based", "source-based-search", "standard"])
def test_a_plugin_cannot_shadow_a_built_in_strategy_alias_or_replaced_name(
        make_settings: Any, plugins: Callable[..., None], name: str) -> None:
    plugins(registry.STRATEGIES_GROUP, **{name: f"{HERE}:OneSearchStrategy"})
    assert STRATEGY_REGISTRY.plugins() == {}
    assert load_strategy("source-based") is SourceBasedStrategy
    result = _run(make_settings, strategy=name)
    assert result.strategy == "source-based"


# ------------------------------------------------------------------ broken plugins


def test_broken_plugins_show_as_unavailable_rows(plugins: Callable[..., None]) -> None:
    plugins(registry.STRATEGIES_GROUP, missing="no_such_module_xyz:Strategy",
            function=f"{HERE}:not_a_strategy", half=f"{HERE}:HalfStrategy",
            good=f"{HERE}:OneSearchStrategy")
    rows = {row.name: row for row in strategy_statuses()}
    assert [row.name for row in strategy_statuses()][:4] == [
        "source-based", "focused-iteration", "topic-organization", "agent"]
    assert rows["good"].usable and not rows["good"].builtin
    assert "cannot be loaded" in rows["missing"].description
    assert "ModuleNotFoundError" in rows["missing"].description
    assert "not a strategy class" in rows["function"].description
    assert "does not implement plan, run" in rows["half"].description
    assert not any(rows[name].usable for name in ("missing", "function", "half"))
    described = dict(describe_strategies())
    assert described["missing"].startswith("(unavailable: ")
    assert described["good"] == "Searches the question once [plugin]."


def test_choosing_a_broken_plugin_strategy_is_a_config_error(
        make_settings: Any, plugins: Callable[..., None]) -> None:
    plugins(registry.STRATEGIES_GROUP, function=f"{HERE}:not_a_strategy")
    with pytest.raises(ConfigError, match=r"not a strategy class.*subclass"):
        _run(make_settings, strategy="function")


def test_broken_handler_plugins(plugins: Callable[..., None]) -> None:
    plugins(registry.CITATION_HANDLERS_GROUP, lost="no_such_module_xyz:Handler",
            number=f"{HERE}:HERE", mute=f"{HERE}:NoAnswerHandler",
            hollow=f"{HERE}:not_a_handler_factory")
    rows = {row.name: row for row in handler_statuses()}
    assert "cannot be loaded" in rows["lost"].description
    assert "is a str" in rows["number"].description
    assert "has no answer()" in rows["mute"].description
    assert rows["hollow"].usable  # a factory can only be judged by what it builds
    with pytest.raises(ConfigError, match="built 'object', which lacks name, "
                                          "follows_strategy, answer"):
        get_handler("hollow", _client())
    warnings: list[str] = []
    with pytest.raises(ConfigError, match="'lost'"):  # chosen by name: no silent fallback
        get_handler("lost", _client(), warnings.append)
    assert warnings == []


def test_the_strategies_command_lists_plugins_and_handlers(
        plugins: Callable[..., None]) -> None:
    plugins(registry.STRATEGIES_GROUP, good=f"{HERE}:OneSearchStrategy",
            missing="no_such_module_xyz:Strategy")
    plugins(registry.CITATION_HANDLERS_GROUP, quote=f"{HERE}:QuoteHandler")
    result = CliRunner().invoke(app, ["strategies"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    for text in ("source-based (default)", "good (plugin)", "[plugin]", "(unavailable:",
                 "standard (default)", "precision", "quote (plugin)",
                 "Quotes the first source verbatim"):
        assert text in result.output, text
    shown = CliRunner().invoke(app, ["strategies", "--json"])
    data = json.loads(shown.stdout)
    assert data["default_handler"] == "standard"
    assert [h["name"] for h in data["citation_handlers"]] == [
        "standard", "forced", "precision", "quote"]
    missing = next(s for s in data["strategies"] if s["name"] == "missing")
    assert missing["usable"] is False and missing["builtin"] is False


def test_create_strategy_warns_through_the_given_callback(make_settings: Any) -> None:
    researcher = Researcher(make_settings(), _model(), [MemoryEngine(PASSAGES)])
    context = RunContext(researcher.settings, researcher.client, [], SourceNumbering(),
                         CancelToken(), lambda event: None)
    warnings: list[str] = []
    strategy = create_strategy("rapid", context, warnings.append)
    assert isinstance(strategy, SourceBasedStrategy)
    assert warnings == ["The strategy 'rapid' is not available any more; "
                        "using 'source-based'"]


# ------------------------------------------------------------------ follow-ups


@pytest.mark.parametrize("k", ["0", "-3"])
def test_collection_search_k_below_one_is_a_usage_error(k: str) -> None:
    result = CliRunner().invoke(app, ["collection", "search", "notes", "argparse", "-k", k])
    assert result.exit_code == 2
    assert "-k" in result.output


@pytest.mark.parametrize("engine", ["semantic-scholar", "semantic_scholar", "s2"])
def test_semantic_scholar_sources_are_tagged_s2(engine: str) -> None:
    source = Source(number=4, title="Paper", url="https://api.example/p",
                    canonical_url="https://api.example/p", snippet="s", engine=engine)
    assert source_tag(normalise(source)) == "s2"
    assert hyperlink("A [4]", [source], "source-tagged") == (
        "A [[s2-4]](https://api.example/p)")


class _ClosingEngine(MemoryEngine):
    def __init__(self) -> None:
        super().__init__(PASSAGES)
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_quick_summary_closes_its_engines(make_settings: Any, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    engine = _ClosingEngine()
    built: list[Researcher] = []

    def build(settings: Any, on_event: Any = None, **_: Any) -> Researcher:
        built.append(Researcher(make_settings(iterations=1), _model(), [engine], on_event))
        return built[-1]

    monkeypatch.setattr(deepcite.runs.build, "build_researcher", build)
    result = deepcite.quick_summary(QUESTION, data_dir=str(tmp_path / "data"))
    assert result.sources and engine.closed == 1
    with pytest.raises(RuntimeError, match="closed"):
        built[0].run(QUESTION)
