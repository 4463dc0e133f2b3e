"""Steps every strategy takes the same way: searching an iteration's queries, numbering
what was found, and telling the user how the cited answer was repaired. One place, so
that events, search accounting and warnings cannot drift apart between strategies."""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.citations.handlers.base import CitedAnswer
from deepcite.research.context import RunContext
from deepcite.research.fulltext import add_full_text
from deepcite.research.parallel import run_searches
from deepcite.types import PhaseStarted, QuestionsGenerated, SearchResult, Source, SourcesAdded

CANCELLED_INTRO = "The run was cancelled before an answer was written. Passages found so far:"


def search_iteration(ctx: RunContext, iteration: int,
                     queries: Sequence[str]) -> list[list[SearchResult]]:
    """Announce and run one iteration's searches; the non-empty result lists, with full
    text added when the user asked for it."""
    ctx.emit(QuestionsGenerated(iteration=iteration, questions=list(queries)))
    ctx.emit(PhaseStarted(phase="search", iteration=iteration))
    outcomes = run_searches(
        queries, ctx.engines, max_results=ctx.settings.search.max_results,
        concurrency=ctx.settings.search.concurrency, cancel=ctx.cancel,
    )
    ctx.record_searches(iteration, outcomes)
    return add_full_text(ctx, [o.results for o in outcomes if o.results])


def report_answer(ctx: RunContext, cited: CitedAnswer) -> None:
    """Warn about every repair the citation checks made to the model's answer."""
    if cited.fallback:
        ctx.warn("synthesis_fallback",
                 f"Model reply not usable ({cited.fallback}); answered with quoted passages")
    if cited.removed_markers:
        ctx.warn("invalid_citations",
                 f"Removed {cited.removed_markers} citation(s) to sources that do not exist")
    if "uncited" in cited.notes:
        ctx.warn("uncited_answer", "The model cited no source; passages were appended")


def register_sources(ctx: RunContext, results: Sequence[SearchResult]) -> list[Source]:
    """Number ``results`` in the registry and announce the numbers."""
    sources = ctx.registry.add_many(results)
    if sources:
        ctx.emit(SourcesAdded(numbers=[s.number for s in sources], total=len(ctx.registry)))
    return sources
