"""The collection file's tables, and the upgrade of files written by older versions.

Kept apart from :mod:`~deepcite.collections.index.sqlite_index` so the queries there stay
readable.
Every statement is run one by one on the caller's connection (never with
``executescript``, which would commit an open transaction), so creating and upgrading
a schema are each one atomic transaction: a crash midway leaves the old file intact.

Format history: 1 - text/title FTS over chunks. 2 - chunk heading paths (stored, not
indexed: repeating section names in every chunk's index entry cost 15% of indexing
speed), a CJK character-pair column in the FTS table, ``mtime_ns`` and the indexer
version per document. 3 - chunks reach the FTS index in bulk when a write transaction
commits (``fts_pending``), not row by row through an insert trigger (see :func:`flush`).
"""

from __future__ import annotations

import logging
import sqlite3

from deepcite.collections.index.cjk import bigram_text

logger = logging.getLogger(__name__)

SCHEMA_VERSION = "3"
UPGRADABLE = frozenset({"1", "2"})
READABLE = frozenset({"2"})
"""Older formats a read-only process may search as they are: the tables it reads are the
same, and only writers need the newer triggers (a read-only file cannot be upgraded)."""
TOKENIZER = "porter unicode61"
"""The FTS5 tokenizer; queries are stemmed with the same one (see ``rerank``)."""
TITLE_WEIGHT = 0.5
"""BM25 weight of the document title relative to the chunk text (1.0). Every chunk of a
document repeats its title, so a heavy title weight lifts all chunks of a matching
document alike; 2.0 cost 4 of 166 questions on the FAQ recall benchmark, 0.5 none."""
CJK_WEIGHT = 1.0
"""BM25 weight of the CJK character pairs, which stand in for the text of CJK runs."""
BM25 = f"bm25(chunks_fts, 1.0, {TITLE_WEIGHT}, {CJK_WEIGHT})"
"""The ranking expression. Called directly: FTS5's ``ORDER BY rank`` (with the same
function configured) measured twice as slow here, as it sorts inside FTS5."""

TABLES = [
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS documents(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        title TEXT NOT NULL,
        kind TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime REAL NOT NULL,
        chunks INTEGER NOT NULL DEFAULT 0,
        mtime_ns INTEGER NOT NULL DEFAULT 0,
        indexer INTEGER NOT NULL DEFAULT 1
    )""",
    """CREATE TABLE IF NOT EXISTS chunks(
        id INTEGER PRIMARY KEY,
        doc_id INTEGER NOT NULL REFERENCES documents(id),
        ord INTEGER NOT NULL,
        text TEXT NOT NULL,
        title TEXT NOT NULL,
        start INTEGER NOT NULL,
        "end" INTEGER NOT NULL,
        page INTEGER,
        heading TEXT,
        heading_path TEXT,
        cjk TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id)",
]

_FTS_COLUMNS = "text, title, cjk"
_OLD = "old.text, old.title, old.cjk"
_FORGET_OLD = f"""
        INSERT INTO chunks_fts(chunks_fts, rowid, {_FTS_COLUMNS})
        SELECT 'delete', old.id, {_OLD}
        WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE chunk_id = old.id);
        DELETE FROM fts_pending WHERE chunk_id = old.id;"""
