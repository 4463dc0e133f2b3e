"""What a strategy gets to work with, and what it hands back."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from deepcite.citations.handlers.base import Completer
from deepcite.citations.registry import SourceRegistry
from deepcite.config import Settings
from deepcite.research.cancel import CancelToken
from deepcite.research.parallel import SearchOutcome
from deepcite.search.base import SearchEngine
from deepcite.types import Event, Finding, RunWarning, SearchDone, Source


@dataclass
class RunContext:
    """Everything one run shares: settings snapshot, model, engines, registry, events."""

    settings: Settings
    client: Completer
    engines: Sequence[SearchEngine]
    registry: SourceRegistry
    cancel: CancelToken
    emit: Callable[[Event], None]
    warnings: list[str] = field(default_factory=list)
    search_seconds: float = 0.0
    searches: int = 0
    _reported_open: set[str] = field(default_factory=set, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def warn(self, code: str, message: str) -> None:
        """Record a degradation the user should know about and emit it as an event."""
        with self._lock:
            self.warnings.append(message)
        self.emit(RunWarning(code=code, message=message))

    def record_searches(self, iteration: int, outcomes: Sequence[SearchOutcome]) -> None:
        """Count searches and their time, and emit one event per finished search."""
        for outcome in outcomes:
            if outcome.circuit_open:
                if outcome.engine not in self._reported_open:
                    self._reported_open.add(outcome.engine)
                    self.warn("engine_skipped", outcome.error or outcome.engine)
                continue
            if outcome.skipped:
                continue
            with self._lock:
                self.searches += 1
                self.search_seconds += outcome.seconds
            self.emit(SearchDone(iteration=iteration, query=outcome.query,
                                 engine=outcome.engine, results=len(outcome.results),
                                 seconds=outcome.seconds, error=outcome.error))
            if outcome.error:
                self.warn("engine_failed", f"{outcome.engine} failed for "
                          f"{outcome.query!r}: {outcome.error}")


@dataclass
class StrategyOutcome:
    """What every strategy returns; the Researcher turns it into a ResearchResult."""

    answer: str
    sources: list[Source]
    questions_by_iteration: dict[int, list[str]]
    findings: list[Finding]
    cancelled: bool = False
