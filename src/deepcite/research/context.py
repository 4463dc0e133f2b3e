"""What a strategy gets to work with, and what it hands back."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from deepcite.citations.handlers.base import Completer
from deepcite.citations.registry import SourceRegistry
from deepcite.config import Settings
from deepcite.llm import ChatClient
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
    #: The code of each warning, in the same order (``uncited_answer``, ``budget`` ...).
    warning_codes: list[str] = field(default_factory=list)
    search_seconds: float = 0.0
    searches: int = 0
    _reported_open: set[str] = field(default_factory=set, repr=False)
    started: float = field(default_factory=time.monotonic)
    budget_note: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def budget_left(self, *, model_calls: int = 0, searches: int = 0) -> bool:
        """Whether the run may spend ``model_calls`` more calls and ``searches`` more
        searches. The first time a limit is reached the user is told which, once; the
        strategy then stops searching and answers from what it has."""
        cfg = self.settings.research
        usage = self.client.usage if isinstance(self.client, ChatClient) else None
        reason = None
        if cfg.max_seconds is not None and time.monotonic() - self.started >= cfg.max_seconds:
            reason = f"time budget of {cfg.max_seconds:g} s reached"
        elif usage is not None and cfg.max_model_calls is not None and \
                usage.calls + model_calls > cfg.max_model_calls:
            reason = f"model-call budget of {cfg.max_model_calls} reached"
        elif usage is not None and cfg.max_tokens is not None and \
                usage.prompt_tokens + usage.completion_tokens >= cfg.max_tokens:
            reason = f"token budget of {cfg.max_tokens} reached"
        elif cfg.max_searches is not None and self.searches + searches > cfg.max_searches:
            reason = f"search budget of {cfg.max_searches} reached"
        if reason is None:
            return True
        if self.budget_note is None:
            self.budget_note = reason
            self.warn("budget", f"Stopped early: {reason}; answering from what was found")
        return False

    def warn(self, code: str, message: str) -> None:
        """Record a degradation the user should know about and emit it as an event."""
        with self._lock:
            self.warnings.append(message)
            self.warning_codes.append(code)
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
    """What every strategy returns; the Researcher turns it into a ResearchResult.

    ``passages`` are quoted, cited passages to show after the answer once it has been
    verified (focused-iteration's "Evidence:"). They are kept apart because they must
    not count as the answer's support: an answer whose own citations verification
    removed is flagged even when quotes follow it, and the flag brings its own passages.
    """

    answer: str
    sources: list[Source]
    questions_by_iteration: dict[int, list[str]]
    findings: list[Finding]
    cancelled: bool = False
    passages: str = ""
