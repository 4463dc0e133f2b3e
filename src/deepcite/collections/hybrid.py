"""Fusing several rankings of the same chunks into one (BM25 + dense retrieval)."""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 60
"""The usual RRF constant (Cormack et al., 2009); larger values flatten the head of each list."""


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[int]], k: int = RRF_K, limit: int | None = None
) -> list[tuple[int, float]]:
    """Merge rankings of chunk ids into one, best first, as ``(chunk_id, fused_score)``.

    Reciprocal rank fusion scores each chunk as the sum over the rankings that contain it
    of ``1 / (k + rank)``, with ``rank`` starting at 1. It looks only at positions, never
    at the engines' own scores, and that is why it is used here: a BM25 score is an
    unbounded, query-dependent sum of term weights while a cosine similarity lies in
    [-1, 1], so neither can be put on the other's scale without tuning per collection,
    whereas "third in both lists" means the same thing for both. ``k`` keeps one list's
    top hit from drowning out agreement between lists; 60 is the value from the paper
    and works well without tuning.

    A chunk listed twice in one ranking counts only at its best position there. Ties
    are broken by first appearance (ranking order, then position), so the result is
    deterministic. ``limit`` cuts the fused list; ``None`` keeps every chunk.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    scores: dict[int, float] = {}
    for ranking in rankings:
        seen: set[int] = set()
        for position, chunk_id in enumerate(ranking, start=1):
            if chunk_id in seen:
                continue
            seen.add(chunk_id)
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (k + position)
    # sorted() is stable, so equal scores keep the order of first appearance.
    fused = sorted(scores.items(), key=lambda item: -item[1])
    return fused if limit is None else fused[: max(limit, 0)]
