"""Steps every strategy takes the same way: searching an iteration's queries, choosing
and numbering what was found, telling the user how the cited answer was repaired, and
flagging an answer that verification left unbacked. One place, so that events, search
accounting, budgets, the relevance filter and warnings cannot drift apart between
strategies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deepcite.citations.answer import flag_answer
from deepcite.citations.cited_answer import CitedAnswer
from deepcite.citations.markers import cited_numbers
from deepcite.citations.question_match import Similarity
from deepcite.citations.supported_first import supported_first
from deepcite.citations.verify import Verification
from deepcite.research.context import RunContext
from deepcite.research.fulltext import add_full_text
from deepcite.research.parallel import run_searches
from deepcite.research.ranking import fuse
from deepcite.research.relevance_filter import filter_relevant
from deepcite.types import Finding, QuestionsGenerated, SearchResult, Source

#: The flag under a labelled guess no source supports (the forced handler's).
GUESS_NOTE = "Unverified: the sources support none of this answer"


def search_allowance(ctx: RunContext, wanted: int) -> int:
    """How many of ``wanted`` queries the search budget still allows (all engines each),
    reserved at once: pass that many to :func:`search_iteration`, which gives back the
    searches that do not run."""
    return ctx.budget.reserve_searches(wanted, per_query=len(ctx.engines))


def search_iteration(ctx: RunContext, iteration: int,
                     queries: Sequence[str]) -> list[list[SearchResult]]:
    """Announce and run one iteration's searches; the non-empty result lists, with full
    text added when the user asked for it."""
    ctx.emit(QuestionsGenerated(iteration=iteration, questions=list(queries)))
    ctx.phase("search", iteration)
    outcomes = run_searches(
        queries, ctx.engines, max_results=ctx.settings.search.max_results,
        concurrency=ctx.settings.search.concurrency, cancel=ctx.cancel,
    )
    done = ctx.record_searches(iteration, outcomes)
    ctx.budget.refund_searches(len(queries) * max(1, len(ctx.engines)) - done)
    return add_full_text(ctx, [o.results for o in outcomes if o.results])


def relevance_steps(ctx: RunContext) -> int:
    """The progress steps the relevance filter adds to a plan (one when it is on)."""
    return 1 if ctx.settings.research.relevance_filter else 0


def select_sources(ctx: RunContext, question: str,
                   result_lists: Sequence[Sequence[SearchResult]]) -> list[Source]:
    """The run's sources: the best results fused, kept by the relevance filter when it
    is on (and a model call is left for the answer), then numbered."""
    best = fuse([list(found) for found in result_lists], ctx.settings.research.max_sources)
    if ctx.settings.research.relevance_filter and len(best) > 1 \
            and not ctx.cancel.cancelled and ctx.budget_left(model_calls=2):
        ctx.phase("relevance")
        best = filter_relevant(ctx, question, best)
    return ctx.register(best)


def iteration_findings(question: str, by_iteration: Mapping[int, list[str]]) -> list[Finding]:
    """One finding per iteration listing the queries it searched."""
    return [Finding(phase=f"iteration {i}", question=question, content="\n".join(queries))
            for i, queries in by_iteration.items()]


def report_answer(ctx: RunContext, cited: CitedAnswer, where: str = "") -> None:
    """Warn about every repair the citation checks made to the model's answer.

    ``where`` names the part of a longer answer the repair was made in ("for topic
    'Cache'"), so the user can find it.
    """
    place = f" {where}" if where else ""
    if cited.fallback:
        ctx.warn("synthesis_fallback", f"Model reply{place} not usable ({cited.fallback}); "
                 "answered with quoted passages")
    if cited.removed_markers:
        ctx.warn("invalid_citations", f"Removed {cited.removed_markers} citation(s){place} "
                 "to sources that do not exist")
    if "uncited" in cited.notes:
        ctx.warn("uncited_answer", f"The model cited no source{place}; passages were appended")


def flag_unsupported(ctx: RunContext, question: str, answer: str, sources: list[Source],
                     checked: Verification | None, *, attributed: int = 0,
                     keep_model_text: bool = True, similarity: Similarity | None = None,
                     guess: bool = False) -> tuple[str, bool]:
    """Replace ``answer`` when, after verification, none of its citations is supported.

    Runs for every strategy after verification, because that is where a wrong answer
    loses its only citations ("30 seconds [1]" where source 1 says 300): left leading,
    the now uncited sentence would read as the answer. The answer becomes the grounded
    one built from ``sources`` (or the honest not-found answer), with the model's text
    below a flag or left out (``keep_model_text``); see
    :func:`~deepcite.citations.supported_first.supported_first`, the one home of that
    rule. An answer that cites nothing at all is treated the same way. A ``guess`` (the
    forced handler's benchmark answer, labelled as one) is the exception: it stays first,
    flagged and followed by the passages to check it against.
    Citations that attribution added after verification (``attributed``) are support
    found by matching the sentence in its source, so they count as supported.
    Returns the answer and whether it was replaced.
    """
    if not sources:
        return answer, False
    left = cited_numbers(answer)
    none_supported = checked is not None and checked.unsupported > 0 \
        and checked.supported + checked.partial + checked.unchecked == 0 and not attributed
    if left and not none_supported:
        return answer, False
    # a source with no text (a stored material the history kept none of) has no
    # sentence to quote
    shown = [source for source in sources if source.text.strip()] or sources
    if guess:
        ctx.warn("unsupported_answer", "No citation of the answer is supported by its "
                 "sources; it is flagged and followed by the passages to check it against")
        return flag_answer(answer, question, shown, GUESS_NOTE), True
    ctx.warn("unsupported_answer", "No citation of the answer is supported by its sources; "
             "the answer is built from the sources' own sentences instead")
    return supported_first(answer, question, shown, keep_model_text=keep_model_text,
                           avoid=ctx.brief.avoid,
                           similarity=similarity), True
