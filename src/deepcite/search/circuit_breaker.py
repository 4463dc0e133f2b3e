"""A circuit breaker around an engine, for one run.

An engine that keeps failing (rate limited, down, misconfigured) would otherwise cost
its timeout and retries on every query of every iteration. After ``failures``
consecutive failures the circuit opens: the engine is skipped for the rest of the run
with one clear error, and the other engines carry on.

The breaker is also where every engine's output is held to the source rules: results
whose URL cannot be a source are dropped, and an unexpected exception from an engine
counts as a failure (a :class:`SearchError`) instead of ending the run.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol, runtime_checkable

from deepcite.errors import SearchError
from deepcite.search.base import SearchEngine
from deepcite.search.urls import source_url_problem
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)


@runtime_checkable
class SupportsClose(Protocol):
    """An engine holding resources (an HTTP pool, an open index) that ``close`` frees."""

    def close(self) -> None:
        """Release the engine's resources; it is not used afterwards."""
        ...


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
            self._failed()
            raise
        except Exception as exc:
            # A bug in an engine (a plugin's, or ours on a response nobody foresaw) is
            # that engine failing once, never the end of the run.
            self._failed()
            logger.debug("engine %s raised", self.name, exc_info=True)
            raise SearchError(f"{self.name}: unexpected {type(exc).__name__}: {exc}") from exc
        with self._lock:
            self._failures = 0
        return [result for result in results if _usable(self.name, result)]

    def close(self) -> None:
        """Close the wrapped engine when it holds resources (see :class:`SupportsClose`)."""
        if isinstance(self._engine, SupportsClose):
            self._engine.close()

    def _failed(self) -> None:
        with self._lock:
            self._failures += 1


def _usable(engine: str, result: SearchResult) -> bool:
    """Whether ``result`` may become a source; engines from plugins may not use
    ``make_result``, so its URL rule is applied to every engine's results here too."""
    problem = source_url_problem(result.url) if result.url else "no URL"
    if problem:
        logger.debug("%s: dropped result %r: %s", engine, result.url[:200], problem)
    return problem is None
