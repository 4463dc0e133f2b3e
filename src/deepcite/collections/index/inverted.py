"""A tantivy inverted index beside the collection file: top-k search that stays fast.

FTS5 scores every chunk that holds any query term, so its cost grows with the
collection: on 100,000 chunks of the Python docs a question matches 40% of them. This
index answers the same questions with block-max WAND (tantivy, in Rust): postings are
cut into blocks that carry their best possible score, and blocks that cannot reach the
current top ``k`` are skipped unread, so common words cost little and latency grows far
slower than the collection (figures in ``docs/collections.md``).

What lives where. The SQLite file stays the store of record: documents, chunks, exact
character offsets, pages and heading paths, the FTS5 index (still used for CJK
questions and as the fallback). The folder ``<file>-tantivy`` next to it holds only chunk
ids and the stemmed terms of each chunk's text and title, and can be rebuilt from the
file at any time; removing it loses nothing.

Crash safety. Triggers on ``chunks`` record every inserted, updated or deleted chunk id
in ``inverted_pending``, in the same SQLite transaction as the change. :func:`sync`,
under the file's write lock, writes ``<current token> <new token>`` to the folder's
``deepcite-state`` file, commits tantivy (what a :class:`Feeder` was handed during the
add when that is exactly what is pending, else a replay of the pending ids: delete the
id, add the chunk again if it still exists), and only then empties the table and
stores the new random *state token* in ``meta``. A search uses the index only when no
id is pending and both tokens agree; otherwise it falls back to FTS5, which is always
current. A crash before the SQLite commit leaves the ids pending and the folder one
token ahead, so the next sync deletes and re-adds them all (no duplicates); a folder
that matches neither token (a copied or restored ``.sqlite`` file, a damaged folder, a
tantivy version that cannot read it) is rebuilt.

Ranking: the ``POOL`` best chunks by tantivy's BM25 on the text are re-scored with the
Lucene IDF and a length norm in characters (:mod:`.inverted_rescore`, as
:mod:`~deepcite.collections.index.rerank` does for FTS5),
using tantivy's document frequencies: on the Python FAQ benchmark this keeps recall@10
where the FTS5 path has it. Chunks that match only through their document title come
after those, with score 0, as on the FTS5 path.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import math
import os
import shutil
import sqlite3
import sys
import threading
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

import tantivy

from deepcite.collections.index import writes
from deepcite.collections.index.inverted_rescore import (
    ANALYZER,
    TOKENIZER,
    dotted_heads,
    rescore,
)
from deepcite.collections.index.query import match_atoms
from deepcite.collections.index.retrieval import Hit, hits_by_ids
from deepcite.collections.index.schema import PENDING

logger = logging.getLogger(__name__)

SUFFIX = "-tantivy"
"""The index folder is the collection file's path plus this."""
STATE_FILE = "deepcite-state"
STATE_KEY = "inverted_state"
TOP_KEY = "inverted_top_id"
"""The highest chunk id ever written to the index (ids above it need no delete)."""
POOL = 20
"""How many tantivy candidates are re-scored: on the FAQ benchmark 20, 30, 50 and 100
give the same recall@10 (0.458), 10 (tantivy's own order) gives 0.446."""
WRITER_HEAP = 40_000_000
"""tantivy's indexing buffer in bytes (all threads together): memory stays flat."""
SYNC_EVERY = 50_000
"""During an ``add``, apply pending chunks to the index once this many have gathered."""
_PAGE = 2000


_ERRORS = (OSError, ValueError, RuntimeError)
"""What the tantivy bindings raise for a missing, damaged or unwritable folder."""


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("id", stored=False, indexed=True, fast=True)
    builder.add_text_field("text", tokenizer_name=TOKENIZER, index_option="freq")
    builder.add_text_field("title", tokenizer_name=TOKENIZER, index_option="freq")
    return builder.build()


SCHEMA = _schema()


def folder_of(db: Path) -> Path:
    """The index folder of the collection file ``db``."""
    return Path(f"{db}{SUFFIX}")


_StateKey = tuple[int, int, int, int]
_STATES: dict[Path, tuple[_StateKey, tuple[str, str] | None]] = {}


def _read_state(folder: Path) -> tuple[str, str] | None:
    """``(previous, current)`` tokens from the folder, ``None`` when unreadable.

    Read again only when the file changed (inode, size, change and modification time):
    every search checks the tokens, and a ``stat`` costs a fraction of opening and
    reading the file. :func:`_write_state` replaces the file (a new inode) each time.
    """
    path = folder / STATE_FILE
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    cached = _STATES.get(folder)
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        parts = path.read_text(encoding="ascii").split()
    except (OSError, UnicodeError):
        return None
    state = (parts[0], parts[1]) if len(parts) == 2 else None
    with _LOCK:
        _STATES[folder] = (key, state)
    return state


