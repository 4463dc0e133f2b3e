"""The tools the agent strategy hands to the model, and the accounting of its calls.

Every tool registers what it finds in the run's SourceNumbering *before* the model sees
it, and shows it fenced and labelled with its registry number, so the numbers the model
cites are the numbers the answer is checked against. Tools never raise for an expected
failure (unknown engine, dead page, cancelled run): they return a line the model can
read and act on, so one bad call does not end the run.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.tools import BaseTool, StructuredTool

from deepcite.collections.collection import ENGINE_NAME as LOCAL_ENGINE
from deepcite.research.context import RunContext
from deepcite.research.parallel import SearchOutcome, run_searches
from deepcite.search.fetch import fetch_page
from deepcite.security.fencing import fence
from deepcite.types import ModelCall, SearchResult, Source

CANCELLED = "cancelled"
BUDGET_SPENT = ("Error: this run's budget is spent; do not call any more tools, "
                "answer from the sources above.")
SNIPPET_CHARS = 1000
"""Characters of each search result shown to the model: enough to judge and cite it."""
PAGE_CHARS = 3000
"""Characters of a fetched page kept as its source: the model's context is finite."""


class AgentTools:
    """search, fetch and search_collection over one RunContext; remembers what it added.

    ``step`` is set by the strategy before each model turn, so searches are grouped by
    the turn that asked for them in ``queries_by_step`` (shown as iterations).
    """

    def __init__(self, context: RunContext) -> None:
        self._ctx = context
        self._lock = threading.Lock()
        self._sources: dict[int, Source] = {}
        self.step = 1
        self.queries_by_step: dict[int, list[str]] = {}

    @property
    def sources(self) -> list[Source]:
        """Sources this run's tools registered, in number order."""
        with self._lock:
            return [self._sources[n] for n in sorted(self._sources)]

    def tools(self) -> list[BaseTool]:
        """The LangChain tools, bound to this run."""
        return [
            StructuredTool.from_function(
                self.search, name="search",
                description="Search one engine by name (see the list in the instructions) "
                            "for a query; returns numbered sources to cite as [n]."),
            StructuredTool.from_function(
                self.fetch, name="fetch",
                description="Fetch the text of a web page by URL (e.g. a search result's) "
                            "to read more than its snippet; returns it as a numbered source."),
            StructuredTool.from_function(
                self.search_collection, name="search_collection",
                description="Search only the local document collection with this name; "
                            "returns numbered sources to cite as [n]."),
        ]

    def search(self, engine: str, query: str) -> str:
        """Search ``engine`` (by name) for ``query``."""
        ctx = self._ctx
        if ctx.cancel.cancelled:
            return CANCELLED
        known = {e.name.lower(): e for e in ctx.engines}
        chosen = known.get(engine.strip().lower())
        if chosen is None:
            names = ", ".join(e.name for e in ctx.engines) or "none"
            return f"Error: unknown engine {engine!r}. Available engines: {names}."
        results = self._run(chosen.name, query)
        if isinstance(results, str):
            return results
        return self._show(f"{chosen.name} results for {query!r}", results)

    def search_collection(self, name: str, query: str) -> str:
        """Search the local engine and keep only hits from collection ``name``."""
        if self._ctx.cancel.cancelled:
            return CANCELLED
        if not any(e.name == LOCAL_ENGINE for e in self._ctx.engines):
            return "Error: no local collection is being searched in this run."
        results = self._run(LOCAL_ENGINE, query)
        if isinstance(results, str):
            return results
        kept = [r for r in results if r.metadata.get("collection") == name]
        return self._show(f"collection {name!r} results for {query!r}", kept)

    def fetch(self, url: str) -> str:
        """Fetch ``url`` and register its (truncated) main text as a source."""
        ctx = self._ctx
        if ctx.cancel.cancelled:
            return CANCELLED
        if not ctx.budget_left():
            return BUDGET_SPENT
        page = fetch_page(url, ctx.settings)
        if not page.text or not page.text.strip():
            return f"Error: could not fetch {url}: {page.error or 'no text on the page'}."
        text = page.text.strip()[:PAGE_CHARS]
        title = next((s.title for s in self.sources if s.url == url), url)
        result = SearchResult(title=title, url=url, snippet=text, engine="fetch")
        source = self._register([result])[0]
        return fence(f"URL: {url}\n{text}", number=source.number, title=source.title)

    def _run(self, engine_name: str, query: str) -> list[SearchResult] | str:
        """One search through run_searches, so failures and counting match other strategies."""
        ctx = self._ctx
        if not ctx.budget_left(searches=1):
            return BUDGET_SPENT
        engines = [e for e in ctx.engines if e.name == engine_name]
        outcomes: list[SearchOutcome] = run_searches(
            [query], engines, max_results=ctx.settings.search.max_results, concurrency=1,
            cancel=ctx.cancel)
        ctx.budget.add_searches(ctx.record_searches(self.step, outcomes))
        with self._lock:
            self.queries_by_step.setdefault(self.step, []).append(query)
        outcome = outcomes[0]
        if outcome.skipped:
            return CANCELLED
        if outcome.error:
            return f"Error: {engine_name} failed: {outcome.error}"
        return outcome.results

    def _register(self, results: Sequence[SearchResult]) -> list[Source]:
        sources = self._ctx.register(results)
        with self._lock:
            self._sources.update((s.number, s) for s in sources)
        return sources

    def _show(self, heading: str, results: Sequence[SearchResult]) -> str:
        if not results:
            return f"No {heading}."
        sources = self._register(results)
        blocks = [fence(f"URL: {s.url}\n{' '.join(s.snippet.split())[:SNIPPET_CHARS]}",
                        number=s.number, title=s.title) for s in sources]
        return "\n\n".join([f"{heading} (cite as [n]):", *blocks])


class UsageCallback(BaseCallbackHandler):
    """Counts the agent's model calls, which LangGraph makes past ChatClient.complete.

    Each call goes to the client's ``record_call``, so run metrics and budgets include
    it and the ModelCall event is emitted. Tokens are the provider's, else estimated
    from characters as ChatClient does.
    """

    def __init__(self, context: RunContext, purpose: str = "agent") -> None:
        self._ctx = context
        self._purpose = purpose
        self._started: dict[UUID, tuple[float, int]] = {}
        self.calls = 0

    def on_chat_model_start(self, serialized: dict[str, Any],
                            messages: list[list[BaseMessage]], *, run_id: UUID,
                            **kwargs: Any) -> None:
        chars = sum(len(str(m.content)) for batch in messages for m in batch)
        self._started[run_id] = (time.perf_counter(), chars)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        started, prompt_chars = self._started.pop(run_id, (time.perf_counter(), 0))
        prompt = math.ceil(prompt_chars / 4)
        completion = 0
        generation = response.generations[0][0] if response.generations else None
        if generation is not None:
            completion = math.ceil(len(generation.text) / 4)
        if isinstance(generation, ChatGeneration) and isinstance(generation.message, AIMessage):
            usage = generation.message.usage_metadata
            if usage and (usage.get("input_tokens") or usage.get("output_tokens")):
                prompt, completion = usage["input_tokens"], usage["output_tokens"]
        self.calls += 1
        call = ModelCall(purpose=self._purpose, prompt_tokens=prompt,
                         completion_tokens=completion, seconds=time.perf_counter() - started)
        self._ctx.client.record_call(call)
