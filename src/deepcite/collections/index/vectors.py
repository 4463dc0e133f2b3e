"""Chunk vectors stored in the collection's SQLite file, searched by brute-force cosine.

A flat scan is exact, needs no index to keep in sync, and at 384 float32 dimensions
stays well under a second for 100k chunks on two cores - the size of collection deepcite
aims at - so an approximate-nearest-neighbour library would add a dependency and a
second file for no gain. Vectors are read in blocks so memory stays bounded whatever the
collection size.

Connections are never shared: each call opens its own, because searches run from several
threads and a ``sqlite3.Connection`` must not be used by two at once.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from deepcite.collections.file_access import sqlite_uri
from deepcite.errors import CollectionError, mapped_errors

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

EXTRA_MISSING = (
    "Dense retrieval needs the embeddings extra - run `pip install deepcite[embeddings]`"
)
REEMBED_FLAG = "--reembed"
"""The ``deepcite collection add`` flag that drops the vectors and embeds again."""
BLOCK_ROWS = 8192
"""Vectors scored per block: 8192 x 384 float32 is 12 MiB."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS chunk_vectors(chunk_id INTEGER PRIMARY KEY, vector BLOB NOT NULL);
"""
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _numpy() -> ModuleType:
    """numpy, imported on first use so that a base install can import this module."""
    try:
        import numpy
    except ImportError as exc:
        raise CollectionError(EXTRA_MISSING) from exc
    return numpy


class VectorStore:
    """The ``chunk_vectors`` table of one collection file, for one model.

    ``model`` (a content fingerprint, see ``Encoder.fingerprint``) and ``dim`` are written
    to ``meta`` with the first vectors; any later call with another model or size is
    refused, because vectors from two models are not comparable and would silently make
    the ranking meaningless.

    Chunk ids are the chunks table's rowids, which SQLite may hand out again after a
    delete; pass ``chunk_table`` so a trigger deletes a chunk's vector with the chunk and
    a reused id can never inherit a stale vector.
    """

    def __init__(
        self, db_path: Path, model: str, dim: int, *,
        model_path: str | None = None, chunk_table: str | None = None, chunk_id_column: str = "id",
    ) -> None:
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        for name in (chunk_table or "chunks", chunk_id_column):
            if not _IDENT.match(name):
                raise ValueError(f"not a plain SQL identifier: {name!r}")
        self.db_path, self.model, self.dim = db_path, model, dim
        self._model_path = model_path
        self._chunk_table, self._chunk_id = chunk_table, chunk_id_column

    # -------------------------------------------------------------- plumbing

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        if not self.db_path.is_file():
            raise CollectionError(f"{self.db_path}: no such collection file")
        with mapped_errors("collection", f"{self.db_path}: vector store error"), \
                closing(sqlite3.connect(  # read-only where the folder is (see .access)
                    sqlite_uri(self.db_path), uri=True, timeout=30.0,
                    isolation_level=None,
                )) as conn:
            yield conn

    @staticmethod
    def _has_table(conn: sqlite3.Connection) -> bool:
        row = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chunk_vectors'"
        ).fetchone()
        return row is not None

    def _check(self, conn: sqlite3.Connection) -> bool:
        """Raise on a model mismatch; ``True`` when the file already names a model."""
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone() is None:
            return False
        stored = dict(conn.execute(
            "SELECT key, value FROM meta WHERE key IN "
            "('embedding_model', 'embedding_dim', 'embedding_model_path')"
        ).fetchall())
        if "embedding_model" not in stored:
            return False
        if stored["embedding_model"] != self.model or stored.get("embedding_dim") != str(self.dim):
            raise CollectionError(
                f"{self.db_path.name}: its vectors come from model {stored['embedding_model']} "
                f"(dim {stored.get('embedding_dim')}, {stored.get('embedding_model_path')}) "
                f"but this run uses {self.model} (dim {self.dim}, {self._model_path}); "
                f"re-embed it with `deepcite collection add ... {REEMBED_FLAG}`"
            )
        return True

    def _create(self, conn: sqlite3.Connection) -> None:
        conn.executescript(_SCHEMA)
        if self._chunk_table:
            conn.execute(
                f"CREATE TRIGGER IF NOT EXISTS chunk_vectors_gc AFTER DELETE ON "
                f"{self._chunk_table} BEGIN DELETE FROM chunk_vectors "
                f"WHERE chunk_id = old.{self._chunk_id}; END"
            )

    # ------------------------------------------------------------------- API

    def add(self, chunk_ids: Sequence[int], vectors: NDArray[np.float32]) -> None:
        """Store (or replace) one vector per id, in one transaction; rows are re-normalised."""
        np = _numpy()
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape != (len(chunk_ids), self.dim):
            raise ValueError(f"expected {len(chunk_ids)} x {self.dim} vectors, got {matrix.shape}")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = np.ascontiguousarray(matrix / np.where(norms == 0, 1, norms), dtype=np.float32)
        with self._connect() as conn:
            self._create(conn)
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                if not self._check(conn):
                    conn.executemany(
                        "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                        [("embedding_model", self.model), ("embedding_dim", str(self.dim)),
                         ("embedding_model_path", self._model_path or "")],
                    )
                conn.executemany(
                    "INSERT OR REPLACE INTO chunk_vectors(chunk_id, vector) VALUES (?, ?)",
                    [(int(i), row.tobytes()) for i, row in zip(chunk_ids, matrix, strict=True)],
                )

    def remove(self, chunk_ids: Sequence[int]) -> None:
        """Drop the vectors of these chunks (ids without a vector are ignored)."""
        with self._connect() as conn:
            if self._has_table(conn):
                with conn:
                    conn.execute("BEGIN IMMEDIATE")
                    conn.executemany("DELETE FROM chunk_vectors WHERE chunk_id = ?",
                                     [(int(i),) for i in chunk_ids])

    def reset(self) -> None:
        """Forget every vector and the model they came from (what ``--reembed`` does).

        The table is emptied, not dropped, so the delete trigger stays valid.
        """
        with self._connect() as conn:
            if self._has_table(conn):
                with conn:
                    conn.execute("BEGIN IMMEDIATE")
                    conn.execute("DELETE FROM chunk_vectors")
                    conn.execute("DELETE FROM meta WHERE key LIKE 'embedding\\_%' ESCAPE '\\'")

    def missing(self, chunk_ids: Sequence[int]) -> list[int]:
        """Those of ``chunk_ids`` without a vector, in the given order (refuses a mismatch)."""
        with self._connect() as conn:
            self._check(conn)
            if not self._has_table(conn):
                return list(dict.fromkeys(chunk_ids))
            have = {row[0] for row in conn.execute("SELECT chunk_id FROM chunk_vectors")}
        return [i for i in dict.fromkeys(chunk_ids) if i not in have]

    def count(self) -> int:
        """How many chunks have a vector."""
        with self._connect() as conn:
            if not self._has_table(conn):
                return 0
            return int(conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0])

    def search(self, query_vector: NDArray[np.float32], k: int) -> list[tuple[int, float]]:
        """The ``k`` chunks most similar to ``query_vector``: ``(chunk_id, cosine)``, best first.

        Ties are broken by the smaller chunk id so the result is deterministic.
        """
        np = _numpy()
        query = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        if query.shape != (self.dim,):
            raise ValueError(f"query vector has {query.shape[0]} dimensions, expected {self.dim}")
        if k <= 0:
            return []
        norm = float(np.linalg.norm(query))
        query = query / norm if norm else query
        best_ids = np.zeros(0, dtype=np.int64)
        best_scores = np.zeros(0, dtype=np.float32)
        with self._connect() as conn:
            self._check(conn)
            if not self._has_table(conn):
                return []
            cursor = conn.execute("SELECT chunk_id, vector FROM chunk_vectors")
            while rows := cursor.fetchmany(BLOCK_ROWS):
                ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
                blob = b"".join(r[1] for r in rows)
                if len(blob) != len(rows) * self.dim * 4:
                    raise CollectionError(
                        f"{self.db_path.name}: stored vectors are not {self.dim}-dimensional; "
                        f"re-embed with {REEMBED_FLAG}"
                    )
                scores = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), self.dim) @ query
                best_ids = np.concatenate([best_ids, ids])
                best_scores = np.concatenate([best_scores, scores])
                # Sort by (score desc, id asc) and keep k: exact, ties included.
                keep = np.lexsort((best_ids, -best_scores))[:k]
                best_ids, best_scores = best_ids[keep], best_scores[keep]
        return [(int(i), float(s)) for i, s in zip(best_ids, best_scores, strict=True)]