def _write_state(folder: Path, previous: str, current: str) -> None:
    tmp = folder / f"{STATE_FILE}.tmp"
    with open(tmp, "w", encoding="ascii") as handle:
        handle.write(f"{previous} {current}\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, folder / STATE_FILE)


def _open(folder: Path) -> tantivy.Index:
    index = tantivy.Index.open(str(folder))
    index.register_tokenizer(TOKENIZER, ANALYZER)
    return index


@dataclass(frozen=True)
class _Opened:
    token: str
    index: tantivy.Index


_OPENED: dict[Path, _Opened] = {}
_LOCK = threading.Lock()


def _meta_state(conn: sqlite3.Connection) -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (STATE_KEY,)).fetchone()
    return "" if row is None else str(row[0])


def _current_searcher(conn: sqlite3.Connection, db: Path) -> tantivy.Searcher | None:
    """A searcher over an index that matches the file exactly, else ``None``."""
    try:
        if conn.execute("SELECT 1 FROM inverted_pending LIMIT 1").fetchone() is not None:
            return None
    except sqlite3.OperationalError:  # a file from before this index existed
        return None
    token = _meta_state(conn)
    folder = folder_of(db)
    state = _read_state(folder)
    if not token or state is None or state[1] != token:
        return None
    with _LOCK:
        opened = _OPENED.get(folder)
        if opened is None or opened.token != token:
            try:
                opened = _Opened(token, _open(folder))
            except _ERRORS as exc:
                logger.info("not using the index at %s (%s)", folder, exc)
                return None
            _OPENED[folder] = opened
    return opened.index.searcher()


def _terms(question: str) -> list[str] | None:
    """The index terms of a question; ``None`` when one of its words is not indexed."""
    terms: list[str] = []
    for atom in match_atoms(question):
        tokens = ANALYZER.analyze(atom.strip('"*'))
        if not tokens:
            return None
        terms.extend(t for t in tokens if t not in terms)
    return terms


def _query(field: str, terms: list[str]) -> tantivy.Query:
    return tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, tantivy.Query.term_query(SCHEMA, field, term))
         for term in terms])


def _ids(searcher: tantivy.Searcher, query: tantivy.Query, limit: int) -> list[int]:
    # count=False lets tantivy skip blocks (block-max WAND); counting visits every match.
    found = searcher.search(query, limit, count=False)
    values = searcher.fast_field_values("id", [address for _, address in found.hits])
    return [int(v) for v in values if isinstance(v, int)]


def search(conn: sqlite3.Connection, db: Path, question: str, k: int,
           avg_chars: float) -> list[Hit] | None:
    """The ``k`` best chunks for a question without CJK; ``None``: ask FTS5 instead.

    ``None`` when the index is missing, behind the file (an ``add`` is running or was
    interrupted) or cannot read the question. Runs in one read transaction, so the
    chunks it returns are those of the state the index was checked against.
    """
    terms = _terms(question)
    if not terms:
        return None if terms is None else []
    conn.execute("BEGIN")
    try:
        searcher = _current_searcher(conn, db)
        if searcher is None:
            return None
        ids = _ids(searcher, _query("text", terms), max(k, POOL))
        # One read of the candidates' rows (text included) serves the re-score and the
        # results: a second query for the k best cost more than reading 20 rows at once.
        by_id = {hit.chunk_id: hit for hit in hits_by_ids(conn, ids)}
        texts = {chunk_id: hit.text for chunk_id, hit in by_id.items()}
        heads = dotted_heads(question)
        titles = {chunk_id: hit.title for chunk_id, hit in by_id.items()} if heads else {}
        best = rescore(searcher, terms, texts, ids, avg_chars, k, titles, heads)
        hits = [replace(by_id[i], score=score) for i, score in best]
        if len(hits) < k:  # chunks that match only through their document's title
            seen = {hit.chunk_id for hit in hits}
            more = [i for i in _ids(searcher, _query("title", terms), k + len(hits))
                    if i not in seen]
            by_id = {hit.chunk_id: hit for hit in hits_by_ids(conn, more)}
            hits.extend(replace(by_id[i], score=0.0) for i in more if i in by_id)
        return hits[:k]
    except _ERRORS as exc:
        logger.info("index search failed in %s, using FTS5 (%s)", db, exc)
        return None
    finally:
        conn.execute("COMMIT")


