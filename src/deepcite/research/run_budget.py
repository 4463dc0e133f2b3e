"""A run's budget: the ``research.max_*`` limits and what has been spent against them.

Four limits, each off unless set: model calls, tokens (prompt and reply), wall-clock
seconds and searches. A :class:`Budget` is the one place they are checked
(:meth:`Budget.exhausted`) and the one place that counts against them: it takes the
model usage and the time at its start, reads the client's usage when asked, and counts
the searches its runs report (:meth:`Budget.add_searches`, from any thread).

A quick run makes its own budget. A detailed report makes one and hands it to every run
it starts (the summary, each part, through :attr:`~deepcite.research.brief.RunBrief.
budget`) and checks it itself before the outline and each part, so the limits hold for
the whole report rather than per section.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from deepcite.config import ResearchSettings
from deepcite.llm import Usage


@dataclass(frozen=True)
class Remaining:
    """What a budget still allows, limit by limit; ``None`` where there is no limit."""

    model_calls: int | None
    tokens: int | None
    seconds: float | None
    searches: int | None


class Budget:
    """The ``research.max_*`` limits and the counters spent against them.

    A Budget is mutable, unlike the frozen :class:`~deepcite.research.brief.RunBrief`
    that carries it: the searches grow as runs report them, the model usage and the
    elapsed time are read anew at every check. Every method may be called from any
    thread (a run's searches finish in worker threads).

    ``usage`` returns the model client's running totals (``lambda: client.usage``);
    the usage spent is what came after the totals it returned when the budget was made.
    ``clock`` is where time is read (``time.monotonic``).
    """

    def __init__(self, limits: ResearchSettings, usage: Callable[[], Usage], *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._limits = limits
        self._usage = usage
        self._clock = clock
        self._usage_start = usage()
        self._started = clock()
        self._searches = 0
        self._lock = threading.Lock()

    @property
    def limits(self) -> ResearchSettings:
        """The settings whose ``max_*`` fields are the limits."""
        return self._limits

    @property
    def usage_start(self) -> Usage:
        """The client's totals when the budget was made: usage is counted from here."""
        return self._usage_start

    @property
    def searches(self) -> int:
        """Searches counted so far, by every run that shares this budget."""
        with self._lock:
            return self._searches

    def add_searches(self, count: int = 1) -> None:
        """Count ``count`` finished searches against the budget."""
        if count < 0:
            raise ValueError(f"cannot add {count} searches")
        with self._lock:
            self._searches += count

    def used(self) -> Usage:
        """The model usage spent since the budget was made."""
        return self._usage().since(self._usage_start)

    def elapsed(self) -> float:
        """Seconds since the budget was made."""
        return self._clock() - self._started

    def remaining(self) -> Remaining:
        """What each limit still allows (never below zero)."""
        cfg, used, searches = self._limits, self.used(), self.searches
        return Remaining(
            model_calls=_left(cfg.max_model_calls, used.calls),
            tokens=_left(cfg.max_tokens, used.total_tokens),
            seconds=(None if cfg.max_seconds is None
                     else max(0.0, cfg.max_seconds - self.elapsed())),
            searches=_left(cfg.max_searches, searches),
        )

    def search_allowance(self, wanted: int, *, per_query: int = 1) -> int:
        """How many of ``wanted`` queries the search limit still allows, when each
        query is searched ``per_query`` times (once per engine; at least once)."""
        left = self.remaining().searches
        if left is None:
            return wanted
        return max(0, min(wanted, left // max(1, per_query)))

    def reserve_searches(self, wanted: int, *, per_query: int = 1) -> int:
        """Like :meth:`search_allowance`, and the searches allowed are counted as spent
        at once, so runs searching at the same time (a report's parts researched ahead)
        cannot all take the last one. :meth:`refund_searches` gives back those that did
        not run."""
        per_query = max(1, per_query)
        with self._lock:
            limit = self._limits.max_searches
            if limit is None:
                granted = wanted
            else:
                granted = max(0, min(wanted, (limit - self._searches) // per_query))
            self._searches += granted * per_query
        return granted

    def refund_searches(self, count: int) -> None:
        """Give back ``count`` reserved searches that did not run (skipped, cancelled)."""
        if count <= 0:
            return
        with self._lock:
            self._searches = max(0, self._searches - count)

    def exhausted(self, *, model_calls: int = 0, searches: int = 0) -> str | None:
        """Which limit spending ``model_calls`` more calls and ``searches`` more
        searches would break (its reason, "search budget of 3 reached"), or ``None``.

        Time and tokens are spent once they reach their limit; calls and searches when
        the planned ones would go past it. Checked in that order: time, model calls,
        tokens, searches.
        """
        cfg = self._limits
        if cfg.max_seconds is not None and self.elapsed() >= cfg.max_seconds:
            return f"time budget of {cfg.max_seconds:g} s reached"
        used = self.used()
        if cfg.max_model_calls is not None and used.calls + model_calls > cfg.max_model_calls:
            return f"model-call budget of {cfg.max_model_calls} reached"
        if cfg.max_tokens is not None and used.total_tokens >= cfg.max_tokens:
            return f"token budget of {cfg.max_tokens} reached"
        if cfg.max_searches is not None and self.searches + searches > cfg.max_searches:
            return f"search budget of {cfg.max_searches} reached"
        return None


def _left(limit: int | None, spent: int) -> int | None:
    return None if limit is None else max(0, limit - spent)


__all__ = ["Budget", "Remaining"]
