"""The iterative search phase of the default strategy, shared with topic-organization.

Iteration 1 searches the question verbatim (unless it is too long to be a good query)
plus generated sub-queries; later iterations ask for follow-ups built from the most
recent results of *all* earlier iterations, so one empty iteration does not starve the
next. Run budgets are respected: a query list is only requested while two model calls
remain (one is kept for the answer), and queries are cut to the search budget. What was
found is kept on the instance, so a cancelled run can still return it.
"""

from __future__ import annotations

from deepcite.citations.grounded import use_grounded
from deepcite.citations.handlers import DEFAULT_HANDLER
from deepcite.research.context import RunContext
from deepcite.research.questions import QuestionGenerator
from deepcite.research.steps import search_allowance, search_iteration
from deepcite.types import SearchResult

#: Progress steps per iteration: generating the queries, searching them.
STEPS_PER_ITERATION = 2


class IterativeSearch:
    """Runs the iterations; ``by_iteration`` and ``result_lists`` hold what was found."""

    def __init__(self, context: RunContext) -> None:
        self._ctx = context
        # A model too small to write answers (grounded path) is too small to write
        # queries: the question is searched, then expanded from what it found.
        self._questions = QuestionGenerator(context.client, model_queries=not (
            context.handler.name == DEFAULT_HANDLER
            and use_grounded(context.settings, context.client)))
        self.by_iteration: dict[int, list[str]] = {}
        self.result_lists: list[list[SearchResult]] = []

    def run(self, question: str) -> None:
        """Search until the iterations, the budget or the user's patience run out."""
        ctx = self._ctx
        accumulated: list[SearchResult] = []
        asked: list[str] = []
        for iteration in range(1, ctx.settings.research.iterations + 1):
            if ctx.cancel.cancelled or not ctx.budget_left(searches=len(ctx.engines) or 1):
                break
            ctx.phase("questions", iteration)
            queries = self._queries(question, iteration, accumulated, asked)
            queries = queries[: search_allowance(ctx, len(queries))]
            if not queries:
                continue
            self.by_iteration[iteration] = queries
            asked.extend(queries)
            for found in search_iteration(ctx, iteration, queries):
                self.result_lists.append(found)
                accumulated.extend(found)

    def _queries(self, question: str, iteration: int, accumulated: list[SearchResult],
                 asked: list[str]) -> list[str]:
        ctx = self._ctx
        cfg = ctx.settings.research
        can_ask = ctx.budget_left(model_calls=2)
        if iteration == 1 and ctx.brief.search_queries:
            return list(ctx.brief.search_queries)  # only what the user's materials leave open
        if iteration == 1:
            verbatim = cfg.search_original_query and len(question) <= cfg.max_query_chars
            generated = (self._questions.initial(question, cfg.questions_per_iteration)
                         if can_ask else [])
            if cfg.questions_per_iteration and not generated and can_ask \
                    and self._questions.uses_model:
                ctx.warn("questions_unusable",
                         "Could not use the model's sub-queries; searching the question only")
            queries = ([question] if verbatim else []) + generated
            if not queries:
                queries = [question[: cfg.max_query_chars]]
            return queries
        if not can_ask and self._questions.uses_model:
            return []
        if not accumulated:
            # Nothing found to build on: ask for fresh sub-queries instead of follow-ups.
            return self._questions.initial(question, cfg.followups_per_iteration, asked)
        recent = accumulated[-cfg.question_context_limit:]
        followups = self._questions.followups(question, recent, asked,
                                              cfg.followups_per_iteration)
        if self._questions.derived and self._questions.uses_model:
            ctx.warn("followups_unusable",
                     f"Could not use the model's follow-up queries in iteration {iteration}; "
                     "searching terms from the results found instead")
        return followups