# ------------------------------------------------------------------------ writing


def pending(conn: sqlite3.Connection) -> int:
    """How many chunk ids wait to be applied to the index (0 for an old file)."""
    try:
        return int(conn.execute("SELECT count(*) FROM inverted_pending").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


class Feeder:
    """An ``add``'s chunk writes, handed to a tantivy writer as they happen.

    tantivy indexes them in its own threads while SQLite and FTS5 work on the next
    files, so the sync at the end only commits. Nothing is committed here: :func:`sync`
    commits the writer only when the ids it was fed are exactly the pending ones (no
    file rolled back, no other process wrote meanwhile), and otherwise discards it and
    applies the pending ids as usual. Any tantivy error just turns the feeder off.
    """

    def __init__(self, db: Path) -> None:
        self.folder = folder_of(db)
        self.writer: tantivy.IndexWriter | None = None
        self.token = ""
        self.seen = -1
        self.top = -1
        self.fed: set[int] = set()

    def start(self, conn: sqlite3.Connection) -> None:
        """Open a writer on the index, if it is in step with the file."""
        self.discard()
        try:
            token = _meta_state(conn)
            state = _read_state(self.folder)
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (TOP_KEY,)).fetchone()
            if not token or state is None or state[1] != token or pending(conn):
                return
            index = _open(self.folder)
            self.writer = index.writer(heap_size=WRITER_HEAP, num_threads=_threads())
        except (*_ERRORS, sqlite3.Error) as exc:
            logger.info("indexing %s after the file instead (%s)", self.folder, exc)
            return
        self.token = token
        self.seen = self.top = -1 if row is None else int(row[0])

    def deleted(self, ids: list[int]) -> None:
        """These chunks were deleted."""
        if self.writer is not None:
            try:
                for chunk_id in ids:
                    self.writer.delete_documents_by_term("id", chunk_id)
            except _ERRORS:
                self.discard()
                return
            self.fed.update(ids)

    def added(self, rows: list[tuple[int, str, str]]) -> None:
        """These chunks ``(id, text, title)`` were written."""
        if self.writer is None:
            return
        try:
            for chunk_id, text, title in rows:
                if chunk_id <= self.seen or chunk_id in self.fed:
                    self.writer.delete_documents_by_term("id", chunk_id)
                self.writer.add_document(tantivy.Document(id=chunk_id, text=text, title=title))
                self.fed.add(chunk_id)
                self.top = max(self.top, chunk_id)
        except _ERRORS:
            self.discard()

    def commit(self) -> int:
        """Commit what was fed; the highest chunk id in the index."""
        writer, self.writer = self.writer, None
        if writer is not None:
            writer.commit()
            writer.wait_merging_threads()
        self.fed = set()
        return self.top

    def discard(self) -> None:
        """Forget what was fed."""
        writer, self.writer = self.writer, None
        self.fed = set()
        if writer is not None:
            with contextlib.suppress(*_ERRORS):
                writer.rollback()

    def matches(self, conn: sqlite3.Connection, token: str) -> bool:
        """Whether what was fed is exactly what is pending, on the same index state."""
        if self.writer is None or token != self.token:
            return False
        ids = {int(row[0]) for row in conn.execute("SELECT chunk_id FROM inverted_pending")}
        return ids == self.fed


def _threads() -> int:
    """One indexing thread. Each thread writes its own segments, and a search visits
    every segment with its own top-k threshold: on 105,000 chunks two threads left 6
    segments and 0.36 ms per tantivy query (p50), one thread 2 segments and 0.16 ms.
    The thread works beside SQLite and FTS5, which hold the add's main thread."""
    return 1


