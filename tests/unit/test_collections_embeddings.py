"""Dense retrieval storage, incremental embedding and rank fusion, with a fake encoder.

The fake hashes words into 32 buckets, so texts sharing words get similar vectors; that
is enough to check ordering without loading a real model (see the integration test).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from deepcite.collections.index import vectors
from deepcite.collections.index.embeddings import (
    EXTRA_MISSING,
    MODEL_SETTING,
    REEMBED_FLAG,
    Encoder,
    VectorStore,
    default_model_path,
    embed_pending,
    load_encoder,
)
from deepcite.collections.index.fusion import reciprocal_rank_fusion
from deepcite.errors import CollectionError

TEXTS = {
    1: "the cat sat on the mat",
    2: "dogs bark at the postman",
    3: "quarterly revenue grew by four percent",
    4: "the cat chased a mouse across the mat",
    5: "interest rates and inflation in europe",
}


class FakeEncoder:
    """Bag of words hashed into ``dim`` buckets, L2-normalised; deterministic."""

    def __init__(self, dim: int = 32, name: str = "fake") -> None:
        self._dim, self._name, self.calls = dim, name, 0

    @property
    def model_id(self) -> str:
        return f"/models/{self._name}"

    @property
    def fingerprint(self) -> str:
        return f"{self._name}-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> NDArray[np.float32]:
        self.calls += 1
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                bucket = int(hashlib.sha256(word.encode()).hexdigest(), 16) % self._dim
                out[row, bucket] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.where(norms == 0, 1, norms)).astype(np.float32)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A collection-like file: a ``chunks`` table and WAL, as the real index has."""
    path = tmp_path / "c.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE chunks(id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        conn.executemany("INSERT INTO chunks(id, text) VALUES (?, ?)", TEXTS.items())
    return path


def fetch(db: Path) -> Callable[[Sequence[int]], list[str]]:
    """What the collection code passes to ``embed_pending``: texts of ids, in order."""

    def fetch_texts(ids: Sequence[int]) -> list[str]:
        with sqlite3.connect(db) as conn:
            by_id = dict(conn.execute(
                f"SELECT id, text FROM chunks WHERE id IN ({','.join('?' * len(ids))})", ids
            ).fetchall())
        return [by_id[i] for i in ids]
    return fetch_texts


def store_for(db: Path, enc: FakeEncoder, **kw: str) -> VectorStore:
    return VectorStore(db, enc.fingerprint, enc.dim, model_path=enc.model_id, **kw)


def filled(db: Path, enc: FakeEncoder) -> VectorStore:
    embed_pending(db, enc, fetch(db), list(TEXTS))
    return store_for(db, enc)


def test_search_ranks_by_cosine(db: Path) -> None:
    enc = FakeEncoder()
    store = filled(db, enc)
    assert store.count() == len(TEXTS)
    hits = store.search(enc.encode(["a cat on a mat"])[0], k=3)
    assert [i for i, _ in hits][:2] == [1, 4]
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True) and len(hits) == 3
    assert hits[0][1] == pytest.approx(float(enc.encode([TEXTS[1]])[0] @
                                             enc.encode(["a cat on a mat"])[0]), abs=1e-6)
    assert store.search(enc.encode(["cat"])[0], k=0) == []


def test_search_across_blocks_matches_brute_force(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "BLOCK_ROWS", 7)
    rng = np.random.default_rng(1)
    matrix = rng.standard_normal((100, 16)).astype(np.float32)
    matrix[[10, 20, 30]] = matrix[5]  # exact ties: smaller id first
    store = VectorStore(db, "rand", 16)
    store.add(list(range(100)), matrix)
    query = matrix[5]
    normed = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    scores = normed @ (query / np.linalg.norm(query))
    expected = sorted(range(100), key=lambda i: (-round(float(scores[i]), 5), i))[:9]
    assert [i for i, _ in store.search(query, 9)] == expected
    assert [i for i, _ in store.search(query, 4)] == [5, 10, 20, 30]


