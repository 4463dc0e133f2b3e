"""The collection file's tables, and the upgrade of files written by older versions.

Kept apart from :mod:`~deepcite.collections.index` so the queries there stay readable.
Every statement is run one by one on the caller's connection (never with
``executescript``, which would commit an open transaction), so creating and upgrading
a schema are each one atomic transaction: a crash midway leaves the old file intact.

Format history: 1 - text/title FTS over chunks. 2 - chunk heading paths (stored, not
indexed: repeating section names in every chunk's index entry cost 15% of indexing
speed), a CJK character-pair column in the FTS table, ``mtime_ns`` and the indexer
version per document.
"""

from __future__ import annotations

import logging
import sqlite3

from deepcite.collections.cjk import bigram_text

logger = logging.getLogger(__name__)

SCHEMA_VERSION = "2"
UPGRADABLE = frozenset({"1"})
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
_NEW = "new.text, new.title, new.cjk"
_OLD = "old.text, old.title, old.cjk"
FTS = [
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
        {_FTS_COLUMNS}, content='chunks', content_rowid='id', tokenize='{TOKENIZER}'
    )""",
    f"""CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, {_FTS_COLUMNS}) VALUES (new.id, {_NEW});
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, {_FTS_COLUMNS})
        VALUES ('delete', old.id, {_OLD});
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, {_FTS_COLUMNS})
        VALUES ('delete', old.id, {_OLD});
        INSERT INTO chunks_fts(rowid, {_FTS_COLUMNS}) VALUES (new.id, {_NEW});
    END""",
]

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
:mod:`~deepcite.collections.inverted`): filled by triggers in the writing transaction."""

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
    the next ``add`` re-chunks them (with heading paths) even if unchanged.
    """
    if version != "1":
        raise ValueError(f"cannot upgrade collection format {version!r}")
    for statement in _UPGRADE_1_TO_2:
        conn.execute(statement)
    filled = _fill_cjk(conn)
    create(conn)
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION,))
    logger.info("upgraded collection format %s to %s (%d CJK chunks)",
                version, SCHEMA_VERSION, filled)