def sync(conn: sqlite3.Connection, db: Path, feed: Feeder | None = None) -> bool:
    """Bring the index up to date with the file; ``False`` when that failed (logged).

    ``conn`` must not be in a transaction. Takes the file's write lock for the whole
    sync, so two processes never write the index at once. A failure leaves the pending
    ids in place, and searches use FTS5 until a later sync succeeds. ``feed``'s writer
    is committed when it holds exactly the pending changes, else discarded; either way
    it has none afterwards (call :meth:`Feeder.start` again to go on feeding).
    """
    folder = folder_of(db)
    try:
        with writes.transaction(conn):
            if feed is not None and feed.matches(conn, _meta_state(conn)):
                new = uuid.uuid4().hex
                _write_state(folder, feed.token, new)  # see below
                top = feed.commit()
                _done(conn, new, top)
                return True
            if feed is not None:
                feed.discard()
            for statement in PENDING:
                conn.execute(statement)
            token = _meta_state(conn)
            state = _read_state(folder)
            rebuild = state is None or not token or token not in state
            if not rebuild and state is not None and state[1] == token and not pending(conn):
                try:
                    _open(folder)
                    return True
                except _ERRORS as exc:  # in step, but damaged
                    logger.info("rebuilding the index at %s (%s)", folder, exc)
                    rebuild = True
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (TOP_KEY,)).fetchone()
            top = -1 if rebuild or row is None else int(row[0])
            # Ids above ``top`` were never written to the index, so need no delete; after
            # a crash between the two commits (``token`` is the folder's previous state)
            # the index may hold more, and every pending id is deleted first.
            seen = top if rebuild or (state is not None and state[1] == token) else math.inf
            index = None
            if not rebuild:
                try:
                    index = _open(folder)
                except _ERRORS as exc:  # damaged, or written by an incompatible tantivy
                    logger.info("rebuilding the index at %s (%s)", folder, exc)
                    rebuild, seen, top = True, -1, -1
            if index is None:
                index = _fresh(conn, folder)
            new = uuid.uuid4().hex
            # Before tantivy commits: from now until SQLite commits, searches use FTS5,
            # and a crash makes the next sync redo this one (or rebuild, if this is one).
            _write_state(folder, "-" if rebuild else token, new)
            _done(conn, new, max(top, _apply(conn, index, seen)))
        return True
    except (*_ERRORS, sqlite3.Error) as exc:
        if feed is not None:
            feed.discard()
        logger.warning("could not update the search index %s (%s); searches use the "
                       "slower FTS5 index until the next add", folder, exc)
        return False
    finally:
        _release_memory()


def _release_memory() -> None:
    """Hand the heap freed by tantivy's writer threads back to the system (glibc).

    glibc gives each thread its own malloc arena and keeps their free pages: without
    this, peak RSS while indexing grew by ~40 MiB per 100k chunks (merges of ever larger
    segments); with it, by about half as much. Elsewhere (musl, macOS) it does nothing.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).malloc_trim(0)


def _done(conn: sqlite3.Connection, token: str, top: int) -> None:
    conn.execute("DELETE FROM inverted_pending")
    for key, value in ((STATE_KEY, token), (TOP_KEY, str(top))):
        conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) "
                     "DO UPDATE SET value = excluded.value", (key, value))


def _fresh(conn: sqlite3.Connection, folder: Path) -> tantivy.Index:
    """An empty index in ``folder``, with every chunk pending."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(SCHEMA, path=str(folder), reuse=False)
    index.register_tokenizer(TOKENIZER, ANALYZER)
    conn.execute("DELETE FROM inverted_pending")
    conn.execute("INSERT INTO inverted_pending(chunk_id) SELECT id FROM chunks")
    return index


def _apply(conn: sqlite3.Connection, index: tantivy.Index, seen: float) -> int:
    """Write every pending chunk to ``index`` and commit it.

    Ids up to ``seen`` may be in the index and are deleted first. Returns the highest
    chunk id written (-1 for none).
    """
    if not pending(conn):
        return -1
    writer = index.writer(heap_size=WRITER_HEAP, num_threads=_threads())
    top = -1
    try:
        last = -1
        while True:
            rows = conn.execute(
                "SELECT p.chunk_id, c.text, c.title FROM inverted_pending AS p "
                "LEFT JOIN chunks AS c ON c.id = p.chunk_id WHERE p.chunk_id > ? "
                "ORDER BY p.chunk_id LIMIT ?", (last, _PAGE)).fetchall()
            if not rows:
                break
            for chunk_id, text, title in rows:
                if chunk_id <= seen:
                    writer.delete_documents_by_term("id", chunk_id)
                if text is not None:
                    writer.add_document(tantivy.Document(id=chunk_id, text=text, title=title))
                    top = chunk_id
            last = rows[-1][0]
        writer.commit()
    except BaseException:
        writer.rollback()
        raise
    writer.wait_merging_threads()
    return top


def remove(db: Path) -> None:
    """Delete the index folder of ``db`` (when its collection is removed)."""
    folder = folder_of(db)
    with _LOCK:
        _OPENED.pop(folder, None)
        _STATES.pop(folder, None)
    if folder.exists():
        shutil.rmtree(folder)


def size(db: Path) -> int:
    """Bytes the index folder of ``db`` takes on disk (0 when there is none)."""
    folder = folder_of(db)
    try:
        return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    except OSError:
        return 0
