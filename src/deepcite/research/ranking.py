"""Merging the results of many queries into one ranked list.

Scores from different queries (and engines) are not comparable, ranks are; reciprocal
rank fusion rewards passages that several queries found near the top.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.search.urls import canonical_url
from deepcite.types import SearchResult

RRF_K = 60


def fuse(result_lists: Sequence[Sequence[SearchResult]], limit: int) -> list[SearchResult]:
    """The ``limit`` best distinct passages across lists, best first."""
    scores: dict[tuple[str, str], float] = {}
    first: dict[tuple[str, str], SearchResult] = {}
    order: dict[tuple[str, str], int] = {}
    for results in result_lists:
        for rank, result in enumerate(results):
            key = (canonical_url(result.url), " ".join(result.snippet.split()))
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank + 1)
            first.setdefault(key, result)
            order.setdefault(key, len(order))
    ranked = sorted(scores, key=lambda k: (-scores[k], order[k]))
    return [first[key] for key in ranked[:limit]]
