"""The run budget: each ``research.max_*`` limit, shared by runs, counted from threads."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from deepcite.config import ResearchSettings
from deepcite.llm import Usage
from deepcite.research import Researcher
from deepcite.research.brief import RunBrief
from deepcite.research.run_budget import Budget, Remaining
from deepcite.types import Event, RunWarning
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "How do I parse command line arguments?"
PASSAGES = [
    passage("argparse", "The argparse module parses command line arguments and options."),
    passage("sys.argv", "sys.argv is the list of command line arguments passed to a script."),
]


class _Meter:
    """A client's running usage totals and a clock, both moved by hand."""

    def __init__(self) -> None:
        self.totals = Usage(calls=5, prompt_tokens=1000, completion_tokens=100)
        self.now = 100.0

    def usage(self) -> Usage:
        return self.totals

    def clock(self) -> float:
        return self.now

    def spend(self, calls: int = 0, tokens: int = 0) -> None:
        t = self.totals
        self.totals = Usage(calls=t.calls + calls, prompt_tokens=t.prompt_tokens + tokens,
                            completion_tokens=t.completion_tokens, seconds=t.seconds)


def _budget(meter: _Meter, **limits: Any) -> Budget:
    return Budget(ResearchSettings(**limits), meter.usage, clock=meter.clock)


def test_without_limits_nothing_is_exhausted() -> None:
    meter = _Meter()
    budget = _budget(meter)
    meter.spend(calls=1000, tokens=10**6)
    meter.now += 10**6
    budget.add_searches(1000)
    assert budget.exhausted(model_calls=50, searches=50) is None
    assert budget.remaining() == Remaining(model_calls=None, tokens=None, seconds=None,
                                           searches=None)
    assert budget.search_allowance(7, per_query=3) == 7


def test_usage_and_time_count_from_the_budgets_start() -> None:
    meter = _Meter()
    budget = _budget(meter, max_model_calls=2, max_tokens=500, max_seconds=10)
    assert budget.usage_start == meter.totals
    assert budget.used() == Usage()  # the client's earlier calls are not this budget's
    assert budget.elapsed() == 0
    meter.spend(calls=1, tokens=200)
    meter.now += 4
    assert budget.used().calls == 1 and budget.used().total_tokens == 200
    assert budget.remaining() == Remaining(model_calls=1, tokens=300, seconds=6.0,
                                           searches=None)
    assert budget.exhausted() is None


def test_the_time_limit() -> None:
    meter = _Meter()
    budget = _budget(meter, max_seconds=2.5)
    meter.now += 2.4
    assert budget.exhausted() is None
    meter.now += 0.1
    assert budget.exhausted() == "time budget of 2.5 s reached"
    assert budget.remaining().seconds == 0.0


def test_the_model_call_limit_counts_planned_calls() -> None:
    meter = _Meter()
    budget = _budget(meter, max_model_calls=3)
    meter.spend(calls=2)
    assert budget.exhausted(model_calls=1) is None
    assert budget.exhausted(model_calls=2) == "model-call budget of 3 reached"
    meter.spend(calls=1)
    assert budget.exhausted() is None  # the last call was allowed: nothing more planned
    assert budget.exhausted(model_calls=1) == "model-call budget of 3 reached"


def test_the_token_limit() -> None:
    meter = _Meter()
    budget = _budget(meter, max_tokens=300)
    meter.spend(tokens=299)
    assert budget.exhausted(model_calls=1) is None
    meter.spend(tokens=1)
    assert budget.exhausted() == "token budget of 300 reached"
    assert budget.remaining().tokens == 0


def test_the_search_limit_counts_planned_searches() -> None:
    meter = _Meter()
    budget = _budget(meter, max_searches=5)
    budget.add_searches(3)
    assert budget.searches == 3
    assert budget.exhausted(searches=2) is None
    assert budget.exhausted(searches=3) == "search budget of 5 reached"
    assert budget.search_allowance(4) == 2
    assert budget.search_allowance(4, per_query=2) == 1  # two engines each query
    assert budget.search_allowance(4, per_query=0) == 2  # no engine still counts one
    budget.add_searches(3)  # a last parallel batch may go past the limit
    assert budget.remaining().searches == 0 and budget.search_allowance(4) == 0
    assert budget.exhausted() == "search budget of 5 reached"


def test_limits_are_reported_time_first() -> None:
    meter = _Meter()
    budget = _budget(meter, max_seconds=1, max_model_calls=1, max_tokens=100,
                     max_searches=1)
    meter.spend(calls=1, tokens=100)
    budget.add_searches(1)
    meter.now += 1
    assert budget.exhausted(model_calls=1, searches=1) == "time budget of 1 s reached"
    meter.now -= 1
    assert budget.exhausted(model_calls=1, searches=1) == "model-call budget of 1 reached"
    assert budget.exhausted() == "token budget of 100 reached"


def test_searches_cannot_be_taken_back() -> None:
    with pytest.raises(ValueError):
        _budget(_Meter()).add_searches(-1)


def test_searches_added_from_two_threads_all_count() -> None:
    budget = _budget(_Meter(), max_searches=100_000)
    start = threading.Barrier(2)

    def add() -> None:
        start.wait()
        for _ in range(20_000):
            budget.add_searches()

    threads = [threading.Thread(target=add) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert budget.searches == 40_000
    assert budget.remaining().searches == 60_000


# -- runs ---------------------------------------------------------------------------------


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(script={
        "questions": [""],
        "synthesis": ["The argparse module parses command line arguments [1]."],
    })


def _researcher(make_settings: Any, events: list[Event], engine: MemoryEngine,
                **overrides: Any) -> Researcher:
    settings = make_settings(**{"iterations": 1, "questions_per_iteration": 0,
                                "citations.verify": False, **overrides})
    return Researcher(settings, _model(), [engine], events.append)


def _budget_warnings(events: list[Event]) -> list[str]:
    return [e.message for e in events if isinstance(e, RunWarning) and e.code == "budget"]


def test_a_shared_budget_holds_across_two_runs(make_settings: Any) -> None:
    events: list[Event] = []
    engine = MemoryEngine(PASSAGES)
    with _researcher(make_settings, events, engine, max_searches=1) as researcher:
        shared = Budget(researcher.settings.research, lambda: researcher.client.usage)
        first = researcher.run(QUESTION, brief=RunBrief(budget=shared))
        assert first.metrics.searches == 1 and shared.searches == 1
        assert not _budget_warnings(events)
        second = researcher.run(QUESTION, brief=RunBrief(budget=shared))
        assert second.metrics.searches == 0  # the first run spent the shared budget
        assert shared.searches == 1 and len(engine.queries) == 1
        assert _budget_warnings(events) == [
            "Stopped early: search budget of 1 reached; answering from what was found"]
        assert shared.used().calls == first.metrics.model_calls + second.metrics.model_calls


def test_a_quick_run_makes_its_own_budget(make_settings: Any) -> None:
    events: list[Event] = []
    engine = MemoryEngine(PASSAGES)
    with _researcher(make_settings, events, engine, max_searches=1) as researcher:
        first = researcher.run(QUESTION)
        second = researcher.run(QUESTION)
    assert first.metrics.searches == second.metrics.searches == 1
    assert len(engine.queries) == 2 and not _budget_warnings(events)