def test_remove_missing_and_reset(db: Path) -> None:
    enc = FakeEncoder()
    store = store_for(db, enc)
    assert store.count() == 0 and store.missing([3, 1, 3]) == [3, 1]
    assert store.search(enc.encode(["cat"])[0], 5) == []
    store.remove([1])  # no table yet: nothing to do
    store = filled(db, enc)
    store.remove([1, 4, 99])
    assert store.count() == 3
    assert store.missing([5, 4, 1, 2]) == [4, 1]
    assert {i for i, _ in store.search(enc.encode(["cat mat"])[0], 10)} == {2, 3, 5}
    store.reset()
    assert store.count() == 0
    other = FakeEncoder(name="other")
    store_for(db, other).add([1], other.encode(["x"]))  # a new model is accepted after reset


def test_embed_pending_is_incremental(db: Path) -> None:
    enc = FakeEncoder()
    seen: list[tuple[int, int]] = []
    assert embed_pending(db, enc, fetch(db), [1, 2, 3], lambda d, t: seen.append((d, t)),
                         batch_size=2) == 3
    assert seen == [(2, 3), (3, 3)]
    calls = enc.calls
    assert embed_pending(db, enc, fetch(db), [1, 2, 3]) == 0 and enc.calls == calls
    assert embed_pending(db, enc, fetch(db), list(TEXTS)) == 2
    assert store_for(db, enc).count() == 5
    assert embed_pending(db, enc, lambda ids: [], []) == 0


def test_embed_pending_rejects_short_fetch(db: Path) -> None:
    with pytest.raises(CollectionError, match="asked for the text of 2 chunks, got 1"):
        embed_pending(db, FakeEncoder(), lambda ids: ["one"], [1, 2])


@pytest.mark.parametrize("other", [FakeEncoder(name="other"), FakeEncoder(dim=16)])
def test_refuses_to_mix_models(db: Path, other: FakeEncoder) -> None:
    filled(db, FakeEncoder())
    store = store_for(db, other)
    for call in (
        lambda: store.add([9], other.encode(["x"])),
        lambda: store.search(other.encode(["cat"])[0], 3),
        lambda: store.missing([1]),
        lambda: embed_pending(db, other, fetch(db), [1]),
    ):
        with pytest.raises(CollectionError) as err:
            call()
        message = str(err.value)
        assert "\n" not in message and REEMBED_FLAG in message and "fake-32" in message
    assert store_for(db, FakeEncoder()).count() == len(TEXTS)  # nothing was written


def test_meta_records_model(db: Path) -> None:
    filled(db, FakeEncoder())
    with sqlite3.connect(db) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    assert meta["embedding_model"] == "fake-32" and meta["embedding_dim"] == "32"


def test_shape_errors(db: Path) -> None:
    store = VectorStore(db, "m", 4)
    with pytest.raises(ValueError, match="expected 2 x 4"):
        store.add([1, 2], np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="expected 4"):
        store.search(np.zeros(5, dtype=np.float32), 1)
    with pytest.raises(ValueError):
        VectorStore(db, "m", 4, chunk_table="chunks; DROP TABLE chunks")


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CollectionError, match="no such collection file"):
        VectorStore(tmp_path / "nope.sqlite", "m", 4).count()
    assert not (tmp_path / "nope.sqlite").exists()


def test_trigger_drops_vectors_of_deleted_chunks(db: Path) -> None:
    enc = FakeEncoder()
    assert embed_pending(db, enc, fetch(db), [1, 2], chunk_table="chunks") == 2
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM chunks WHERE id = 2")
        conn.execute("INSERT INTO chunks(id, text) VALUES (2, 'a reused id')")
    assert store_for(db, enc).missing([1, 2]) == [2]
    store_for(db, enc).reset()  # emptied, not dropped: the trigger still has its table
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM chunks WHERE id = 1")


