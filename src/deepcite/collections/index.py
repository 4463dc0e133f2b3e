"""The SQLite file behind one collection: documents, chunks and an FTS5 (BM25) index.

One file per collection keeps collections portable and independent. The FTS5 table is
an external-content index over ``chunks`` (kept in sync by triggers), so chunk text is
stored once. WAL mode lets searches read while an ``add`` writes, and every file is
written in its own transaction, so an interrupted ``add`` leaves a usable index with
the files done so far.

Connections are never shared: each operation opens its own and closes it, because
searches run from several threads at once and a ``sqlite3.Connection`` must not be
used by two threads concurrently.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from deepcite.collections.chunking import Chunk
from deepcite.collections.query import build_match_query
from deepcite.errors import CollectionError

SCHEMA_VERSION = "1"
TITLE_WEIGHT = 2.0
"""BM25 weight of the title column relative to the chunk text (1.0)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime REAL NOT NULL,
    chunks INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY,
    doc_id INTEGER NOT NULL REFERENCES documents(id),
    ord INTEGER NOT NULL,
    text TEXT NOT NULL,
    title TEXT NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    page INTEGER,
    heading TEXT
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, title, content='chunks', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, title) VALUES (new.id, new.text, new.title);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, title)
    VALUES ('delete', old.id, old.text, old.title);
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, title)
    VALUES ('delete', old.id, old.text, old.title);
    INSERT INTO chunks_fts(rowid, text, title) VALUES (new.id, new.text, new.title);
END;
"""

_SEARCH_SQL = f"""
SELECT c.id, c.text, c.start, c."end", c.page, c.heading,
       d.title, d.path, d.kind, bm25(chunks_fts, 1.0, {TITLE_WEIGHT}) AS rank
