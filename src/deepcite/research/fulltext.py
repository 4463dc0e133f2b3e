"""Adding page text to web results, when the user asked for it.

Snippets are short; with ``search.fetch_full_text`` the pages behind web results are
downloaded (concurrently, bounded, through the egress policy) and their main text
kept as ``full_text``. A page that cannot be fetched keeps its snippet and the user
gets a warning; cancellation stops further downloads.
"""

from __future__ import annotations

from deepcite.research.context import RunContext
from deepcite.types import SearchResult


def add_full_text(ctx: RunContext, result_lists: list[list[SearchResult]]
                  ) -> list[list[SearchResult]]:
    """Each list with ``full_text`` filled in for fetchable web pages (one batch)."""
    if not ctx.settings.search.fetch_full_text:
        return result_lists
    results = [r for results in result_lists for r in results]
    wanted = list(dict.fromkeys(
        r.url for r in results if r.full_text is None and r.url.startswith(("http://",
                                                                             "https://"))))
    if not wanted:
        return result_lists
    # Loaded with the first page to fetch: a run over collections alone needs no HTTP
    # client (httpx costs an offline ask about a tenth of a second).
    from deepcite.search.fetch import fetch_many

    outcomes = fetch_many(wanted, ctx.settings, concurrency=ctx.settings.search.concurrency,
                          should_stop=lambda: ctx.cancel.cancelled)
    texts = {o.url: o.text for o in outcomes if o.text}
    for outcome in outcomes:
        if outcome.error and outcome.error != "cancelled":
            ctx.warn("fetch_failed", f"Could not fetch {outcome.url}: {outcome.error}")
    return [[r.model_copy(update={"full_text": texts[r.url]}) if r.url in texts else r
             for r in results] for results in result_lists]
