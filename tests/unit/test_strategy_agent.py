"""The agent strategy, driven through the Researcher by a scripted tool-calling model."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from pydantic import Field, PrivateAttr

from deepcite.citations import cited_numbers
from deepcite.citations.handlers import NO_SOURCES_ANSWER
from deepcite.errors import ModelError
from deepcite.research import Researcher
from deepcite.research.strategies.agent import (
    BUDGET_INTRO,
    MISSING_LANGGRAPH,
    NO_TOOL_CALLING,
    AgentStrategy,
)
from deepcite.research.strategies.agent_tools import PAGE_CHARS, AgentTools
from deepcite.search.fetch import FetchOutcome
from deepcite.types import Event, ModelCall, PhaseStarted, SearchResult, SourcesAdded
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "How do I parse command line arguments?"
PASSAGES = [
    passage("argparse", "The argparse module parses command line arguments and options."),
    passage("logging", "The logging module records events while software runs."),
]


def call(tool: str, ident: str = "c1", **args: str) -> AIMessage:
    """An AI turn that calls one tool."""
    return AIMessage(content="", tool_calls=[{"name": tool, "args": args, "id": ident,
                                              "type": "tool_call"}])


class ToolScriptModel(BaseChatModel):
    """Replies with scripted AIMessages in order (the last repeats); supports bind_tools."""

    replies: list[AIMessage] = Field(default_factory=list)
    bound: list[str] = Field(default_factory=list)
    _prompts: list[list[BaseMessage]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "tool-script"

    @property
    def prompts(self) -> list[list[BaseMessage]]:
        return self._prompts

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None,
                   **kwargs: Any) -> Runnable[Any, AIMessage]:
        self.bound = [tool.name for tool in tools]
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        self._prompts.append(list(messages))
        reply = self.replies[min(len(self._prompts), len(self.replies)) - 1]
        usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        message = reply.model_copy(update={"usage_metadata": usage})
        return ChatResult(generations=[ChatGeneration(message=message)])


def _run(make_settings: Any, model: BaseChatModel, engines: list[Any],
         events: list[Event] | None = None) -> Any:
    researcher = Researcher(make_settings(**{"research.strategy": "agent"}), model, engines,
                            events.append if events is not None else None)
    return researcher, researcher.run(QUESTION)


def _tool_texts(model: ToolScriptModel) -> list[str]:
    return [str(m.content) for m in model.prompts[-1] if isinstance(m, ToolMessage)]


def test_tools_register_sources_and_bogus_citations_are_removed(make_settings: Any) -> None:
    model = ToolScriptModel(replies=[
        call("search", engine="memory", query="argparse command line"),
        call("search", "c2", engine="bing", query="argparse"),
        AIMessage(content="Use the argparse module to parse command line arguments [1]. "
                          "It is great [9]."),
    ])
    events: list[Event] = []
    _, result = _run(make_settings, model, [MemoryEngine(PASSAGES)], events)

    assert model.bound == ["search", "fetch", "search_collection"]
    first, unknown = _tool_texts(model)
    assert '<source id="1" title="argparse">' in first
    assert "unknown engine 'bing'" in unknown and "Available engines: memory" in unknown
    assert "[1]" in result.answer and "[9]" not in result.answer
    assert set(cited_numbers(result.answer)) <= {s.number for s in result.sources}
    assert result.sources[0].title == "argparse"
    assert result.metrics.searches == 1
    assert result.questions_by_iteration == {1: ["argparse command line"]}
    assert any("Removed 1 citation" in w.message for w in result.warnings)
    assert any(isinstance(e, PhaseStarted) and e.phase == "agent" for e in events)
    assert any(isinstance(e, SourcesAdded) for e in events)
    agent_calls = [e for e in events if isinstance(e, ModelCall) and e.purpose == "agent"]
    assert len(agent_calls) == 3 and agent_calls[0].prompt_tokens == 10


def test_fetch_registers_the_page_truncated(make_settings: Any,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    url = "https://docs.example/argparse"
    monkeypatch.setattr("deepcite.research.strategies.agent_tools.fetch_page",
                        lambda u, s: FetchOutcome(u, "argparse parses arguments. " * 500))
    model = ToolScriptModel(replies=[call("fetch", url=url),
                                     AIMessage(content="argparse parses arguments [1].")])
    _, result = _run(make_settings, model, [MemoryEngine(PASSAGES)])

    assert [s.url for s in result.sources] == [url]
    assert len(result.sources[0].snippet) <= PAGE_CHARS
    assert _tool_texts(model)[0].startswith('<source id="1"')
    assert "[1]" in result.answer


def test_search_collection_keeps_only_that_collection(make_settings: Any) -> None:
    hits = [SearchResult(title=f"{c} notes", url=f"file:///{c}.md", engine="local",
                         snippet="argparse parses command line arguments",
                         metadata={"collection": c}) for c in ("work", "home")]
    model = ToolScriptModel(replies=[call("search_collection", name="home", query="argparse"),
                                     AIMessage(content="argparse parses arguments [1].")])
    _, result = _run(make_settings, model, [MemoryEngine(hits, name="local")])

    assert [s.title for s in result.sources] == ["home notes"]


def test_step_budget_stops_a_looping_model(make_settings: Any) -> None:
    model = ToolScriptModel(replies=[call("search", engine="memory", query="argparse")])
    _, result = _run(make_settings, model, [MemoryEngine(PASSAGES)])

    assert len(model.prompts) == AgentStrategy.MAX_STEPS
    assert "last turn" in str(model.prompts[-1][-1].content)
    assert result.answer.startswith(BUDGET_INTRO)
    assert any("all 8 steps" in w.message for w in result.warnings)
    assert set(cited_numbers(result.answer)) <= {s.number for s in result.sources}


def test_cancellation_stops_after_the_running_tool(make_settings: Any) -> None:
    class CancellingEngine(MemoryEngine):
        researcher: Researcher | None = None

        def search(self, query: str, *, max_results: int) -> list[SearchResult]:
            assert self.researcher is not None
            self.researcher.cancel()
            return super().search(query, max_results=max_results)

    engine = CancellingEngine(PASSAGES)
    model = ToolScriptModel(replies=[call("search", engine="memory", query="argparse")])
    researcher = Researcher(make_settings(**{"research.strategy": "agent"}), model, [engine])
    engine.researcher = researcher
    result = researcher.run(QUESTION)

    assert result.cancelled and len(model.prompts) == 1
    assert [s.title for s in result.sources] == ["argparse"]


def test_tools_answer_cancelled_once_the_run_is_cancelled(make_settings: Any) -> None:
    engine = MemoryEngine(PASSAGES)
    researcher = Researcher(make_settings(), ToolScriptModel(), [engine])
    researcher.cancel()
    from deepcite.research.context import RunContext

    ctx = RunContext(researcher.settings, researcher.client, [engine], researcher.numbering,
                     researcher.cancel_token, lambda e: None)
    tools = AgentTools(ctx)
    assert tools.search("memory", "argparse") == "cancelled"
    assert tools.fetch("https://docs.example/x") == "cancelled"
    assert tools.search_collection("home", "argparse") == "cancelled"
    assert engine.queries == []


def test_no_sources_means_no_answer_from_memory(make_settings: Any) -> None:
    model = ToolScriptModel(replies=[AIMessage(content="Use argparse [1].")])
    _, result = _run(make_settings, model, [MemoryEngine(PASSAGES)])
    assert result.answer == NO_SOURCES_ANSWER and result.sources == []


def test_model_without_tool_calling_is_refused(make_settings: Any) -> None:
    with pytest.raises(ModelError) as info:
        _run(make_settings, ScriptedChatModel(), [MemoryEngine(PASSAGES)])
    assert str(info.value) == NO_TOOL_CALLING


def test_bind_tools_not_implemented_is_refused(make_settings: Any) -> None:
    class NoTools(ToolScriptModel):
        def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None,
                       **kwargs: Any) -> Runnable[Any, AIMessage]:
            raise NotImplementedError

    with pytest.raises(ModelError, match="tool calling"):
        _run(make_settings, NoTools(), [MemoryEngine(PASSAGES)])


def test_missing_langgraph_says_how_to_install(make_settings: Any,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langgraph.graph", None)
    with pytest.raises(ModelError) as info:
        _run(make_settings, ToolScriptModel(), [MemoryEngine(PASSAGES)])
    assert str(info.value) == MISSING_LANGGRAPH