FROM chunks_fts
JOIN chunks AS c ON c.id = chunks_fts.rowid
JOIN documents AS d ON d.id = c.doc_id
WHERE chunks_fts MATCH ?
ORDER BY rank
LIMIT ?
"""


@dataclass(frozen=True)
class DocumentRecord:
    """What the index stores about one file (``path`` is absolute and resolved)."""

    path: str
    title: str
    kind: str
    sha256: str
    size: int
    mtime: float


@dataclass(frozen=True)
class StoredDocument:
    """A document row as read back, enough to decide whether a file changed."""

    id: int
    path: str
    sha256: str
    chunks: int


@dataclass(frozen=True)
class Hit:
    """One matching chunk; ``score`` is the negated BM25 rank, higher is better."""

    chunk_id: int
    text: str
    start: int
    end: int
    page: int | None
    heading: str | None
    title: str
    path: str
    kind: str
    score: float


class Index:
    """Access to one collection's SQLite file; holds no open connection between calls."""

    def __init__(self, path: Path) -> None:
        self.path = path

    # --------------------------------------------------------------- lifecycle

    @classmethod
    def create(cls, path: Path, name: str) -> Index:
        """Create the file and schema (or open it when it already exists)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        index = cls(path)
        try:
            with closing(index._raw_connect(create=True)) as conn:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
                now = str(time.time())
                for key, value in (("schema_version", SCHEMA_VERSION), ("name", name),
                                   ("created", now), ("updated", now)):
                    conn.execute(
                        "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (key, value)
                    )
        except sqlite3.Error as exc:
            raise CollectionError(f"{path}: cannot create collection ({exc})") from exc
        index.check()
        return index

    def check(self) -> None:
        """Raise :class:`CollectionError` unless the file is a deepcite collection."""
        if not self.path.is_file():
            raise CollectionError(f"No collection file at {self.path}")
        try:
            version = self.get_meta("schema_version")
        except sqlite3.Error as exc:
            raise CollectionError(f"{self.path}: not a deepcite collection ({exc})") from exc
        if version != SCHEMA_VERSION:
            raise CollectionError(
                f"{self.path}: unsupported collection format {version!r}; "
                f"re-create it with `deepcite collection add`"
            )

    def _raw_connect(self, *, create: bool = False) -> sqlite3.Connection:
        mode = "rwc" if create else "rw"
        conn = sqlite3.connect(
            f"{self.path.resolve().as_uri()}?mode={mode}",
            uri=True,
            timeout=30.0,
            isolation_level=None,
            check_same_thread=True,
        )
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A fresh autocommit connection, closed on exit; use :meth:`transaction` to write."""
        conn = self._raw_connect()
        try:
            yield conn
        finally:
            conn.close()

    @staticmethod
    @contextmanager
    def transaction(conn: sqlite3.Connection) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error or interrupt."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # --------------------------------------------------------------------- meta

    def get_meta(self, key: str) -> str | None:
        """A value from the ``meta`` table."""
        with self.connect() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
        """Set a ``meta`` value on an open connection."""
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # --------------------------------------------------------------- documents

    def documents(self) -> dict[str, StoredDocument]:
        """Every indexed document by path."""
        with self.connect() as conn:
            rows = conn.execute("SELECT id, path, sha256, chunks FROM documents").fetchall()
        return {row[1]: StoredDocument(row[0], row[1], row[2], row[3]) for row in rows}

    def counts(self) -> tuple[int, int]:
        """``(documents, chunks)``."""
        with self.connect() as conn:
            docs = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
            chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return int(docs), int(chunks)

    def put_document(
        self, conn: sqlite3.Connection, record: DocumentRecord, chunks: Sequence[Chunk]
    ) -> None:
        """Insert or replace one document and its chunks in a single transaction."""
        with self.transaction(conn):
            self._delete_chunks(conn, record.path)
            conn.execute(
                "INSERT INTO documents(path, title, kind, sha256, size, mtime, chunks) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
                "title = excluded.title, kind = excluded.kind, sha256 = excluded.sha256, "
                "size = excluded.size, mtime = excluded.mtime, chunks = excluded.chunks",
                (record.path, record.title, record.kind, record.sha256, record.size,
                 record.mtime, len(chunks)),
            )
            doc_id = conn.execute(
                "SELECT id FROM documents WHERE path = ?", (record.path,)
            ).fetchone()[0]
            conn.executemany(
                'INSERT INTO chunks(doc_id, ord, text, title, start, "end", page, heading) '
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(doc_id, n, c.text, record.title, c.start, c.end, c.page, c.heading)
                 for n, c in enumerate(chunks)],
            )
            self.set_meta(conn, "updated", str(time.time()))

    def delete_document(self, conn: sqlite3.Connection, path: str) -> None:
        """Remove one document and its chunks in a single transaction."""
        with self.transaction(conn):
            self._delete_chunks(conn, path)
            conn.execute("DELETE FROM documents WHERE path = ?", (path,))
            self.set_meta(conn, "updated", str(time.time()))

    @staticmethod
    def _delete_chunks(conn: sqlite3.Connection, path: str) -> None:
        # Explicit delete (not ON DELETE CASCADE) so the FTS delete trigger always fires.
        conn.execute(
            "DELETE FROM chunks WHERE doc_id IN (SELECT id FROM documents WHERE path = ?)",
            (path,),
        )

    # ------------------------------------------------------------------ search

    def search(self, question: str, k: int) -> list[Hit]:
        """The ``k`` best chunks for ``question``; ``[]`` when it has no searchable terms.

        Opens its own connection, so it is safe to call from several threads at once.
        """
        match = build_match_query(question)
        if match is None or k <= 0:
            return []
        with self.connect() as conn:
            rows = conn.execute(_SEARCH_SQL, (match, k)).fetchall()
        return [
            Hit(chunk_id=row[0], text=row[1], start=row[2], end=row[3], page=row[4],
                heading=row[5], title=row[6], path=row[7], kind=row[8], score=-float(row[9]))
            for row in rows
        ]
