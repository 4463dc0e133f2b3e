"""Running the searches of one iteration concurrently, with a bound.

Every (query, engine) pair is one job. A failing engine produces an error entry, not
an exception, so one engine's outage never fails the run; cancellation is checked
before each job starts, so a cancelled run stops issuing searches at once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from deepcite.errors import SearchError
from deepcite.research.cancel_token import CancelToken
from deepcite.search.base import SearchEngine
from deepcite.search.circuit_breaker import CircuitOpen
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SearchOutcome:
    """What one query on one engine produced."""

    query: str
    engine: str
    results: list[SearchResult]
    seconds: float
    error: str | None = None
    skipped: bool = False
    circuit_open: bool = False


def run_searches(
    queries: Sequence[str],
    engines: Sequence[SearchEngine],
    *,
    max_results: int,
    concurrency: int,
    cancel: CancelToken,
) -> list[SearchOutcome]:
    """Search every query on every engine; results come back in job order."""
    jobs = [(query, engine) for query in queries for engine in engines]
    if not jobs:
        return []

    def run(job: tuple[str, SearchEngine]) -> SearchOutcome:
        query, engine = job
        if cancel.cancelled:
            return SearchOutcome(query, engine.name, [], 0.0, skipped=True)
        start = time.perf_counter()
        try:
            results = engine.search(query, max_results=max_results)
        except CircuitOpen as exc:
            return SearchOutcome(query, engine.name, [], 0.0, str(exc), circuit_open=True)
        except SearchError as exc:
            logger.warning("engine %s failed for %r: %s", engine.name, query, exc)
            return SearchOutcome(query, engine.name, [], time.perf_counter() - start, str(exc))
        return SearchOutcome(query, engine.name, results, time.perf_counter() - start)

    with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(jobs)))) as pool:
        return list(pool.map(run, jobs))
