"""The default strategy's search, shared with topic-organization: what each iteration
of the one search loop (:mod:`deepcite.research.search_loop`) asks, and what it keeps.

Iteration 1 searches the question verbatim (unless it is too long to be a good query)
plus generated sub-queries; later iterations ask for follow-ups built from the most
recent results of *all* earlier iterations, so one empty iteration does not starve the
next. Run budgets are respected: a query list is only requested while two model calls
remain (one is kept for the answer), and the loop cuts queries to the search budget.

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
from deepcite.research.search_loop import SearchLoop
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)


class IterativeSearch(SearchLoop):
    """``research.iterations`` iterations of sub-queries, then follow-ups; what drifted
    away from the question is left out."""

    def __init__(self, context: RunContext) -> None:
        super().__init__(context, context.settings.research.iterations)
        self._questions = _question_generator(context)
        #: Every result kept so far, in order: what the follow-ups are built from.
        self._accumulated: list[SearchResult] = []
        self._drift: DriftCheck | None = None
        #: Follow-up result lists not kept because they moved away from the question,
        #: with the iteration that found them.
        self.dropped: list[tuple[int, list[SearchResult]]] = []

    def take(self, question: str, iteration: int, queries: list[str],
             lists: list[list[SearchResult]]) -> bool:
        """Keep what is still about the question: the first search found what the
        later ones are measured against."""
        if self._drift is None and lists:
            search = self._ctx.settings.search
            self._drift = DriftCheck(question, encoder_for(search.dense, search.dense_model))
            self._drift.start(lists[0])
        elif self._drift is not None:
            lists = self._on_topic(self._drift, iteration, queries, lists)
        for found in lists:
            self.result_lists.append(found)
            self._accumulated.extend(found)
        return True

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

    def queries(self, question: str, iteration: int) -> list[str]:
        """The materials' queries or the question and its sub-queries first; then
        follow-ups from what was found (fresh sub-queries when nothing was)."""
        accumulated = self._accumulated
        asked = self.asked
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

