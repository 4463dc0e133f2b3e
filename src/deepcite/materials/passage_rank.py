"""Which passages of a material a part is given: the ones relevant to that part.

Word overlap with the part's query fails exactly where materials matter most: a
Chinese paper answering an English question shares no word with it, so every passage
scores zero and the first ones win. The relevance map bridges the languages: the
analysis call writes each claim in the question's language *and* quotes the
material's own words as its ``evidence_excerpt``. So a passage is scored against the
part's **targets** - the excerpts and claims the part may use, then its query - and
the excerpt, in the material's language, finds the passage it was taken from. A
material without claims (fallback relevance) is scored against its summary, which is
written in its own language too, so its central passages come before its first ones.

With an encoder (the embeddings extra and ``search.dense`` on, see
:func:`load_passage_encoder`) the same targets are also embedded, and the lexical and
the dense rankings are fused by reciprocal rank, as hybrid collection search does.
Without it, or when it fails, the lexical ranking is used alone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from deepcite.errors import DeepciteError
from deepcite.materials.lexical import overlap_score

if TYPE_CHECKING:
    from deepcite.collections.index.embeddings import TextEncoder
    from deepcite.config import Settings

logger = logging.getLogger("deepcite.materials")

#: Weights of the target kinds: an excerpt is the material's own words, a claim says
#: what the part needs, the query only says what the part is about.
EXCERPT_WEIGHT = 1.0
CLAIM_WEIGHT = 0.5
QUERY_WEIGHT = 0.25
#: Characters of a summary used as a target when a material has no claims.
SUMMARY_TARGET_CHARS = 2_000


def lexical_ranking(passages: Sequence[str], *, excerpts: Sequence[str] = (),
                    claims: Sequence[str] = (), query: str = "") -> list[int]:
    """Indices of ``passages``, best first (ties: the earlier passage first)."""
    def best(targets: Sequence[str], text: str) -> float:
        return max((overlap_score(target, text) for target in targets if target), default=0.0)

    scores = [EXCERPT_WEIGHT * best(excerpts, text) + CLAIM_WEIGHT * best(claims, text)
              + QUERY_WEIGHT * overlap_score(query, text) for text in passages]
    return sorted(range(len(passages)), key=lambda i: (-scores[i], i))


def dense_ranking(encoder: TextEncoder, passages: Sequence[str],
                  targets: Sequence[str]) -> list[int]:
    """Indices of ``passages`` by their best cosine similarity to any target."""
    targets = [t for t in targets if t.strip()]
    if not passages or not targets:
        return list(range(len(passages)))
    vectors = encoder.encode(list(passages))
    wanted = encoder.encode(targets)
    best = (vectors @ wanted.T).max(axis=1)
    return sorted(range(len(passages)), key=lambda i: (-float(best[i]), i))


def rank_passages(passages: Sequence[str], *, excerpts: Sequence[str] = (),
                  claims: Sequence[str] = (), query: str = "",
                  encoder: TextEncoder | None = None) -> list[int]:
    """Indices of ``passages``, the most relevant to the targets first.

    Lexical alone without ``encoder``; with one, lexical and dense rankings fused by
    reciprocal rank. An encoder that fails is logged and the lexical ranking kept.
    """
    lexical = lexical_ranking(passages, excerpts=excerpts, claims=claims, query=query)
    if encoder is None:
        return lexical
    from deepcite.collections.index.fusion import reciprocal_rank_fusion

    try:
        dense = dense_ranking(encoder, passages, [*excerpts, *claims, query])
    except (DeepciteError, RuntimeError, ValueError) as exc:
        logger.warning("material passages ranked without embeddings: %s", exc)
        return lexical
    return [i for i, _ in reciprocal_rank_fusion([lexical, dense], repeats="best")]


def summary_target(summary: str) -> str:
    """The head of a material's summary, used as an excerpt-like target."""
    return summary[:SUMMARY_TARGET_CHARS]


def load_passage_encoder(settings: Settings) -> TextEncoder | None:
    """The sentence encoder when the user turned dense retrieval on (``search.dense``)
    and the embeddings extra can load it; ``None`` otherwise (lexical ranking).

    Gated on ``search.dense`` because loading the model costs seconds per process:
    the setting is the user's consent to that cost for better recall.
    """
    if not settings.search.dense:
        return None
    from deepcite.collections.index.embeddings import load_encoder

    try:
        return load_encoder(settings.search.dense_model)
    except DeepciteError as exc:
        logger.warning("material passages ranked without embeddings: %s", exc)
        return None