"""Take the old row out of FTS5, or out of ``fts_pending`` when FTS5 never had it."""
FTS = [
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
        {_FTS_COLUMNS}, content='chunks', content_rowid='id', tokenize='{TOKENIZER}'
    )""",
    "CREATE TABLE IF NOT EXISTS fts_pending(chunk_id INTEGER PRIMARY KEY)",
    """CREATE TRIGGER IF NOT EXISTS chunks_fi AFTER INSERT ON chunks BEGIN
        INSERT OR IGNORE INTO fts_pending(chunk_id) VALUES (new.id);
    END""",
    # A chunk still pending was never handed to FTS5: telling FTS5 to delete it would
    # corrupt the index (an external-content table trusts the values it is given).
    f"""CREATE TRIGGER IF NOT EXISTS chunks_fd AFTER DELETE ON chunks BEGIN
        {_FORGET_OLD}
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS chunks_fu AFTER UPDATE OF text, title, cjk ON chunks
    BEGIN
        {_FORGET_OLD}
        INSERT OR IGNORE INTO fts_pending(chunk_id) VALUES (new.id);
    END""",
]
"""The FTS table over ``chunks`` and the triggers that keep it current. Inserted chunks
wait in ``fts_pending`` until :func:`flush`: one ``INSERT ... SELECT`` per write batch
indexes them 2-2.5 times faster than a trigger per row (FTS5 also writes a segment at
every savepoint, and an ``add`` holds one savepoint per file)."""

_FLUSH = [
    f"""INSERT INTO chunks_fts(rowid, {_FTS_COLUMNS})
        SELECT c.id, c.text, c.title, c.cjk FROM fts_pending AS p JOIN chunks AS c
        ON c.id = p.chunk_id ORDER BY c.id""",
    "DELETE FROM fts_pending",
]


def flush(conn: sqlite3.Connection) -> None:
    """Hand the chunks written in this transaction to FTS5; call just before ``COMMIT``.

    Searches read committed data only, so a chunk is never visible without its FTS
    entry. When nothing is pending it writes nothing (one lookup), so a transaction
    that wrote no chunks commits on a file SQLite opened read-only, as before.
    """
    if conn.execute("SELECT 1 FROM fts_pending LIMIT 1").fetchone() is None:
        return
    for statement in _FLUSH:
        conn.execute(statement)


PENDING = [
    "CREATE TABLE IF NOT EXISTS inverted_pending(chunk_id INTEGER PRIMARY KEY)",
    """CREATE TRIGGER IF NOT EXISTS chunks_pi AFTER INSERT ON chunks BEGIN
        INSERT OR IGNORE INTO inverted_pending(chunk_id) VALUES (new.id);
    END""",
    """CREATE TRIGGER IF NOT EXISTS chunks_pd AFTER DELETE ON chunks BEGIN
        INSERT OR IGNORE INTO inverted_pending(chunk_id) VALUES (old.id);
    END""",
    """CREATE TRIGGER IF NOT EXISTS chunks_pu AFTER UPDATE OF text, title ON chunks BEGIN
        INSERT OR IGNORE INTO inverted_pending(chunk_id) VALUES (old.id);
        INSERT OR IGNORE INTO inverted_pending(chunk_id) VALUES (new.id);
    END""",
]
"""Chunk ids changed since the inverted index was last updated (see
:mod:`~deepcite.collections.index.inverted`): filled by triggers in the writing transaction."""

_UPGRADE_1_TO_2 = [
    "DROP TRIGGER IF EXISTS chunks_ai",
    "DROP TRIGGER IF EXISTS chunks_ad",
    "DROP TRIGGER IF EXISTS chunks_au",
    "DROP TABLE IF EXISTS chunks_fts",
    "ALTER TABLE documents ADD COLUMN mtime_ns INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE documents ADD COLUMN indexer INTEGER NOT NULL DEFAULT 1",
    "ALTER TABLE chunks ADD COLUMN heading_path TEXT",
    "ALTER TABLE chunks ADD COLUMN cjk TEXT",
    "UPDATE chunks SET heading_path = heading",
]
_UPGRADE_2_TO_3 = [  # the FTS triggers of formats 1 and 2, one FTS insert per row
    "DROP TRIGGER IF EXISTS chunks_ai",
    "DROP TRIGGER IF EXISTS chunks_ad",
    "DROP TRIGGER IF EXISTS chunks_au",
]
_BATCH = 2000


def create(conn: sqlite3.Connection) -> None:
    """Create every table, trigger and setting that is missing (inside a transaction)."""
    for statement in (*TABLES, *FTS, *PENDING):
        conn.execute(statement)


def _fill_cjk(conn: sqlite3.Connection) -> int:
    """Compute the CJK pair column of existing chunks, in id order and in batches."""
    last, filled = 0, 0
    while True:
        rows = conn.execute(
            "SELECT id, title, text FROM chunks WHERE id > ? ORDER BY id LIMIT ?",
            (last, _BATCH),
        ).fetchall()
        if not rows:
            return filled
        updates = [(pairs, row[0]) for row in rows if (pairs := bigram_text(*row[1:]))]
        conn.executemany("UPDATE chunks SET cjk = ? WHERE id = ?", updates)
        filled += len(updates)
        last = rows[-1][0]


def upgrade(conn: sqlite3.Connection, version: str) -> None:
    """Bring a format-``version`` file up to :data:`SCHEMA_VERSION` (inside a transaction).

    Version 1 keeps its documents and chunks: new columns are added and filled, and the
    FTS table is rebuilt from the chunks. Those documents keep indexer version 1, so
    the next ``add`` re-chunks them (with heading paths) even if unchanged. Version 2
    only swaps its FTS triggers; its index stays as it is.
    """
    if version not in UPGRADABLE:
        raise ValueError(f"cannot upgrade collection format {version!r}")
    filled = 0
    if version == "1":
        for statement in _UPGRADE_1_TO_2:
            conn.execute(statement)
        filled = _fill_cjk(conn)
    for statement in _UPGRADE_2_TO_3:
        conn.execute(statement)
    create(conn)
    if version == "1":
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION,))
    logger.info("upgraded collection format %s to %s (%d CJK chunks)",
                version, SCHEMA_VERSION, filled)
