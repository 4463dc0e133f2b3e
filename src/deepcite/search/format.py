"""Formatting search results for a prompt: deduplicated, fenced, cut to a token budget.

Each distinct document (by canonical URL) becomes one block - ``Source:``, ``URL:``,
the snippet and, when known, the full text cut to ``max_tokens_per_source`` with a
visible ``[truncated]`` mark - inside a ``<source>`` fence, because page text is data,
not instructions. Token counts are real when the model's tokenizer is passed in, else
estimated at four characters a token.

This is for callers that put search results into prompts of their own (scripts,
``bench/bench_search.py``). A research run does not use it: its answer prompt is built
by the citation step, which cuts every source to a share of the model's context
budget. So the cap is this function's argument, not a setting.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from deepcite.search.urls import canonical_url
from deepcite.security.fencing import fence
from deepcite.types import SearchResult

CHARS_PER_TOKEN = 4
TRUNCATED = "[truncated]"

TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """Four characters a token, rounded up: the estimate when no tokenizer is known."""
    return -(-len(text) // CHARS_PER_TOKEN)


def cut_to_tokens(text: str, max_tokens: int, count: TokenCounter | None = None) -> str:
    """``text`` cut at a word boundary to ``max_tokens``, marked when cut."""
    counter = count or estimate_tokens
    if counter(text) <= max_tokens:
        return text
    if count is None:
        cut = text[: max_tokens * CHARS_PER_TOKEN]
    else:
        low, high = 0, len(text)
        while low < high:  # longest prefix that fits, with O(log n) tokenizer calls
            middle = (low + high + 1) // 2
            if counter(text[:middle]) <= max_tokens:
                low = middle
            else:
                high = middle - 1
        cut = text[:low]
    if " " in cut[len(cut) // 2:]:
        cut = cut.rsplit(" ", 1)[0]
    return f"{cut.rstrip()} {TRUNCATED}"


def dedupe_results(results: Sequence[SearchResult]) -> list[SearchResult]:
    """One result per canonical URL, first wins (keeping a full text found later)."""
    kept: dict[str, SearchResult] = {}
    for result in results:
        key = canonical_url(result.url)
        first = kept.get(key)
        if first is None:
            kept[key] = result
        elif first.full_text is None and result.full_text:
            kept[key] = first.model_copy(update={"full_text": result.full_text})
    return list(kept.values())


def dedupe_and_format(results: Sequence[SearchResult], max_tokens_per_source: int,
                      count_tokens: TokenCounter | None = None) -> str:
    """The prompt text for ``results``: one fenced block per distinct document."""
    blocks = []
    for result in dedupe_results(results):
        lines = [f"Source: {result.title}", f"URL: {result.url}",
                 f"Most relevant content: {result.snippet}"]
        if result.full_text:
            body = cut_to_tokens(result.full_text, max_tokens_per_source, count_tokens)
            lines.append(f"Full content (up to {max_tokens_per_source} tokens): {body}")
        blocks.append(fence("\n".join(lines)))
    return "\n\n".join(blocks)
