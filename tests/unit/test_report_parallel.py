"""A detailed report researches its parts ahead, several at a time, and writes them in
order: the same report and the same numbers as one part after another, with budgets
and cancel holding across the parts in flight."""

from __future__ import annotations

import threading
import time
from typing import Any, ClassVar

from pydantic import Field

from deepcite.research import Researcher
from deepcite.research.report.builder import DetailedReport
from deepcite.types import ResearchResult, SearchResult
from tests.fakes import MemoryEngine, ScriptedChatModel
from tests.unit.test_detailed_report import PASSAGES, QUESTION, _headings, _model


class _SlowEngine:
    """A memory engine whose searches take a while; records how many overlap."""

    name = "memory"

    def __init__(self, delay: float = 0.05) -> None:
        self._inner = MemoryEngine(PASSAGES)
        self._delay = delay
        self._lock = threading.Lock()
        self._active = 0
        self.most_at_once = 0
        self.queries: list[str] = []
        self.after_cancel = 0
        self.report: DetailedReport | None = None

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        with self._lock:
            self._active += 1
            self.most_at_once = max(self.most_at_once, self._active)
            self.queries.append(query)
            if self.report is not None and self.report.cancelled:
                self.after_cancel += 1
        try:
            time.sleep(self._delay)
            return self._inner.search(query, max_results=max_results)
        finally:
            with self._lock:
                self._active -= 1


def _run(make_settings: Any, parallel: int, engine: Any = None,
         model: ScriptedChatModel | None = None, **overrides: Any
         ) -> tuple[ResearchResult, Any]:
    engine = engine or _SlowEngine()
    settings = make_settings(**{"iterations": 2, "questions_per_iteration": 0,
                                "citations.verify": False, "max_sources": 3,
                                "search.concurrency": 1,  # one search at a time per run
                                "report.parallel_parts": parallel, **overrides})
    with Researcher(settings, model or _model(), [engine]) as researcher:
        builder = DetailedReport(researcher)
        if isinstance(engine, _SlowEngine):
            engine.report = builder
        return builder.run(QUESTION), engine


def test_parts_researched_ahead_give_the_same_report_and_numbers(make_settings: Any) -> None:
    one, alone = _run(make_settings, 1)
    many, together = _run(make_settings, 4)
    assert alone.most_at_once == 1
    assert together.most_at_once > 1  # parts were searched at the same time
    assert many.answer == one.answer
    assert [(s.number, s.url) for s in many.sources] == [(s.number, s.url) for s in one.sources]
    assert many.metrics.searches == one.metrics.searches


def test_the_same_parallel_report_twice_gives_the_same_numbers(make_settings: Any) -> None:
    first, _ = _run(make_settings, 4)
    second, _ = _run(make_settings, 4)
    assert [(s.number, s.url) for s in first.sources] == \
        [(s.number, s.url) for s in second.sources]
    assert first.answer == second.answer


def test_the_search_budget_holds_across_parts_in_flight(make_settings: Any) -> None:
    result, engine = _run(make_settings, 4, **{"research.max_searches": 5})
    assert len(engine.queries) <= 5
    assert any(w.code == "budget" for w in result.warnings)


def test_cancelling_while_a_part_is_written_stops_the_parts_ahead(make_settings: Any) -> None:
    engine = _SlowEngine(delay=0.2)
    holder: dict[str, DetailedReport] = {}

    def second_part(prompt: str) -> str:
        holder["report"].cancel()
        return "Argparse declares options [1]."

    model = _model(section=["Getopt parses C-style options [1].", second_part])
    settings = make_settings(**{"iterations": 2, "questions_per_iteration": 0,
                                "citations.verify": False, "max_sources": 3,
                                "report.parallel_parts": 4})
    with Researcher(settings, model, [engine]) as researcher:
        builder = DetailedReport(researcher)
        holder["report"] = builder
        engine.report = builder
        result = builder.run(QUESTION)
    assert result.cancelled
    headings = _headings(result)
    assert "1.1 Argparse" in headings
    assert "3. Third-party packages" not in headings
    time.sleep(0.5)  # the parts in flight have had time to stop
    assert engine.after_cancel <= 4  # searches already under way, none started later


class _CachingModel(ScriptedChatModel):
    """Says, as OpenAI and Anthropic do, that part of each prompt came from its cache;
    keeps each call's system prompt."""

    systems: list[tuple[str, str]] = Field(default_factory=list)

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> Any:
        result = super()._generate(messages, stop, run_manager, **kwargs)
        self.systems.append((self.calls[-1][0], str(messages[0].content)))
        message = result.generations[0].message
        message.usage_metadata = {**message.usage_metadata,
                                  "input_token_details": {"cache_read": 7}}
        return result


def test_every_part_shares_one_system_prompt_and_cache_hits_are_reported(
        make_settings: Any) -> None:
    model = _CachingModel(script=dict(_model().script), systems=[])
    result, _ = _run(make_settings, 3, model=model)
    sections = {system for purpose, system in model.systems if purpose == "section"}
    assert len(sections) == 1  # a stable prefix the provider can cache
    assert result.metrics.cached_tokens == 7 * result.metrics.model_calls


class _OneAtATime(ScriptedChatModel):
    """Answers one call at a time, as the bundled in-process model does."""

    answers_one_call_at_a_time: ClassVar[bool] = True


def test_a_model_answering_one_call_at_a_time_gets_its_calls_in_order(
        make_settings: Any) -> None:
    def later(prompt: str) -> str:
        return "Writing queries anyway."

    model = _OneAtATime(script={**_model().script, "questions": [later]})
    first, _ = _run(make_settings, 4, model=model, query_planning="model")
    purposes = model.purposes()
    assert purposes.index("outline") > purposes.index("synthesis")  # not asked alongside
    again = _OneAtATime(script={**_model().script, "questions": [later]})
    alone, _ = _run(make_settings, 1, model=again, query_planning="model")
    assert again.purposes() == purposes  # the same calls in the same order, one by one
    assert first.answer == alone.answer
