"""Steps every strategy takes the same way: searching an iteration's queries, numbering
what was found, telling the user how the cited answer was repaired, and flagging an
answer that verification left unbacked. One place, so that events, search accounting
and warnings cannot drift apart between strategies."""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.citations.handlers.base import CitedAnswer
from deepcite.citations.handlers.standard import UNCITED_NOTE, flag_answer
from deepcite.citations.markers import cited_numbers
from deepcite.citations.verify import Verification
from deepcite.research.context import RunContext
from deepcite.research.fulltext import add_full_text
from deepcite.research.parallel import run_searches
from deepcite.types import PhaseStarted, QuestionsGenerated, SearchResult, Source, SourcesAdded

CANCELLED_INTRO = "The run was cancelled before an answer was written. Passages found so far:"
REMOVED_NOTE = ("Unverified: the sources do not support this answer's citations, so they "
                "were removed")
UNVERIFIED_NOTE = "Unverified: the sources support none of this answer's citations"


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


def flag_unsupported(ctx: RunContext, question: str, answer: str, sources: list[Source],
                     checked: Verification | None) -> tuple[str, bool]:
    """Flag ``answer`` when, after verification, none of its citations is supported.

    Runs for every strategy after verification, because that is where a wrong answer
    loses its only citations ("30 seconds [1]" where source 1 says 300): left as it is,
    the now uncited sentence would sit above a Sources block as if it were backed. It
    gets the same visible mark and passages as a reply that never cited anything
    (:func:`~deepcite.citations.handlers.standard.flag_answer`). Answers already marked
    that way keep their quoted passages' citations, so they are not marked twice.
    Returns the answer and whether it was flagged.
    """
    if not sources:
        return answer, False
    left = cited_numbers(answer)
    none_supported = checked is not None and checked.unsupported > 0 \
        and checked.supported + checked.partial == 0
    if left and not none_supported:
        return answer, False
    if left:  # unsupported="flag": the markers stayed, each marked unverified
        note = UNVERIFIED_NOTE
    elif checked is not None and checked.unsupported:
        note = REMOVED_NOTE
    else:
        note = UNCITED_NOTE
    ctx.warn("unsupported_answer", "No citation of the answer is supported by its sources; "
             "it is flagged and followed by the passages to check it against")
    return flag_answer(answer, question, sources, note), True
