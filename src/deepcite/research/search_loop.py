"""The one search loop of the iterating strategies: ask for queries, search them, keep
what was found, until the iterations, the budget or the user's patience run out.

The default strategy (and topic organisation, which searches like it) and focused
iteration search in iterations; what they share is this loop, written once, so that
cancellation, the search budget, the progress events and the queries asked cannot
drift apart between them. What differs is asked of the subclass:

- :meth:`SearchLoop.queries`: which queries an iteration searches (the default
  strategy's sub-queries and follow-ups, :mod:`deepcite.research.iterative_search`;
  focused iteration's sharper queries aimed by the best passages so far);
- :meth:`SearchLoop.take`: what to keep of what an iteration found, and whether to go
  on (the default strategy drops follow-ups that drifted away from the question;
  focused iteration stops once an iteration finds nothing new);
- :meth:`SearchLoop.nothing_to_ask`: whether to go on when an iteration has no query.

What was found is kept on the instance, so a cancelled run can still return it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from deepcite.research.context import RunContext
from deepcite.research.steps import search_allowance, search_iteration
from deepcite.types import SearchResult

#: Progress steps per iteration: generating the queries, searching them.
STEPS_PER_ITERATION = 2


class SearchLoop(ABC):
    """Up to ``iterations`` rounds of queries and searches; ``by_iteration`` (the
    queries searched), ``asked`` (all of them, in order) and ``result_lists`` (what was
    kept) hold what the run got so far."""

    def __init__(self, context: RunContext, iterations: int) -> None:
        self._ctx = context
        #: How many iterations the loop runs at most (a plan's "iteration k/N").
        self.iterations = iterations
        self.by_iteration: dict[int, list[str]] = {}
        self.asked: list[str] = []
        self.result_lists: list[list[SearchResult]] = []

    def run(self, question: str) -> None:
        """Search until the iterations, the budget or the user's patience run out, or
        the subclass says the search is done."""
        ctx = self._ctx
        for iteration in range(1, self.iterations + 1):
            if ctx.cancel.cancelled or not ctx.budget_left(searches=len(ctx.engines) or 1):
                break
            ctx.phase("questions", iteration)
            queries = self.queries(question, iteration)
            queries = queries[: search_allowance(ctx, len(queries))]
            if not queries:
                if self.nothing_to_ask(question, iteration):
                    continue
                break
            self.by_iteration[iteration] = queries
            self.asked.extend(queries)
            found = search_iteration(ctx, iteration, queries)
            if not self.take(question, iteration, queries, found):
                break

    @abstractmethod
    def queries(self, question: str, iteration: int) -> list[str]:
        """The queries iteration ``iteration`` searches (before the search budget cuts
        them); none asks :meth:`nothing_to_ask` whether to go on."""

    @abstractmethod
    def take(self, question: str, iteration: int, queries: list[str],
             lists: list[list[SearchResult]]) -> bool:
        """Keep what ``queries`` found (``lists``, one per search that found something)
        in :attr:`result_lists`; whether the loop goes on."""

    def nothing_to_ask(self, question: str, iteration: int) -> bool:
        """Whether the loop goes on after an iteration with no query to search (by
        default it does: a later iteration may have something to ask)."""
        return True
