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
from deepcite.research.questions import QuestionGenerator
from deepcite.research.ranking import fuse
from deepcite.research.relevance import filter_relevant
from deepcite.research.steps import report_answer, search_iteration
from deepcite.types import Finding, PhaseStarted, SearchResult, SourcesAdded

CANCELLED_INTRO = "The run was cancelled before an answer was written. Passages found so far:"
BUDGET_INTRO = "The run's budget was spent before an answer was written. Passages found:"


def search_allowance(ctx: RunContext, wanted: int) -> int:
    """How many of ``wanted`` queries the search budget still allows (all engines each)."""
    limit = ctx.settings.research.max_searches
    if limit is None:
        return wanted
    per_query = max(1, len(ctx.engines))
    return max(0, min(wanted, (limit - ctx.searches) // per_query))


class SourceBasedStrategy:
    """Iterative search with a single cited synthesis at the end."""

    name = "source-based"
    description = "Iterative search, then one answer citing every claim (default)."

    def __init__(self, context: RunContext) -> None:
        self._ctx = context
        self._questions = QuestionGenerator(context.client)
        self._result_lists: list[list[SearchResult]] = []
        self._by_iteration: dict[int, list[str]] = {}

    def partial(self, question: str) -> StrategyOutcome:
        """What was found so far, registered and quoted: for a run cancelled mid-step."""
        sources = self._ctx.registry.add_many(
            fuse(list(self._result_lists), self._ctx.settings.research.max_sources))
        answer = evidence_answer(question, sources, intro=CANCELLED_INTRO)
        return StrategyOutcome(answer, sources, dict(self._by_iteration), [], cancelled=True)

    def run(self, question: str) -> StrategyOutcome:
        ctx = self._ctx
        cfg = ctx.settings.research
        by_iteration = self._by_iteration
        result_lists = self._result_lists
        accumulated: list[SearchResult] = []
        asked: list[str] = []
        for iteration in range(1, cfg.iterations + 1):
            if ctx.cancel.cancelled or not ctx.budget_left(searches=len(ctx.engines) or 1):
                break
            ctx.emit(PhaseStarted(phase="questions", iteration=iteration))
            queries = self._queries(question, iteration, accumulated, asked)
            queries = queries[: search_allowance(ctx, len(queries))]
            if not queries:
                continue
            by_iteration[iteration] = queries
            asked.extend(queries)
            for found in search_iteration(ctx, iteration, queries):
                result_lists.append(found)
                accumulated.extend(found)

        best = fuse(result_lists, cfg.max_sources)
        if cfg.relevance_filter and len(best) > 1 and not ctx.cancel.cancelled \
                and ctx.budget_left(model_calls=2):
            best = filter_relevant(ctx, question, best)
        sources = ctx.registry.add_many(best)
        if sources:
            ctx.emit(SourcesAdded(numbers=[s.number for s in sources], total=len(ctx.registry)))
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

    def _queries(self, question: str, iteration: int, accumulated: list[SearchResult],
                 asked: list[str]) -> list[str]:
        ctx = self._ctx
        cfg = ctx.settings.research
        can_ask = ctx.budget_left(model_calls=2)
        if iteration == 1:
            verbatim = cfg.search_original_query and len(question) <= cfg.max_query_chars
            generated = (self._questions.initial(question, cfg.questions_per_iteration)
                         if can_ask else [])
            if cfg.questions_per_iteration and not generated and can_ask:
                ctx.warn("questions_unusable",
                         "Could not use the model's sub-queries; searching the question only")
            queries = ([question] if verbatim else []) + generated
            if not queries:
                queries = [question[: cfg.max_query_chars]]
            return queries
        if not can_ask:
            return []
        if not accumulated:
            # Nothing found to build on: ask for fresh sub-queries instead of follow-ups.
            return self._questions.initial(question, cfg.followups_per_iteration, asked)
        recent = accumulated[-cfg.question_context_limit:]
        followups = self._questions.followups(question, recent, asked,
                                              cfg.followups_per_iteration)
        if cfg.followups_per_iteration and not followups:
            ctx.warn("followups_unusable",
                     f"Could not use the model's follow-up queries in iteration {iteration}")
        return followups
