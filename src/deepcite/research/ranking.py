"""Merging the results of many queries into one ranked list.

Scores from different queries (and engines) are not comparable, ranks are; reciprocal
rank fusion (:func:`deepcite.collections.index.fusion.reciprocal_rank_fusion`, shared
with hybrid collection search) rewards passages that several queries found near the
top. A page found by several engines counts once; the first copy is kept, with the full
text a later copy brought when it had none.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.collections.index.fusion import RRF_K, reciprocal_rank_fusion
from deepcite.search.urls import canonical_url
from deepcite.types import SearchResult


def passage_key(result: SearchResult) -> tuple[str, str]:
    """What counts as the same passage: a web page is one passage whatever engine or
    snippet found it; a local document has many (its chunks)."""
    url = canonical_url(result.url)
    if url.startswith("file:"):
        return url, " ".join(result.snippet.split())
    return url, ""


def _with_full_text(kept: SearchResult, other: SearchResult) -> SearchResult:
    """The copy kept, given the full text a later copy of the same passage brought."""
    if kept.full_text is None and other.full_text:
        return kept.model_copy(update={"full_text": other.full_text})
    return kept


def fuse(result_lists: Sequence[Sequence[SearchResult]], limit: int) -> list[SearchResult]:
    """The ``limit`` best distinct passages across lists, best first.

    Passages are the same by :func:`passage_key`. A passage listed twice in one list
    (an engine that returns one page at two positions, say two of its sections under
    one canonical URL) counts at each of them (``repeats="every"``), where hybrid
    collection search counts a chunk once per ranking.
    """
    fused = reciprocal_rank_fusion(result_lists, RRF_K, limit, key=passage_key,
                                   repeats="every", merge=_with_full_text)
    return [result for result, _ in fused]
