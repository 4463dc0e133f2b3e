"""One Researcher, many runs: per-run cancel, metrics and budgets; shared numbering;
engines closed at the end; the worker thread helper both runners use."""

from __future__ import annotations

import logging
import threading
import traceback
from typing import Any

import pytest

from deepcite.citations import cited_numbers
from deepcite.research import Researcher
from deepcite.research.threads import Worker, run_cancellable
from deepcite.search.circuit_breaker import GuardedEngine
from deepcite.types import Event, Finished, ResearchResult
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

ARGPARSE = "How do I parse command line arguments?"
LOGGING = "What does the logging module record?"
PASSAGES = [
    passage("argparse", "The argparse module parses command line arguments and options."),
    passage("sys.argv", "sys.argv is the list of command line arguments passed to a script."),
    passage("logging", "The logging module records events while software runs."),
    passage("handlers", "Logging handlers send the recorded events to files or streams."),
]


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(script={
        "questions": [""],
        "synthesis": [lambda prompt: _cite_first(prompt)],
    })


def _cite_first(prompt: str) -> str:
    """An answer citing the first source the prompt shows, whatever its number."""
    number = prompt.split('<source id="', 1)[1].split('"', 1)[0]
    return f"The sources answer this question directly [{number}]."


def _researcher(make_settings: Any, model: ScriptedChatModel | None = None,
                engines: list[Any] | None = None, events: list[Event] | None = None,
                **overrides: Any) -> Researcher:
    settings = make_settings(**{"iterations": 1, "citations.verify": False,
                                "query_planning": "model", **overrides})
    return Researcher(settings, model or _model(),
                      engines if engines is not None else [MemoryEngine(PASSAGES)],
                      events.append if events is not None else None)


def _resolves(result: ResearchResult) -> bool:
    return set(cited_numbers(result.answer)) <= {s.number for s in result.sources}


# -- per-run state ----------------------------------------------------------------------


