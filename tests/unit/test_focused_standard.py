"""``focused-iteration-standard``: focused iteration's searches, then the full answer.

Both focused strategies must search alike (same queries, same saturation stop); only
the end differs: the short variant writes one or two sentences plus evidence, the
standard one the standard handler's full cited answer.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.outputs import ChatResult
from pydantic import PrivateAttr
from typer.testing import CliRunner

from deepcite.citations import cited_numbers
from deepcite.citations.handlers.base import SYSTEM_PROMPT
from deepcite.citations.handlers.forced import FORCED_PREFIX
from deepcite.cli import app
from deepcite.research import Researcher
from deepcite.research.strategies import load_strategy, resolve_name
from deepcite.research.strategies.focused_iteration import (
    ANSWER_SYSTEM,
    ANSWER_TOKENS,
    FocusedIterationStrategy,
)
from deepcite.research.strategies.focused_standard import FocusedIterationStandardStrategy
from deepcite.types import ResearchResult
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "How do I parse command line arguments?"
PASSAGES = [
    passage("argparse", "The argparse module parses command line arguments and options."),
    passage("getopt", "getopt is a C-style parser for command line options."),
    passage("sys.argv", "sys.argv is the list of command line arguments passed to a script."),
    passage("nargs", "Setting nargs to plus accepts one or more values for an option."),
    passage("metavar", "A metavar renames a value in usage messages."),
]
QUERIES = ["nargs values", "metavar usage", "argparse options"]
SHORT = "Use the argparse module [1]."
_SOURCE_TAG = re.compile(r'<source id="(\d+)" title="([^"]*)">')


def _long(prompt: str) -> str:
    """Two paragraphs, each sentence citing the source it comes from by its number."""
    ids = {title: number for number, title in _SOURCE_TAG.findall(prompt)}
    return (f"The argparse module parses command line arguments and options "
            f"[{ids['argparse']}]. Setting nargs to plus accepts one or more values for an "
            f"option [{ids['nargs']}].\n\n"
            f"For C-style code, getopt parses command line options [{ids['getopt']}]. "
            f"sys.argv is the list of command line arguments passed to a script "
            f"[{ids['sys.argv']}].")


class RecordingModel(ScriptedChatModel):
    """The scripted model, also keeping each call's system prompt and token cap."""

    max_tokens: int | None = None
    _asked: list[tuple[str, str, int | None]] = PrivateAttr(default_factory=list)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        result = super()._generate(messages, stop, run_manager, **kwargs)
        system = str(messages[0].content) if isinstance(messages[0], SystemMessage) else ""
        self._asked.append((self.calls[-1][0], system, kwargs.get("max_tokens")))
        return result

    def answer_call(self) -> tuple[str, str, int | None]:
        """(purpose, system prompt, max_tokens) of the one answer call."""
        (call,) = [c for c in self._asked if c[0] != "focused_queries"]
        return call


def _model() -> RecordingModel:
    return RecordingModel(script={"focused_queries": QUERIES,
                                  "focused_answer": [SHORT], "synthesis": [_long],
                                  "forced": [SHORT]})


def _run(make_settings: Any, strategy: str, model: ScriptedChatModel,
         engine: MemoryEngine, **overrides: Any) -> ResearchResult:
    settings = make_settings(**{"research.strategy": strategy, **overrides})
    return Researcher(settings, model, [engine]).run(QUESTION)


def _resolves(result: ResearchResult) -> bool:
    return set(cited_numbers(result.answer)) <= {s.number for s in result.sources}


def test_it_is_its_own_strategy_chosen_by_name_without_a_warning() -> None:
    for name in ("focused-iteration-standard", "focused_iteration_standard",
                 "Focused Iteration Standard"):
        warnings: list[str] = []
        assert resolve_name(name, warnings.append) == "focused-iteration-standard"
        assert warnings == []
        assert load_strategy(name) is FocusedIterationStandardStrategy
    assert load_strategy("focused-iteration") is FocusedIterationStrategy


def test_both_variants_search_alike_and_differ_in_the_answer(make_settings: Any) -> None:
    short_model, long_model = _model(), _model()
    short_engine, long_engine = MemoryEngine(PASSAGES), MemoryEngine(PASSAGES)
    short = _run(make_settings, "focused-iteration", short_model, short_engine)
    long = _run(make_settings, "focused-iteration-standard", long_model, long_engine)

    # The same loop: same queries per iteration, same stop once nothing new turns up.
    assert long_engine.queries == short_engine.queries
    assert long.questions_by_iteration == short.questions_by_iteration == {
        1: [QUESTION, "nargs values"], 2: ["metavar usage"], 3: ["argparse options"]}
    assert short_model.purposes() == ["focused_queries"] * 3 + ["focused_answer"]
    assert long_model.purposes() == ["focused_queries"] * 3 + ["synthesis"]
    assert [s.title for s in long.sources] == [s.title for s in short.sources]

    # Short: the fact prompt, capped, then the evidence.
    assert short_model.answer_call() == ("focused_answer", ANSWER_SYSTEM, ANSWER_TOKENS)
    answer, heading, evidence = short.answer.partition("\n\nEvidence:\n\n")
    assert heading and answer.startswith("Use the argparse module [")
    assert evidence.startswith("- \u201c")
    # Long: the standard handler's own prompt, uncapped, and no evidence block.
    purpose, system, cap = long_model.answer_call()
    assert (purpose, system, cap) == ("synthesis", SYSTEM_PROMPT, None)
    assert long.strategy == "focused-iteration-standard" and long.handler == "standard"
    assert "Evidence:" not in long.answer
    paragraphs = [p for p in long.answer.split("\n\n") if p.strip()]
    assert len(paragraphs) >= 2 and paragraphs[1].startswith("For C-style code")
    assert len(set(cited_numbers(long.answer))) == 4 and _resolves(long)


def test_forced_handler_keeps_its_own_shape(make_settings: Any) -> None:
    model = _model()
    result = _run(make_settings, "focused-iteration-standard", model,
                  MemoryEngine(PASSAGES), **{"citations.handler": "forced"})
    assert model.answer_call()[0] == "forced"
    assert result.handler == "forced" and result.answer.startswith(FORCED_PREFIX)


@pytest.mark.parametrize("strategy", ["focused-iteration", "focused-iteration-standard"])
def test_no_sources_means_no_answer_call(make_settings: Any, strategy: str) -> None:
    model = _model()
    result = _run(make_settings, strategy, model, MemoryEngine([]))
    assert result.sources == []
    assert set(model.purposes()) == {"focused_queries"}


def test_the_strategies_command_lists_it() -> None:
    shown = CliRunner().invoke(app, ["strategies"], env={"COLUMNS": "300"})
    assert shown.exit_code == 0, shown.output
    table = " ".join(shown.output.split())  # a cell may wrap, whatever the width
    assert "focused-iteration-standard" in table
    assert " ".join(FocusedIterationStandardStrategy.description.split()) in table
