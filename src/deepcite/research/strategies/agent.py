"""The agent strategy: the model decides what to search and read, with tools, in a loop.

A small LangGraph graph alternates a model turn and a tool turn until the model answers
without calling a tool, the step budget is spent or the run is cancelled. The tools
register every hit in the SourceNumbering before the model sees it (see agent_tools), so
the model cites real numbers. The run ends in the shared citation step: with the
standard handler the agent's final text is checked as the answer (every number not
registered in this run is removed); precision and forced answer in their own shape from
the sources the agent's tools registered, with one more model call. Only models that
can call tools qualify: the bundled one cannot, and is refused before anything starts.

The relevance filter does not apply: the agent's sources are numbered and shown to the
model as it finds them, so dropping any afterwards would orphan its citations; the
model judges relevance itself by what it cites. Run budgets hold: searches stop when
the search budget is spent, and the last turn comes early when the model-call, token
or time budget leaves one call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig

from deepcite.errors import ModelError, mapped_errors
from deepcite.llm.parsing import content_text, strip_thinking
from deepcite.research.context import Plan, RunContext, StrategyOutcome
from deepcite.research.strategies.agent_tools import AgentTools, UsageCallback
from deepcite.research.strategies.base import Strategy
from deepcite.security.fencing import UNTRUSTED_NOTICE
from deepcite.text.frames import frame, frame_for
from deepcite.types import Finding

MISSING_LANGGRAPH = "the agent strategy needs langgraph - run `pip install deepcite[agent]`"
NO_TOOL_CALLING = (
    "The agent strategy needs a model with tool calling (e.g. --provider ollama --model "
    "llama3.1, or openai/anthropic); the bundled model has none - use --strategy source-based"
)
BUDGET_INTRO = frame("agent_budget")  # English; a run gets its question's language
LAST_STEP_NUDGE = (
    "This is your last turn: do not call any tool. Answer the question now from the "
    "sources above, citing them as [n]."
)


def _system_prompt(engine_names: list[str], max_steps: int) -> str:
    return (
        "You are a careful research assistant with tools. Before answering, search: use "
        f"`search` with one of these engines: {', '.join(engine_names) or 'none'}; "
        "`search_collection` to search one named local document collection; `fetch` to "
        "read a page found by a search. Every tool result is a numbered <source id=\"n\">. "
        f"You have at most {max_steps} turns. When the sources suffice, stop calling tools "
        "and answer in one or two short paragraphs of plain prose, ending every sentence "
        "with the numbers of the sources it comes from, like [1] or [2][3]. Cite only "
        "numbers of sources you were shown. " + UNTRUSTED_NOTICE
    )


def _require_langgraph() -> None:
    """Fail with the install hint, not an ImportError, when the optional extra is missing."""
    try:
        import langgraph.graph
        import langgraph.prebuilt  # noqa: F401
    except ImportError as exc:
        raise ModelError(MISSING_LANGGRAPH) from exc


def _bind_tools(context: RunContext, tools: AgentTools) -> Runnable[Any, BaseMessage]:
    """The run's model with the tools bound, or ModelError for a model without tool calling.

    A class that does not override ``bind_tools`` inherits the base one, which raises
    NotImplementedError; checking the override first refuses before any search is spent.
    """
    model = context.client.model
    if not isinstance(model, BaseChatModel) or type(model).bind_tools is BaseChatModel.bind_tools:
        raise ModelError(NO_TOOL_CALLING)
    try:
        return model.bind_tools(tools.tools())
    except NotImplementedError as exc:
        raise ModelError(NO_TOOL_CALLING) from exc


class AgentStrategy(Strategy):
    """A LangGraph tool-calling agent: search, fetch, search_collection, then a cited answer."""

    name = "agent"
    description = "A tool-calling agent picks its own searches and pages, then cites them."

    MAX_STEPS = 8
    """Model turns per run; each may be followed by one round of tool calls."""

    def __init__(self, context: RunContext) -> None:
        _require_langgraph()
        super().__init__(context)
        self._tools = AgentTools(context)
        self._bound = _bind_tools(context, self._tools)
        self.by_iteration = self._tools.queries_by_step
        self._steps = 0

    def plan(self) -> Plan:
        return Plan(steps=self.MAX_STEPS + 1, iterations=self.MAX_STEPS)

    def run(self, question: str) -> StrategyOutcome:
        ctx = self._ctx
        tools = self._tools
        self._steps = 0
        messages, exhausted = self._loop(question, tools)
        sources = tools.sources
        by_step = dict(tools.queries_by_step)
        findings = [Finding(phase=f"agent step {step}", question=question,
                            content="\n".join(queries)) for step, queries in by_step.items()]
        last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        text = strip_thinking(content_text(last.content)).strip() if last else ""
        if exhausted and not ctx.cancel.cancelled:
            ctx.warn("agent_budget", f"The agent used all {self.MAX_STEPS} steps without "
                     "finishing; answered with what it had")
        if sources and not text and self._step.handler.follows_strategy \
                and not ctx.cancel.cancelled:
            return self._step.quoted(question, sources, by_step, findings,
                                     intro=frame_for("agent_budget", question))
        # Without sources the handler's gate answers: whatever the model wrote came
        # from its memory, and is never passed off as research.
        return self._step.answer(question, sources, by_step, findings, draft=text or None)

    def _loop(self, question: str, tools: AgentTools) -> tuple[list[BaseMessage], bool]:
        """Run the graph; returns the final messages and whether the step budget ran out.

        Streaming the state (rather than ``invoke``) keeps the last state if LangGraph's
        own recursion limit trips, so sources and text found so far are not lost.
        """
        from langgraph.errors import GraphRecursionError
        from langgraph.graph import END, START, MessagesState, StateGraph
        from langgraph.prebuilt import ToolNode

        ctx = self._ctx
        usage = UsageCallback(ctx)
        system = SystemMessage(content=_system_prompt([e.name for e in ctx.engines],
                                                      self.MAX_STEPS))

        # Nodes annotate ``Mapping``: LangGraph resolves hints at runtime, and the locally
        # imported MessagesState is not in this module's globals (langgraph is optional).
        def agent(state: Mapping[str, Any]) -> dict[str, list[BaseMessage]]:
            self._steps += 1
            tools.step = self._steps
            ctx.phase("agent", self._steps)
            prompt: list[BaseMessage] = [system, *state["messages"]]
            # The step budget, or the run's own budget (one more call than this allowed?).
            last_turn = self._steps >= self.MAX_STEPS or not ctx.budget_left(model_calls=2)
            if last_turn:
                self._steps = self.MAX_STEPS
                prompt.append(HumanMessage(content=LAST_STEP_NUDGE))
            with mapped_errors("model", lambda cause: f"agent model call failed: {cause}"):
                reply = self._bound.invoke(prompt, config={
                    "tags": ["deepcite:agent"], "run_name": "agent", "callbacks": [usage]})
            return {"messages": [reply]}

        def after_agent(state: Mapping[str, Any]) -> str:
            last = state["messages"][-1]
            if ctx.cancel.cancelled or self._steps >= self.MAX_STEPS:
                return END
            return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

        def after_tools(state: Mapping[str, Any]) -> str:
            return END if ctx.cancel.cancelled else "agent"

        graph = StateGraph(MessagesState)
        graph.add_node("agent", agent, input_schema=MessagesState)
        graph.add_node("tools", ToolNode(tools.tools()))
        graph.add_edge(START, "agent")
        graph.add_conditional_edges("agent", after_agent, ["tools", END])
        graph.add_conditional_edges("tools", after_tools, ["agent", END])
        compiled = graph.compile()
        messages: list[BaseMessage] = [HumanMessage(content=question)]
        limit = RunnableConfig(recursion_limit=2 * self.MAX_STEPS + 2)
        try:
            for state in compiled.stream(MessagesState(messages=[HumanMessage(content=question)]),
                                         limit, stream_mode="values"):
                messages = list(state["messages"])
        except GraphRecursionError:
            return messages, True
        last = messages[-1]
        exhausted = isinstance(last, AIMessage) and bool(last.tool_calls) \
            and self._steps >= self.MAX_STEPS
        return messages, exhausted
