"""The default strategy: iterate searches, then write one answer citing the source numbering.

Iteration 1 searches the question verbatim (unless it is too long to be a good query)
plus generated sub-queries; later iterations ask for follow-ups built from the most
recent results of *all* earlier iterations, so one empty iteration does not starve the
next. Searches of an iteration run concurrently. At the end the best passages (kept by
the relevance filter when it is on) enter the source numbering and the configured citation
handler writes the answer citing their numbers: standard a cited paragraph or two,
precision a short confirmed fact, forced a definite (labelled) guess.
"""

from __future__ import annotations

from deepcite.research.brief import Gathered
from deepcite.research.context import StrategyOutcome
from deepcite.research.iterative_search import IterativeSearch
from deepcite.research.steps import iteration_findings, select_sources
from deepcite.research.strategies.base import SearchLoopStrategy


class SourceBasedStrategy(SearchLoopStrategy[IterativeSearch]):
    """Iterative search with a single cited synthesis at the end."""

    name = "source-based"
    description = "Iterative search, then one answer citing every claim (default)."

    def _search_loop(self) -> IterativeSearch:
        return IterativeSearch(self._ctx)

    def gather(self, question: str) -> Gathered:
        self._search.run(question)
        ctx = self._ctx
        return Gathered(tuple(tuple(found) for found in self._search.result_lists),
                        dict(self.by_iteration), tuple(ctx.warnings), ctx.searches,
                        ctx.search_seconds)

    def run(self, question: str) -> StrategyOutcome:
        gathered = self._ctx.brief.gathered
        if gathered is not None:
            self._search.adopt(gathered)
        else:
            self._search.run(question)
        sources = select_sources(self._ctx, question, self._search.result_lists)
        return self._step.answer(question, sources, self.by_iteration,
                                 iteration_findings(question, self.by_iteration))
