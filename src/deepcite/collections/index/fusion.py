"""Reciprocal rank fusion: several rankings of the same things merged into one, by rank.

The one implementation for the whole project: hybrid collection search fuses the BM25
and the vector ranking of chunk ids (:mod:`.dense`), passage ranking fuses lexical and
dense rankings of a document's passages (``materials.passage_rank``), and research
fuses the result lists of many queries and engines (``research.ranking.fuse``). They
differ only in what counts as "the same" item and in what an item listed twice in one
ranking is worth, so both are parameters here, spelled out by every caller.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Literal, TypeVar, cast

__all__ = ["RRF_K", "Repeats", "reciprocal_rank_fusion"]

T = TypeVar("T")

RRF_K = 60
"""The usual RRF constant (Cormack et al., 2009); larger values flatten the head of each list."""

Repeats = Literal["best", "every"]
"""What an item listed more than once in one ranking scores there: ``"best"`` - only its
first (best) position counts; ``"every"`` - each listing adds its own ``1 / (k + rank)``."""


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[T]],
    k: int = RRF_K,
    limit: int | None = None,
    *,
    key: Callable[[T], Hashable] | None = None,
    repeats: Repeats = "best",
    merge: Callable[[T, T], T] | None = None,
) -> list[tuple[T, float]]:
    """Merge rankings into one, best first, as ``(item, fused_score)``.

    Reciprocal rank fusion scores each item as the sum over the rankings that contain it
    of ``1 / (k + rank)``, with ``rank`` starting at 1. It looks only at positions, never
    at the engines' own scores, and that is why it is used: a BM25 score is an
    unbounded, query-dependent sum of term weights while a cosine similarity lies in
    [-1, 1], so neither can be put on the other's scale without tuning per collection,
    whereas "third in both lists" means the same thing for both. ``k`` keeps one list's
    top hit from drowning out agreement between lists; 60 is the value from the paper
    and works well without tuning.

    Duplicates, made explicit: items are the same when ``key`` gives the same value
    (the item itself when ``key`` is ``None``); ``repeats`` says what a second listing
    in the same ranking is worth (see :data:`Repeats`). The first copy met is the one
    returned; ``merge(kept, other)``, when given, is called with every later copy and
    its result kept instead, so a caller can take what a later copy adds. Ties are
    broken by first appearance (ranking order, then position), so the result is
    deterministic. ``limit`` cuts the fused list; ``None`` keeps every item.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    scores: dict[Hashable, float] = {}
    kept: dict[Hashable, T] = {}
    for ranking in rankings:
        seen: set[Hashable] = set()
        for position, item in enumerate(ranking, start=1):
            identity = cast(Hashable, item) if key is None else key(item)
            if identity in kept:
                if merge is not None:
                    kept[identity] = merge(kept[identity], item)
            else:
                kept[identity] = item
            if repeats == "best" and identity in seen:
                continue
            seen.add(identity)
            scores[identity] = scores.get(identity, 0.0) + 1.0 / (k + position)
    # sorted() is stable, so equal scores keep the order of first appearance.
    fused = sorted(scores.items(), key=lambda entry: -entry[1])
    if limit is not None:
        fused = fused[: max(limit, 0)]
    return [(kept[identity], score) for identity, score in fused]
