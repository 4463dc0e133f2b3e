"""A circuit breaker around an engine, for one run.

An engine that keeps failing (rate limited, down, misconfigured) would otherwise cost
its timeout and retries on every query of every iteration. After ``failures``
consecutive failures the circuit opens: the engine is skipped for the rest of the run
with one clear error, and the other engines carry on.
"""

from __future__ import annotations

import threading

from deepcite.errors import SearchError
from deepcite.search.base import SearchEngine
from deepcite.types import SearchResult


class CircuitOpen(SearchError):
    """The engine is skipped for the rest of the run."""


class GuardedEngine:
    """Wraps an engine; opens the circuit after ``failures`` failures in a row."""

    def __init__(self, engine: SearchEngine, failures: int = 3) -> None:
        self._engine = engine
        self._limit = failures
        self._failures = 0
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._engine.name

    @property
    def open(self) -> bool:
        """Whether the engine is being skipped."""
        with self._lock:
            return self._failures >= self._limit

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        if self.open:
            raise CircuitOpen(f"{self.name} skipped for the rest of the run after "
                              f"{self._limit} failures in a row")
        try:
            results = self._engine.search(query, max_results=max_results)
        except SearchError:
            with self._lock:
                self._failures += 1
            raise
        with self._lock:
            self._failures = 0
        return results