def test_concurrent_searches(db: Path) -> None:
    enc = FakeEncoder()
    store = filled(db, enc)
    queries = [enc.encode([t])[0] for t in TEXTS.values()] * 8
    expected = [store.search(q, 3) for q in queries]
    start = threading.Barrier(8)

    def rewrite() -> None:
        for i, text in TEXTS.items():
            store.add([i], enc.encode([text]))

    def search(q: NDArray[np.float32]) -> list[tuple[int, float]]:
        start.wait(timeout=10)  # all threads hit SQLite at the same moment
        return store.search(q, 3)

    with ThreadPoolExecutor(9) as pool:
        # A writer re-storing the same vectors meanwhile must not disturb the readers.
        writer = pool.submit(rewrite)
        got = list(pool.map(search, queries[:8]))
        got += [store.search(q, 3) for q in queries[8:]]
        writer.result()
    assert got == expected


def test_rrf_math() -> None:
    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 1, 4]], k=60)
    scores = dict(fused)
    assert scores[1] == pytest.approx(1 / 61 + 1 / 62)
    assert scores[3] == pytest.approx(1 / 63 + 1 / 61)
    assert scores[2] == pytest.approx(1 / 62) and scores[4] == pytest.approx(1 / 63)
    assert [i for i, _ in fused] == [1, 3, 2, 4]
    assert reciprocal_rank_fusion([[1, 2, 3], [3, 1, 4]], limit=2) == fused[:2]


def test_rrf_ties_duplicates_and_edges() -> None:
    # 7 and 8 both score 1/(k+1): the first to appear wins.
    assert [i for i, _ in reciprocal_rank_fusion([[7], [8]])] == [7, 8]
    assert [i for i, _ in reciprocal_rank_fusion([[8], [7]])] == [8, 7]
    assert dict(reciprocal_rank_fusion([[5, 5, 6]], k=0)) == {5: 1.0, 6: 1 / 3}
    assert reciprocal_rank_fusion([]) == [] and reciprocal_rank_fusion([[], []]) == []
    assert reciprocal_rank_fusion([[1, 2]], limit=0) == []
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([[1]], k=-1)


def test_rrf_duplicate_handling_is_the_callers_choice() -> None:
    """Research's fusion counts each listing and keys items; hybrid search counts one."""
    assert dict(reciprocal_rank_fusion([[5, 5, 6]], k=0, repeats="every")) == {
        5: 1.0 + 1 / 2, 6: 1 / 3}
    # Items are the same by key; the first copy is kept, merge sees every later one.
    seen: list[tuple[str, str]] = []

    def merge(kept: str, other: str) -> str:
        seen.append((kept, other))
        return kept

    fused = reciprocal_rank_fusion([["a1", "b1"], ["B2", "A2"]], k=0,
                                   key=lambda item: item[0].lower(), merge=merge)
    assert [item for item, _ in fused] == ["a1", "b1"]
    assert fused[0][1] == pytest.approx(1 + 1 / 2) and seen == [("b1", "B2"), ("a1", "A2")]


def test_missing_extra_is_explained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "modules.json").write_text("[]")
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(CollectionError) as err:
        Encoder(tmp_path)
    assert str(err.value) == EXTRA_MISSING and "deepcite[embeddings]" in EXTRA_MISSING
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(CollectionError, match=re.escape(EXTRA_MISSING)):
        VectorStore(tmp_path / "x", "m", 4).search(np.zeros(4, dtype=np.float32), 1)


def test_missing_bundled_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    assert default_model_path() is None
    with pytest.raises(CollectionError, match=re.escape(EXTRA_MISSING)):
        load_encoder()


def test_missing_model_path_names_setting(tmp_path: Path) -> None:
    with pytest.raises(CollectionError) as err:
        load_encoder(tmp_path / "no-model")
    assert str(tmp_path / "no-model") in str(err.value) and MODEL_SETTING in str(err.value)
