"""Hybrid retrieval: BM25 and dense vectors, fused by rank.

A collection becomes dense when it is added with ``--dense`` (``search.dense``): its
chunks are embedded with a local sentence-transformers model and the vectors kept in
the same SQLite file. From then on every ``add`` embeds the new chunks too, and every
search fuses the BM25 ranking with the vector ranking by reciprocal rank fusion, so a
passage that says the same thing in other words can still be found. Without the
embeddings extra such a collection is still searchable: BM25 only, with a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace

from deepcite.collections.index.embeddings import embed_pending, load_encoder
from deepcite.collections.index.fusion import reciprocal_rank_fusion
from deepcite.collections.index.retrieval import Hit, hits_by_ids
from deepcite.collections.index.sqlite_index import Index
from deepcite.collections.index.vectors import VectorStore
from deepcite.config import Settings
from deepcite.errors import CollectionError, mapped_errors

logger = logging.getLogger(__name__)

POOL_FACTOR = 4
"""Each ranking contributes ``k * POOL_FACTOR`` candidates to the fusion."""


MODEL_KEY = "embedding_model"


def is_dense(index: Index, *, searching: bool = False) -> bool:
    """Whether the collection has embeddings (it was added with ``--dense``).

    ``searching``: asked by a search, through the thread's reused read connection.
    """
    model = index.read_meta(MODEL_KEY) if searching else index.get_meta(MODEL_KEY)
    return model is not None


def embed_collection(index: Index, settings: Settings, *, reembed: bool = False,
                     progress: Callable[[int, int], None] | None = None) -> int:
    """Embed every chunk that has no vector yet; returns how many were embedded."""
    encoder = load_encoder(settings.search.dense_model)
    if reembed:
        VectorStore(index.path, encoder.fingerprint, encoder.dim,
                    chunk_table="chunks").reset()
    with index.connect() as conn:
        ids = [int(row[0]) for row in conn.execute("SELECT id FROM chunks ORDER BY id")]

    def texts(batch: Sequence[int]) -> list[str]:
        with index.connect() as conn:
            marks = ",".join("?" * len(batch))
            found = dict(conn.execute(f"SELECT id, text FROM chunks WHERE id IN ({marks})",
                                      list(batch)).fetchall())
        return [str(found.get(i, "")) for i in batch]

    return embed_pending(index.path, encoder, texts, ids, progress, chunk_table="chunks")


def hybrid_search(index: Index, question: str, k: int, settings: Settings) -> list[Hit]:
    """BM25 and vector rankings fused by RRF; BM25 alone when the extra is missing."""
    pool = max(k * POOL_FACTOR, k)
    lexical = index.search(question, pool)
    try:
        encoder = load_encoder(settings.search.dense_model)
        store = VectorStore(index.path, encoder.fingerprint, encoder.dim)
        dense = store.search(encoder.encode([question])[0], pool)
    except CollectionError as exc:
        logger.warning("dense search unavailable, using BM25 only: %s", exc)
        return lexical[:k]
    fused = reciprocal_rank_fusion([[h.chunk_id for h in lexical], [i for i, _ in dense]],
                                   limit=k, repeats="best")
    known = {h.chunk_id: h for h in lexical}
    missing = [i for i, _ in fused if i not in known]
    if missing:
        with index.connect() as conn, \
                mapped_errors("collection", f"{index.path}: cannot read chunks"):
            known.update((h.chunk_id, h) for h in hits_by_ids(conn, missing))
    return [_rescored(known[i], score) for i, score in fused if i in known]


def _rescored(hit: Hit, score: float) -> Hit:
    return replace(hit, score=score)
