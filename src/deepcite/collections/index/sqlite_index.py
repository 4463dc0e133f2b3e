"""The SQLite file behind one collection: documents, chunks and an FTS5 (BM25) index.

One file per collection keeps collections portable and independent. The FTS5 table is
an external-content index over ``chunks`` (kept in sync by triggers), so chunk text is
stored once. WAL mode lets searches read while an ``add`` writes. An ``add`` commits
in batches (see :meth:`Index.batch`), each file inside its own savepoint, so an
interrupted ``add`` (a crash, Ctrl-C) leaves a usable index: Ctrl-C keeps every file
completed so far, a crash loses at most the last uncommitted second of work, and the
next ``add`` finishes the job.

Chinese, Japanese and Korean: FTS5's ``unicode61`` tokenizer does not segment CJK text
(a run of CJK characters becomes one token), so a word inside a sentence cannot be
found. Each chunk therefore also stores its CJK runs as overlapping character pairs
("bigrams": 自然语言 -> 自然 然语 语言) in an extra FTS column, and a question's CJK
runs are searched as the same pairs (see :mod:`deepcite.collections.index.cjk`). We chose
bigrams over a second FTS5 table with the ``trigram`` tokenizer because most Chinese
and many Japanese words are two characters long, and trigram matching cannot find
anything shorter than three; bigrams also cost nothing for text without CJK, while a
trigram index would roughly triple the index size of every collection. BM25 over
pairs is the classic approach to CJK retrieval without a dictionary (Lucene's
CJKAnalyzer), and needs no extra dependency or tokenizer extension.

Searching: questions without CJK go to a tantivy inverted index kept beside the file
(:mod:`deepcite.collections.index.inverted`), whose cost grows far slower than the collection;
CJK questions, and every question while that index is missing or behind the file, are
answered by FTS5 (:mod:`deepcite.collections.index.retrieval`, :mod:`.rerank`). Files
written by an older format are upgraded in place when opened (see
:mod:`deepcite.collections.index.schema`), in one transaction.

Connections are never shared between threads, because searches run from several at
once and a ``sqlite3.Connection`` must not be used by two concurrently. Writes open
their own connection and close it; searches reuse one per thread
(:mod:`deepcite.collections.index.readers`), which saves parsing the schema on every search.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from deepcite.collections import file_access
from deepcite.collections.chunking import Chunk
from deepcite.collections.index import inverted, readers, rerank, retrieval, schema, writes
from deepcite.collections.index.cjk import CJK_RUN, bigram_text, has_cjk
from deepcite.collections.index.retrieval import HEADING_SEPARATOR, Hit, split_heading_path
from deepcite.collections.paths import safe_text
from deepcite.errors import CollectionError

__all__ = ["INDEXER_VERSION", "DocumentRecord", "Hit", "Index", "StoredDocument",
           "split_heading_path"]

SCHEMA_VERSION = schema.SCHEMA_VERSION
TITLE_WEIGHT = schema.TITLE_WEIGHT
INDEXER_VERSION = 3
"""Version of what loaders and chunker make of a file; older documents are re-indexed by
the next add or re-index of their folder (even when the file is unchanged), so a change
to what a loader makes reaches indexes built before it. Bump it with every such change.
2: token-sized structural chunks with heading paths. 3: a PDF whose metadata title is a
placeholder ("untitled", "Microsoft Word - x.docx") is titled by its first line."""


@dataclass(frozen=True)
class DocumentRecord:
    """What the index stores about one file (``path`` is absolute and resolved).

    ``mtime_ns`` 0 means "do not trust the stat data": the file is hashed next time.
    """

    path: str
    title: str
    kind: str
    sha256: str
    size: int
    mtime: float
    mtime_ns: int = 0


@dataclass(frozen=True)
class StoredDocument:
    """A document row as read back, enough to decide whether a file changed."""

    id: int
    path: str
    sha256: str
    chunks: int
    size: int = -1
    mtime_ns: int = 0
    indexer: int = INDEXER_VERSION
    #: The file's modification time when indexed (seconds). Always recorded, unlike
    #: ``mtime_ns``, which is 0 for a file changed just before it was indexed.
    mtime: float = 0.0


class Index:
    """Access to one collection's SQLite file.

    Holds no connection itself; searches reuse their thread's read connection (see
    :mod:`~deepcite.collections.index.readers`).
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    # --------------------------------------------------------------- lifecycle

    @classmethod
    def create(cls, path: Path, name: str) -> Index:
        """Create the file and schema (or open it when it already exists).

        A read-only destination is refused before anything is created.
        """
        index = cls(path)
        if not file_access.can_write(path):
            raise file_access.read_only_error(path, f"create collection {name!r}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CollectionError(
                f"Cannot create collection {name!r}: cannot make folder {path.parent} "
                f"({exc.strerror or exc}) - fix its permissions or use another data folder "
                f"(DEEPCITE_DATA_DIR or data_dir in the config)"
            ) from exc
        if not path.exists():
            index._create_atomically(name)
        index.check()
        return index

    def _create_atomically(self, name: str) -> None:
        """Make the file complete, or not at all, as any other process sees it.

        Two processes creating the same collection at once (two ``deepcite collection
        add``, a server and a CLI) once met a file that existed but had no schema yet,
        and one of them called it "not a deepcite collection". The schema is therefore
        written to a private file beside the target and published with a hard link,
        which fails when the target exists: whoever loses the race opens the winner's
        complete file. A file system without hard links gets a rename (not exclusive,
        but the file renamed in is complete either way).
        """
        temp = self.path.with_name(f".{self.path.name}.creating-{os.getpid()}-"
                                   f"{secrets.token_hex(4)}")
        staged = Index(temp)
        try:
            with closing(staged._raw_connect(create=True)) as conn:
                conn.execute("PRAGMA journal_mode=WAL")
                with self.transaction(conn):
                    schema.create(conn)
                    now = str(time.time())
                    for key, value in (("schema_version", SCHEMA_VERSION), ("name", name),
                                       ("created", now), ("updated", now)):
                        conn.execute(
                            "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (key, value)
                        )
            try:
                os.link(temp, self.path)
            except FileExistsError:
                pass  # another process published first: its file is complete too
            except OSError:
                if not self.path.exists():
                    os.replace(temp, self.path)
        except sqlite3.Error as exc:
            raise self.write_error(exc, f"create collection {name!r}") from exc
        except OSError as exc:
            raise CollectionError(
                f"Cannot create collection {name!r} at {self.path} "
                f"({exc.strerror or exc}) - check that its folder is writable") from exc
        finally:
            for leftover in (temp, Path(f"{temp}-wal"), Path(f"{temp}-shm")):
                leftover.unlink(missing_ok=True)

    @property
    def writable(self) -> bool:
        """Whether this process may change the collection (file and folder writable)."""
        return file_access.can_write(self.path)

    def require_writable(self, action: str) -> None:
        """Raise :class:`ReadOnlyCollectionError` now, before a write that must fail."""
        if not self.writable:
            raise file_access.read_only_error(self.path, action)

    def write_error(self, exc: sqlite3.Error, action: str) -> CollectionError:
        """The one-line error for a failed write: read-only ones say how to fix them."""
        if file_access.is_read_only(exc) or not self.writable:
            return file_access.read_only_error(self.path, action)
        return CollectionError(f"{self.path}: cannot {action} ({exc})")

    def _open_error(self, exc: sqlite3.Error) -> CollectionError:
        if file_access.is_damage(exc):
            return file_access.DamagedCollectionError(
                f"{self.path}: not a deepcite collection ({exc})")
        if file_access.is_read_only(exc) or not self.writable:
            return file_access.ReadOnlyCollectionError(
                f"Cannot read collection {self.path} ({exc}): its folder is read-only and "
                f"SQLite must finish a pending write there - make "
                f"{self.path.parent} writable once, or copy the collection elsewhere"
            )
        return CollectionError(
            f"{self.path}: cannot open collection ({exc}) - check that the file and the "
            f"'-wal'/'-shm' files next to it are readable and not in use"
        )

    def check(self) -> None:
        """Raise :class:`CollectionError` unless the file is a deepcite collection.

        A file in an older format is upgraded first; one that cannot be upgraded gets a
        one-line message saying how to rebuild it. Only a file that is positively not a
        collection raises :class:`DamagedCollectionError`: an open failure (permissions,
        a lock, a read-only folder) says nothing about the data, so callers must not
        delete anything because of it.
        """
        if not self.path.exists():
            raise CollectionError(f"No collection file at {self.path}")
        if not self.path.is_file():
            raise CollectionError(
                f"{self.path} is not a file - move it out of the way to use this collection")
        try:
            with self.connect() as conn:
                has_meta = conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
                ).fetchone()
                row = None if has_meta is None else conn.execute(
                    "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.Error as exc:
            raise self._open_error(exc) from exc
        if row is None:
            raise file_access.DamagedCollectionError(
                f"{self.path}: not a deepcite collection (no collection metadata)")
        version = str(row[0])
        if version in schema.UPGRADABLE:
            if version in schema.READABLE and not self.writable:
                return  # searchable as it is; the first writable open upgrades it
            self._upgrade()
        elif version != SCHEMA_VERSION:
            raise file_access.DamagedCollectionError(
                f"{self.path}: unsupported collection format {version!r}; "
                f"re-create it with `deepcite collection add`"
            )

    def _upgrade(self) -> None:
        self.require_writable(f"upgrade {self.path.name} to collection format {SCHEMA_VERSION}")
        try:
            with self.connect() as conn, self.transaction(conn):
                row = conn.execute(
                    "SELECT value FROM meta WHERE key = 'schema_version'"
                ).fetchone()
                if row is not None and row[0] in schema.UPGRADABLE:  # not done meanwhile
                    schema.upgrade(conn, row[0])
        except sqlite3.Error as exc:
            if file_access.is_read_only(exc):
                raise self.write_error(exc, f"upgrade {self.path.name}") from exc
            raise CollectionError(
                f"{self.path}: cannot upgrade this collection to format {SCHEMA_VERSION} "
                f"({exc}); delete it and re-add its folders with `deepcite collection add`"
            ) from exc

    def _raw_connect(self, *, create: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(
            file_access.sqlite_uri(self.path, create=create),
            uri=True,
            timeout=30.0,
            isolation_level=None,
            check_same_thread=True,
        )
        conn.execute("PRAGMA foreign_keys=ON")
        # WAL + NORMAL: a commit is atomic and crash-safe but not fsync'ed; at worst the
        # last few files are re-indexed after a power cut. Per-file commits stay cheap.
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A fresh autocommit connection, closed on exit; use :meth:`transaction` to write.

        It is read-only when the file or its folder is (see
        :mod:`~deepcite.collections.file_access`), so reads and searches work there and
        writes fail with ``SQLITE_READONLY``.
        """
        conn = self._raw_connect()
        try:
            yield conn
        finally:
            conn.close()

    def reading(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """This thread's reused read connection (autocommit); never write through it."""
        return readers.reading(self.path, self._raw_connect)

    transaction = staticmethod(writes.transaction)
    commit = staticmethod(writes.commit)
    batch = staticmethod(writes.batch)
    checkpoint = staticmethod(writes.checkpoint)
    _unit = staticmethod(writes.unit)

    # --------------------------------------------------------------------- meta

    def get_meta(self, key: str) -> str | None:
        """A value from the ``meta`` table."""
        with self.connect() as conn:
            return self._meta(conn, key)

    def read_meta(self, key: str) -> str | None:
        """:meth:`get_meta` through this thread's reused read connection (for searches:
        a write path keeps to fresh connections, so nothing stays open after it)."""
        with self.reading() as conn:
            return self._meta(conn, key)

    @staticmethod
    def _meta(conn: sqlite3.Connection, key: str) -> str | None:
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
            rows = conn.execute(
                "SELECT id, path, sha256, chunks, size, mtime_ns, indexer, mtime FROM documents"
            ).fetchall()
        return {row[1]: StoredDocument(*row) for row in rows}

    def counts(self) -> tuple[int, int]:
        """``(documents, chunks)``."""
        with self.connect() as conn:
            docs = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
            chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return int(docs), int(chunks)

    def put_document(
        self, conn: sqlite3.Connection, record: DocumentRecord, chunks: Sequence[Chunk],
        feed: inverted.Feeder | None = None,
    ) -> None:
        """Insert or replace one document and its chunks, all or nothing.

        ``feed`` is also told the chunks written and deleted (see :class:`.Feeder`).
        """
        record = replace(record, title=safe_text(record.title))
        cjk_title = has_cjk(record.title)
        rows = [
            (n, c.text, record.title, c.start, c.end, c.page, c.heading,
             HEADING_SEPARATOR.join(c.heading_path) or None,
             bigram_text(record.title, c.text) if cjk_title or has_cjk(c.text) else None)
            for n, c in enumerate(chunks)
        ]
        with self._unit(conn):
            gone = [] if feed is None else self._chunk_ids(conn, record.path)
            self._delete_chunks(conn, record.path)
            doc_id = conn.execute(
                "INSERT INTO documents(path, title, kind, sha256, size, mtime, chunks, "
                "mtime_ns, indexer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(path) DO UPDATE SET title = excluded.title, "
                "kind = excluded.kind, sha256 = excluded.sha256, size = excluded.size, "
                "mtime = excluded.mtime, chunks = excluded.chunks, "
                "mtime_ns = excluded.mtime_ns, indexer = excluded.indexer RETURNING id",
                (record.path, record.title, record.kind, record.sha256, record.size,
                 record.mtime, len(chunks), record.mtime_ns, INDEXER_VERSION),
            ).fetchone()[0]
            conn.executemany(
                'INSERT INTO chunks(doc_id, ord, text, title, start, "end", page, heading, '
                "heading_path, cjk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(doc_id, *row) for row in rows],
            )
            self.set_meta(conn, "updated", str(time.time()))
            ids = [] if feed is None else conn.execute(
                "SELECT id, ord FROM chunks WHERE doc_id = ?", (doc_id,)).fetchall()
        if feed is not None:
            feed.deleted(gone)
            feed.added([(chunk_id, rows[ord_][1], record.title) for chunk_id, ord_ in ids])

    def touch_document(
        self, conn: sqlite3.Connection, path: str, size: int, mtime: float, mtime_ns: int
    ) -> None:
        """Record new stat data for a file whose content did not change (after hashing)."""
        conn.execute(
            "UPDATE documents SET size = ?, mtime = ?, mtime_ns = ? WHERE path = ?",
            (size, mtime, mtime_ns, path),
        )

    def delete_document(self, conn: sqlite3.Connection, path: str,
                        feed: inverted.Feeder | None = None) -> None:
        """Remove one document and its chunks, all or nothing (``feed``: as above)."""
        with self._unit(conn):
            gone = [] if feed is None else self._chunk_ids(conn, path)
            self._delete_chunks(conn, path)
            conn.execute("DELETE FROM documents WHERE path = ?", (path,))
            self.set_meta(conn, "updated", str(time.time()))
        if feed is not None:
            feed.deleted(gone)

    @staticmethod
    def _chunk_ids(conn: sqlite3.Connection, path: str) -> list[int]:
        return [int(row[0]) for row in conn.execute(
            "SELECT id FROM chunks WHERE doc_id IN (SELECT id FROM documents WHERE path = ?)",
            (path,))]

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

        Safe to call from several threads at once (each uses its own connection).
        """
        if k <= 0:
            return []
        with self.reading() as conn:
            if CJK_RUN.search(question):
                return retrieval.search(conn, question, k)
            hits = inverted.search(conn, self.path, question, k, rerank.stats(conn)[1])
            return hits if hits is not None else rerank.search(conn, question, k)

    def sync_inverted(self, conn: sqlite3.Connection,
                      feed: inverted.Feeder | None = None) -> bool:
        """Apply the chunks changed since the last sync to the inverted index.

        ``conn`` must not be in a transaction; ``False`` when the index could not be
        written (searches then use FTS5, and the next sync tries again). What ``feed``
        was told is committed as it is when it is exactly what changed.
        """
        return inverted.sync(conn, self.path, feed)
