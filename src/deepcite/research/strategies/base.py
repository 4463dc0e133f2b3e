"""The strategy contract: one question in, one cited answer out.

A strategy decides how to search and what shape its answer takes; it ends through the
shared citation step (:class:`~deepcite.research.citation_step.CitationStep`), so the
configured handler, the warnings, verification and the cancelled / no-sources exits
are the same for all of them. What the Researcher relies on is declared here rather
than probed for: the run itself, the progress plan, and what a run cancelled in the
middle of a step can still return.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Generic, TypeVar

from deepcite.research.brief import Gathered
from deepcite.research.citation_step import CitationStep
from deepcite.research.context import Plan, RunContext, StrategyOutcome
from deepcite.research.ranking import fuse
from deepcite.research.search_loop import STEPS_PER_ITERATION, SearchLoop
from deepcite.research.steps import relevance_steps
from deepcite.types import Source

LoopT = TypeVar("LoopT", bound=SearchLoop)


class Strategy(ABC):
    """A way of researching a question; all strategies end in the same citation step.

    One instance serves one run: subclasses keep what they found on the instance
    (``by_iteration`` and whatever :meth:`found_sources` reads), so that
    :meth:`partial` can return it when the run is cancelled mid-step.
    """

    name: ClassVar[str]
    description: ClassVar[str]

    def __init__(self, context: RunContext) -> None:
        self._ctx = context
        self._step = CitationStep(context)
        #: The queries searched, by iteration, as far as the run got.
        self.by_iteration: dict[int, list[str]] = {}

    @abstractmethod
    def run(self, question: str) -> StrategyOutcome:
        """Research ``question`` and return a cited answer built from the source numbering."""

    @abstractmethod
    def plan(self) -> Plan:
        """The progress steps this strategy expects, for "step k/N" displays."""

    def gather(self, question: str) -> Gathered | None:
        """Search ``question`` as :meth:`run` would, without numbering or answering; the
        run that answers takes it through its brief (:attr:`RunBrief.gathered`).

        A detailed report researches its parts ahead this way, several at a time, and
        numbers their sources part by part. ``None`` (the default) for strategies whose
        search and answer are one step (the agent, topic organisation): their parts
        are researched when they are written.
        """
        return None

    def found_sources(self) -> list[Source]:
        """The sources found so far, numbered; what a cancelled or failed run quotes.

        By default those this run registered; strategies that hold results before
        registering them at the end register them here.
        """
        return self._ctx.run_sources()

    def partial(self, question: str) -> StrategyOutcome:
        """What a run cancelled in the middle of a step returns, without waiting for it:
        the passages found so far, quoted and cited."""
        return self._step.stopped(question, self.found_sources(), dict(self.by_iteration), [])


class SearchLoopStrategy(Strategy, Generic[LoopT]):
    """A strategy that searches with a :class:`~deepcite.research.search_loop.SearchLoop`
    (source-based, topic organisation, focused iteration), then answers from what it
    kept: its plan counts the loop's iterations, and what a cancelled run quotes is
    what the loop has found so far.

    A subclass says which loop (:meth:`_search_loop`), and how many progress steps
    its answer takes after the search and the relevance filter (:attr:`answer_steps`).
    """

    #: Progress steps after the search and the relevance filter: the answer (topic
    #: organisation also groups the sources first).
    answer_steps: ClassVar[int] = 1

    def __init__(self, context: RunContext) -> None:
        super().__init__(context)
        self._search = self._search_loop()
        self.by_iteration = self._search.by_iteration

    @abstractmethod
    def _search_loop(self) -> LoopT:
        """The loop this run searches with (made once, when the strategy is)."""

    def plan(self) -> Plan:
        iterations = self._search.iterations
        return Plan(steps=STEPS_PER_ITERATION * iterations + relevance_steps(self._ctx)
                    + self.answer_steps, iterations=iterations)

    def found_sources(self) -> list[Source]:
        """What was found so far, registered (a run cancelled mid-search has not yet)."""
        return self._ctx.register(fuse(list(self._search.result_lists),
                                       self._ctx.settings.research.max_sources))