def test_each_run_reports_its_own_metrics(make_settings: Any) -> None:
    model = _model()
    researcher = _researcher(make_settings, model)
    first = researcher.run(ARGPARSE)
    calls_after_first = len(model.calls)
    second = researcher.run(LOGGING)
    assert first.metrics.model_calls == calls_after_first
    assert second.metrics.model_calls == len(model.calls) - calls_after_first
    assert second.metrics.searches == first.metrics.searches == 1
    # The fake model reports a quarter of each prompt's length as its tokens.
    assert second.metrics.prompt_tokens == sum(
        len(user) // 4 for _, user in model.calls[calls_after_first:])


def test_a_cancel_in_one_run_does_not_cancel_the_next(make_settings: Any) -> None:
    engine = MemoryEngine(PASSAGES)
    researcher = _researcher(make_settings, engines=[engine])
    original = engine.search

    def cancel_once(query: str, *, max_results: int) -> Any:
        engine.search = original  # type: ignore[method-assign]
        researcher.cancel()
        return original(query, max_results=max_results)

    engine.search = cancel_once  # type: ignore[method-assign]
    first = researcher.run(ARGPARSE)
    second = researcher.run(LOGGING)
    assert first.cancelled and not second.cancelled
    assert "cancelled" not in second.answer and second.error is None
    assert _resolves(second) and cited_numbers(second.answer)


def test_cancel_between_runs_cancels_the_next_run_only(make_settings: Any) -> None:
    model = _model()
    researcher = _researcher(make_settings, model)
    researcher.cancel()
    first = researcher.run(ARGPARSE)
    second = researcher.run(LOGGING)
    assert first.cancelled and first.sources == []
    assert not second.cancelled and second.sources
    assert model.purposes() == ["questions", "synthesis"]  # all of them the second run's


def test_source_numbers_continue_across_runs(make_settings: Any) -> None:
    researcher = _researcher(make_settings)
    first = researcher.run(ARGPARSE)
    second = researcher.run(LOGGING)
    third = researcher.run(ARGPARSE)
    first_numbers = {s.number: s.url for s in first.sources}
    new = [s for s in second.sources if s.number not in first_numbers]
    assert new and min(s.number for s in new) > max(first_numbers)
    assert {s.number: s.url for s in third.sources} == first_numbers  # found again
    for result in (first, second, third):
        assert _resolves(result)
        for source in result.sources:
            known = researcher.numbering.get(source.number)
            assert known is not None and known.url == source.url


def _fail(prompt: str) -> str:
    raise ValueError("provider fell over")


def test_a_run_quotes_only_its_own_sources_when_it_fails(make_settings: Any) -> None:
    model = _model()
    researcher = _researcher(make_settings, model)
    first = researcher.run(ARGPARSE)
    assert "sys.argv" in {s.title for s in first.sources}
    model.script["synthesis"] = [_fail]
    failed = researcher.run(LOGGING)
    assert failed.error is not None and "provider fell over" in failed.error
    titles = {s.title for s in failed.sources}
    assert "logging" in titles and "sys.argv" not in titles  # run 1's, not found again
    assert cited_numbers(failed.answer) and _resolves(failed)


def test_budgets_of_a_run_are_not_spent_by_earlier_runs(make_settings: Any) -> None:
    model = _model()
    researcher = _researcher(make_settings, model, max_model_calls=2)
    first = researcher.run(ARGPARSE)
    second = researcher.run(LOGGING)
    assert first.metrics.model_calls == second.metrics.model_calls == 2
    assert not any("budget" in w.message for w in first.warnings + second.warnings)
    assert model.purposes() == ["questions", "synthesis"] * 2


def test_each_run_ends_with_its_own_finished_event(make_settings: Any) -> None:
    events: list[Event] = []
    researcher = _researcher(make_settings, events=events)
    researcher.run(ARGPARSE)
    researcher.run(LOGGING)
    assert sum(isinstance(e, Finished) for e in events) == 2


def test_a_second_run_while_one_is_in_progress_is_refused(make_settings: Any) -> None:
    engine = MemoryEngine(PASSAGES)
    researcher = _researcher(make_settings, engines=[engine])
    original = engine.search
    refused: list[str] = []

    def nested(query: str, *, max_results: int) -> Any:
        try:
            researcher.run(LOGGING)
        except RuntimeError as exc:
            refused.append(str(exc))
        return original(query, max_results=max_results)

    engine.search = nested  # type: ignore[method-assign]
    result = researcher.run(ARGPARSE)
    assert refused and "one question at a time" in refused[0]
    assert result.error is None and result.sources


# -- closing ----------------------------------------------------------------------------


class _ClosingEngine(MemoryEngine):
    def __init__(self, *args: Any, fail: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.closed = 0
        self._fail = fail

    def close(self) -> None:
        self.closed += 1
        if self._fail:
            raise OSError("socket already gone")


def test_researcher_as_context_manager_closes_its_engines(make_settings: Any) -> None:
    plain = _ClosingEngine(PASSAGES)
    guarded = _ClosingEngine(PASSAGES, name="guarded")
    without_close = MemoryEngine(PASSAGES, name="plain")
    with _researcher(make_settings, engines=[plain, GuardedEngine(guarded),
                                             without_close]) as researcher:
        assert researcher.run(ARGPARSE).sources
        assert plain.closed == guarded.closed == 0
    assert plain.closed == guarded.closed == 1
    researcher.close()  # closing twice closes nothing twice
    assert plain.closed == 1
    with pytest.raises(RuntimeError, match="closed"):
        researcher.run(ARGPARSE)


def test_one_engine_failing_to_close_does_not_keep_others_open(
        make_settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    broken = _ClosingEngine(PASSAGES, name="broken", fail=True)
    fine = _ClosingEngine(PASSAGES, name="fine")
    with caplog.at_level(logging.WARNING, logger="deepcite.research.researcher"):
        _researcher(make_settings, engines=[broken, fine]).close()
    assert broken.closed == fine.closed == 1
    assert any("broken" in r.getMessage() for r in caplog.records)


# -- the worker helper ------------------------------------------------------------------


def _explode() -> int:
    raise ValueError("deep inside the worker")


def test_worker_raises_the_error_in_the_caller_with_its_traceback() -> None:
    worker = Worker(_explode, name="test-worker").start()
    assert worker.wait(10)
    with pytest.raises(ValueError, match="deep inside") as info:
        worker.result()
    frames = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert "_explode" in frames


def test_worker_returns_the_value_and_refuses_a_result_before_it_is_done() -> None:
    release = threading.Event()
    worker = Worker(lambda: release.wait(10) and 42, name="test-worker").start()
    assert not worker.wait(0.01) and not worker.done
    with pytest.raises(RuntimeError, match="not finished"):
        worker.result()
    release.set()
    assert worker.wait(10) and worker.result() == 42


def test_run_cancellable_gives_up_on_a_hung_step_after_a_cancel() -> None:
    release = threading.Event()
    cancel = threading.Event()
    cancel.set()
    try:
        finished, value = run_cancellable(lambda: release.wait(30), cancelled=cancel.is_set,
                                          grace=0.01, name="test-worker")
        assert not finished and value is None and not release.is_set()
    finally:
        release.set()


class _BuggyEngine(MemoryEngine):
    """Raises a plain bug (not a SearchError) for one query, past every guard."""

    def search(self, query: str, *, max_results: int) -> Any:
        if "logging events" in query:  # follow-ups carry the question's key terms too
            raise KeyError("a bug in an engine plugin")
        return super().search(query, max_results=max_results)


def test_unexpected_strategy_error_is_logged_with_its_traceback(
        make_settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    model = _model()
    model.script["followups"] = ["logging events"]
    researcher = _researcher(make_settings, model, engines=[_BuggyEngine(PASSAGES)],
                             iterations=2)
    with caplog.at_level(logging.ERROR, logger="deepcite.research.researcher"):
        result = researcher.run(ARGPARSE)
    assert result.error is not None and "unexpectedly" in result.error
    assert "run_failed" in [w.code for w in result.warnings]
    assert result.sources and _resolves(result) and "[1]" in result.answer  # iteration 1's
    record = next(r for r in caplog.records if r.exc_info)
    assert record.exc_info is not None and record.exc_info[2] is not None
    frames = [frame.name for frame in traceback.extract_tb(record.exc_info[2])]
    assert "search" in frames  # the frame that raised, in the worker thread
