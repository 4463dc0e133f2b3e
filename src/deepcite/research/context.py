"""What a strategy gets to work with, and what it hands back.

A :class:`RunContext` lives for one run. It holds what belongs to that run only: its
cancel token, the model usage at its start (so metrics count this run, not the
client's lifetime), the sources it registered (earlier runs' sources stay in the
shared source numbering but are not this run's to quote), its warnings and its progress
steps. The source numbering itself is shared across runs, so numbering continues, and so is a
detailed report's :class:`~deepcite.research.run_budget.Budget`; a quick run has its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from deepcite.citations.handlers import CitationHandler, get_handler
from deepcite.citations.numbering import SourceNumbering
from deepcite.config import Settings
from deepcite.llm import ModelInterface, Usage
from deepcite.research.brief import RunBrief
from deepcite.research.cancel_token import CancelToken
from deepcite.research.parallel import SearchOutcome
from deepcite.research.run_budget import Budget
from deepcite.search.base import SearchEngine
from deepcite.types import (
    Event,
    Finding,
    PhaseName,
    PhaseStarted,
    RunNotice,
    RunWarning,
    SearchDone,
    SearchResult,
    Source,
    SourcesAdded,
    WarningCode,
)


@dataclass(frozen=True)
class Plan:
    """How many progress steps (phases) a strategy expects, and its iteration count.

    ``steps`` is an upper bound: a run that stops early jumps to its last step, the
    answer. ``iterations`` is the strategy's own count (focused-iteration has eight
    whatever ``research.iterations`` says), shown as "iteration k/N".
    """

    steps: int
    iterations: int | None = None


@dataclass
class RunContext:
    """Everything one run shares: settings snapshot, model, engines, source numbering, events.

    ``handler`` is the citation handler this run answers with, resolved from the
    settings when the context is made (an unknown name warns once and falls back to
    ``standard``), so every strategy and the result agree on which one ran.
    """

    settings: Settings
    client: ModelInterface
    engines: Sequence[SearchEngine]
    numbering: SourceNumbering
    cancel: CancelToken
    emit: Callable[[Event], None]
    #: What the run builds on (report sections, follow-ups); empty for a quick answer.
    brief: RunBrief = field(default_factory=RunBrief)
    #: The run's warnings so far, each with its code (``uncited_answer``, ``budget`` ...).
    warnings: list[RunNotice] = field(default_factory=list)
    search_seconds: float = 0.0
    searches: int = 0
    budget_note: str | None = None
    plan: Plan = field(default_factory=lambda: Plan(steps=1))
    handler: CitationHandler = field(init=False)
    #: Sources every answer of the run is given first (the brief's evidence, numbered).
    pinned: list[Source] = field(default_factory=list)
    #: The client's totals when the run began; this run's usage is what came after.
    usage_start: Usage = field(init=False)
    #: The budget this run spends: the brief's (a report's, shared), else its own.
    budget: Budget = field(init=False)
    _reported_open: set[str] = field(default_factory=set, repr=False)
    _numbers: dict[int, Source] = field(default_factory=dict, repr=False)
    _step: int = field(default=0, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.usage_start = self.client.usage
        client = self.client
        self.budget = (self.brief.budget if self.brief.budget is not None
                       else Budget(self.settings.research, lambda: client.usage))
        self.handler = get_handler(self.settings.citations.handler, self.client,
                                   lambda message: self.warn("handler", message))

    @property
    def usage(self) -> Usage:
        """The model usage of this run so far."""
        return self.client.usage.since(self.usage_start)

    def budget_left(self, *, model_calls: int = 0, searches: int = 0) -> bool:
        """Whether the run may spend ``model_calls`` more calls and ``searches`` more
        searches. The first time a limit is reached the user is told which, once; the
        strategy then stops searching and answers from what it has."""
        reason = self.budget.exhausted(model_calls=model_calls, searches=searches)
        if reason is None:
            return True
        if self.budget_note is None:
            self.budget_note = reason
            self.warn("budget", f"Stopped early: {reason}; answering from what was found")
        return False

    def warn(self, code: WarningCode, message: str) -> None:
        """Record a degradation the user should know about and emit it as an event."""
        with self._lock:
            self.warnings.append(RunNotice(code=code, message=message))
        self.emit(RunWarning(code=code, message=message))

    def phase(self, name: PhaseName, iteration: int | None = None) -> None:
        """Announce the next step of the plan; ``synthesis`` is always the last one."""
        with self._lock:
            if name == "synthesis":
                self._step = max(self._step + 1, self.plan.steps)
            else:
                self._step = min(self._step + 1, max(1, self.plan.steps - 1))
            step, total = self._step, max(self._step, self.plan.steps)
        self.emit(PhaseStarted(phase=name, iteration=iteration,
                               iterations=self.plan.iterations, step=step, total=total))

    def register(self, results: Sequence[SearchResult]) -> list[Source]:
        """Number ``results`` in the source numbering as sources of this run; announce them.

        A passage an earlier run registered keeps its number, and counts as this run's
        source too (it was found again).
        """
        sources = self.numbering.add_many(results)
        if sources:
            with self._lock:
                self._numbers.update((s.number, s) for s in sources)
            self.emit(SourcesAdded(numbers=[s.number for s in sources],
                                   total=len(self.numbering)))
        return sources

    def run_sources(self) -> list[Source]:
        """The sources this run registered so far, in number order."""
        with self._lock:
            return [self._numbers[n] for n in sorted(self._numbers)]

    def record_searches(self, iteration: int, outcomes: Sequence[SearchOutcome]) -> int:
        """Count searches and their time, and emit one event per finished search; the
        number that ran (the budget counted them when they were reserved)."""
        done = 0
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
            done += 1
            self.emit(SearchDone(iteration=iteration, query=outcome.query,
                                 engine=outcome.engine, results=len(outcome.results),
                                 seconds=outcome.seconds, error=outcome.error))
            if outcome.error:
                self.warn("engine_failed", f"{outcome.engine} failed for "
                          f"{outcome.query!r}: {outcome.error}")
        return done


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
