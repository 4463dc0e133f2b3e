"""The default strategy: iterate searches, then write one answer citing the registry.

Iteration 1 searches the question verbatim (unless it is too long to be a good query)
plus generated sub-queries; later iterations ask for follow-ups built from the most
recent results of *all* earlier iterations, so one empty iteration does not starve the
next. Searches of an iteration run concurrently. At the end the best passages enter the
registry and the citation handler writes the answer citing their numbers.
"""

from __future__ import annotations

from deepcite.citations.handlers import get_handler
from deepcite.citations.handlers.standard import evidence_answer
from deepcite.research.context import RunContext, StrategyOutcome
from deepcite.research.ranking import fuse
from deepcite.research.relevance import filter_relevant
from deepcite.research.search_phase import IterativeSearch
from deepcite.research.steps import CANCELLED_INTRO, register_sources, report_answer
from deepcite.types import Finding, PhaseStarted

BUDGET_INTRO = "The run's budget was spent before an answer was written. Passages found:"


class SourceBasedStrategy:
    """Iterative search with a single cited synthesis at the end."""

    name = "source-based"
    description = "Iterative search, then one answer citing every claim (default)."

    def __init__(self, context: RunContext) -> None:
        self._ctx = context
        self._search = IterativeSearch(context)

    def partial(self, question: str) -> StrategyOutcome:
        """What was found so far, registered and quoted: for a run cancelled mid-step."""
        sources = register_sources(self._ctx, fuse(
            list(self._search.result_lists), self._ctx.settings.research.max_sources))
        answer = evidence_answer(question, sources, intro=CANCELLED_INTRO)
        return StrategyOutcome(answer, sources, dict(self._search.by_iteration), [],
                               cancelled=True)

    def run(self, question: str) -> StrategyOutcome:
        ctx = self._ctx
        cfg = ctx.settings.research
        self._search.run(question)
        by_iteration = self._search.by_iteration
        best = fuse(self._search.result_lists, cfg.max_sources)
        if cfg.relevance_filter and len(best) > 1 and not ctx.cancel.cancelled \
                and ctx.budget_left(model_calls=2):
            best = filter_relevant(ctx, question, best)
        sources = register_sources(ctx, best)
        findings = [Finding(phase=f"iteration {i}", question=question,
                            content="\n".join(qs)) for i, qs in by_iteration.items()]

        if ctx.cancel.cancelled:
            answer = evidence_answer(question, sources, intro=CANCELLED_INTRO)
            return StrategyOutcome(answer, sources, by_iteration, findings, cancelled=True)

        if sources and not ctx.budget_left(model_calls=1):
            answer = evidence_answer(question, sources, intro=BUDGET_INTRO)
            return StrategyOutcome(answer, sources, by_iteration, findings)

        ctx.emit(PhaseStarted(phase="synthesis"))
        handler = get_handler(ctx.settings.citations.handler, ctx.client,
                              lambda m: ctx.warn("handler", m))
        cited = handler.answer(question, sources)
        if ctx.cancel.cancelled:  # stopped mid-reply: the partial text is no answer
            answer = evidence_answer(question, sources, intro=CANCELLED_INTRO)
            return StrategyOutcome(answer, sources, by_iteration, findings, cancelled=True)
        report_answer(ctx, cited)
        findings.append(Finding(phase="synthesis", question=question, content=cited.text))
        return StrategyOutcome(cited.text, sources, by_iteration, findings)
