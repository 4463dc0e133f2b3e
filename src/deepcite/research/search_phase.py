"""The iterative search phase of the default strategy, shared with topic-organization.

Iteration 1 searches the question verbatim (unless it is too long to be a good query)
plus generated sub-queries; later iterations ask for follow-ups built from the most
recent results of *all* earlier iterations, so one empty iteration does not starve the
next. Run budgets are respected: a query list is only requested while two model calls
remain (one is kept for the answer), and queries are cut to the search budget. What was
found is kept on the instance, so a cancelled run can still return it.

A follow-up's results that moved away from the question (far less about it than the
first search's, :mod:`deepcite.research.drift`) are not kept, nor learnt from by the
next follow-ups, and neither is a kept follow-up's result that does not name the
question's subject; the run's log says which, and ``dropped`` holds them.
"""

from __future__ import annotations

import logging

from deepcite.citations.answer_mode import use_grounded
from deepcite.citations.handlers import DEFAULT_HANDLER
from deepcite.config import Settings
from deepcite.llm import ModelInterface
from deepcite.research.brief import Gathered
from deepcite.research.context import RunContext
from deepcite.research.drift import DriftCheck, encoder_for
from deepcite.research.questions import QuestionGenerator
from deepcite.research.steps import search_allowance, search_iteration
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)

#: Progress steps per iteration: generating the queries, searching them.
STEPS_PER_ITERATION = 2


class IterativeSearch:
    """Runs the iterations; ``by_iteration`` and ``result_lists`` hold what was found."""

    def __init__(self, context: RunContext) -> None:
        self._ctx = context
        self._questions = _question_generator(context)
        self.by_iteration: dict[int, list[str]] = {}
        self.result_lists: list[list[SearchResult]] = []
        #: Follow-up result lists not kept because they moved away from the question,
        #: with the iteration that found them.
        self.dropped: list[tuple[int, list[SearchResult]]] = []

    def run(self, question: str) -> None:
        """Search until the iterations, the budget or the user's patience run out."""
        ctx = self._ctx
        accumulated: list[SearchResult] = []
        asked: list[str] = []
        drift: DriftCheck | None = None
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
            lists = search_iteration(ctx, iteration, queries)
            if drift is None and lists:
                search = ctx.settings.search
                drift = DriftCheck(question, encoder_for(search.dense, search.dense_model))
                drift.start(lists[0])
            elif drift is not None:
                lists = self._on_topic(drift, iteration, queries, lists)
            for found in lists:
                self.result_lists.append(found)
                accumulated.extend(found)

    def adopt(self, gathered: Gathered) -> None:
        """Take what an earlier search of the same question found (a report part
        researched ahead) as this search's own, without searching again."""
        self.result_lists[:] = [list(found) for found in gathered.result_lists]
        self.by_iteration.update(gathered.by_iteration)

    def _on_topic(self, drift: DriftCheck, iteration: int, queries: list[str],
                  lists: list[list[SearchResult]]) -> list[list[SearchResult]]:
        """The lists of ``lists`` still about the question; the others are logged."""
        kept = []
        for found in lists:
            if not drift.drifted(found):
                about: list[SearchResult] = []
                elsewhere: list[SearchResult] = []
                for result in found:
                    (about if drift.about(result) else elsewhere).append(result)
                if elsewhere:
                    self.dropped.append((iteration, elsewhere))
                    logger.info("iteration %d: left out %d follow-up results that do not "
                                "name the question's subject", iteration, len(elsewhere))
                kept.append(about)
                continue
            self.dropped.append((iteration, found))
            logger.info("iteration %d: dropped results of a follow-up (one of %s) that moved "
                        "away from the question (overlap %.2f, first search %.2f): %s",
                        iteration, queries, drift.overlap(found), drift.baseline or 0.0,
                        ", ".join(r.title for r in found[:3]))
        return kept

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
        if not can_ask and self._questions.uses_model and not self._questions.plans:
            return []
        if not accumulated and not self._questions.plans:
            # Nothing found to build on: ask for fresh sub-queries instead of follow-ups
            # (a planned run takes its plan's follow-ups, already written).
            return self._questions.initial(question, cfg.followups_per_iteration, asked)
        recent = accumulated[-cfg.question_context_limit:]
        followups = self._questions.followups(question, recent, asked,
                                              cfg.followups_per_iteration)
        if self._questions.derived and self._questions.uses_model:
            ctx.warn("followups_unusable",
                     f"Could not use the model's follow-up queries in iteration {iteration}; "
                     "searching terms from the results found instead")
        return followups


def _question_generator(context: RunContext) -> QuestionGenerator:
    """Who writes this run's queries (``research.query_planning``).

    A model too small to write answers (grounded path) is too small to write queries
    whatever the setting: the question is searched, then expanded from what it found.
    ``results`` does the same for every model (measured in ``docs/benchmarks.md``: the
    derived follow-ups find as much gold as the model's, for no call); ``plan`` asks
    once for the sub-queries and the later iterations' follow-ups; ``model`` asks in
    every iteration.
    """
    research = context.settings.research
    mode = research.query_planning
    if not queries_by_model(context.settings, context.client, context.handler.name):
        return QuestionGenerator(context.client, model_queries=False)
    if mode == "plan":
        later = research.followups_per_iteration * (research.iterations - 1)
        return QuestionGenerator(context.client, planned_followups=later)
    return QuestionGenerator(context.client)


def queries_by_model(settings: Settings, client: ModelInterface, handler: str) -> bool:
    """Whether a run's queries cost model calls: ``research.query_planning`` is not
    ``results`` and the model is not one too small to write them (the grounded path of
    the ``handler``, :func:`~deepcite.citations.answer_mode.use_grounded`)."""
    small = handler == DEFAULT_HANDLER and use_grounded(settings, client)
    return not small and settings.research.query_planning != "results"

