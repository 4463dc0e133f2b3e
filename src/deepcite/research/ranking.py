"""Merging the results of many queries into one ranked list.

Scores from different queries (and engines) are not comparable, ranks are; reciprocal
rank fusion rewards passages that several queries found near the top. A page found
by several engines counts once; the first copy with a full text is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.search.urls import canonical_url
from deepcite.types import SearchResult

RRF_K = 60


def passage_key(result: SearchResult) -> tuple[str, str]:
    """What counts as the same passage: a web page is one passage whatever engine or
    snippet found it; a local document has many (its chunks)."""
    url = canonical_url(result.url)
    if url.startswith("file:"):
        return url, " ".join(result.snippet.split())
    return url, ""


def fuse(result_lists: Sequence[Sequence[SearchResult]], limit: int) -> list[SearchResult]:
    """The ``limit`` best distinct passages across lists, best first."""
    scores: dict[tuple[str, str], float] = {}
    first: dict[tuple[str, str], SearchResult] = {}
    order: dict[tuple[str, str], int] = {}
    for results in result_lists:
        for rank, result in enumerate(results):
            key = passage_key(result)
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank + 1)
            known = first.setdefault(key, result)
            if known.full_text is None and result.full_text:
                first[key] = known.model_copy(update={"full_text": result.full_text})
            order.setdefault(key, len(order))
    ranked = sorted(scores, key=lambda k: (-scores[k], order[k]))
    return [first[key] for key in ranked[:limit]]
