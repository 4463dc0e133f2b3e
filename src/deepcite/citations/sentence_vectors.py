"""Sentence vectors kept between questions, so a sentence seen before is never encoded again.

Scoring a grounded answer by meaning (:mod:`deepcite.citations.sentence_meaning`)
encodes every candidate sentence of the sources, a few hundred per question, and that
was most of a question's cost once the encoder was loaded. The same sentences come back
all the time: the demo collection's, a rerun's, a follow-up's, the same page found by
two questions. So the vectors are kept:

- **in memory**, the last :data:`MEMORY_ROWS` vectors used (about 30 MiB), shared by
  every run of the process (the web app, workers, MCP, the Python API);
- **on disk**, ``sentence-vectors.sqlite`` in the data dir (:data:`FILE_NAME`), the last
  :data:`DISK_ROWS` vectors used (about 80 MiB at most), shared by every process of the
  data dir. Past that, the least recently used rows are removed.

A vector is keyed by the encoder's id and a hash of the text (never the text itself:
the file repeats nothing of the user's documents in words). The id names the model and
what it was asked for (e5 encodes a question and a passage differently), so two encoders
or two kinds of text never share a vector. Vectors are stored as float32, exactly as the
encoder made them: an answer is the same whether its vectors came from the store or
from the encoder.

The store is best effort and never fails a question: a file that cannot be opened, read
or written (corrupt, read-only, a full disk) logs one warning and the store keeps
working in memory; a write another process holds locked is simply skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

logger = logging.getLogger(__name__)

FILE_NAME = "sentence-vectors.sqlite"
"""The store's file in ``settings.data_dir``."""
MEMORY_ROWS = 20_000
DISK_ROWS = 50_000
#: Seconds a write waits for another process's lock before it is skipped.
_BUSY_TIMEOUT = 2.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sentence_vectors (
    encoder TEXT NOT NULL,
    digest BLOB NOT NULL,
    vector BLOB NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (encoder, digest)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sentence_vectors_used ON sentence_vectors (used);
"""

Encode = Callable[[list[str]], "NDArray[np.float32]"]
"""``encode(texts)``: one row per text, as the encoder makes them."""


def text_digest(text: str) -> bytes:
    """The key of a text: 16 bytes of its SHA-256 (collisions are not a concern)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]


class SentenceVectors:
    """Vectors by (encoder id, text hash): an LRU in memory before a SQLite file.

    ``path=None`` keeps them in memory only. Thread safe: every method holds one lock,
    which is not held while the encoder runs.
    """

    def __init__(self, path: Path | None, *, memory_rows: int = MEMORY_ROWS,
                 disk_rows: int = DISK_ROWS) -> None:
        self._path = path
        self._memory_rows = memory_rows
        self._disk_rows = disk_rows
        self._memory: OrderedDict[tuple[str, bytes], bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._disk_failed = path is None
        self._clock = 0

    @property
    def path(self) -> Path | None:
        """The SQLite file, or ``None`` when the store keeps vectors in memory only
        (asked for, or since the file failed)."""
        return None if self._disk_failed else self._path

    def vectors(self, encoder: str, texts: Sequence[str], encode: Encode,
                ) -> NDArray[np.float32]:
        """``(len(texts), dim)`` vectors of ``texts``: those stored, and ``encode`` called
        once for the others (which are then stored)."""
        import numpy as np

        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        keys = [(encoder, text_digest(t)) for t in texts]
        found = self._get(keys)
        missing = [i for i, key in enumerate(keys) if key not in found]
        if missing:
            made = np.asarray(encode([texts[i] for i in missing]), dtype=np.float32)
            made = made.reshape(len(missing), -1)
            new = {keys[i]: made[row].tobytes() for row, i in enumerate(missing)}
            self._put(new)
            found.update(new)
        return np.stack([np.frombuffer(found[key], dtype=np.float32) for key in keys])

    def __len__(self) -> int:
        """Vectors held in memory (the disk may hold more)."""
        with self._lock:
            return len(self._memory)

    def close(self) -> None:
        """Close the file (the memory is kept); a later call opens it again."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # -- memory and disk ----------------------------------------------------------------

    def _get(self, keys: Sequence[tuple[str, bytes]]) -> dict[tuple[str, bytes], bytes]:
        with self._lock:
            found: dict[tuple[str, bytes], bytes] = {}
            for key in keys:
                blob = self._memory.get(key)
                if blob is not None:
                    self._memory.move_to_end(key)
                    found[key] = blob
            rest = list(dict.fromkeys(k for k in keys if k not in found))
            if rest:
                from_disk = self._disk_get(rest)
                found.update(from_disk)
                self._remember(from_disk)
            return found

    def _put(self, new: dict[tuple[str, bytes], bytes]) -> None:
        with self._lock:
            self._remember(new)
            self._disk_put(new)

    def _remember(self, rows: dict[tuple[str, bytes], bytes]) -> None:
        for key, blob in rows.items():
            self._memory[key] = blob
            self._memory.move_to_end(key)
        while len(self._memory) > self._memory_rows:
            self._memory.popitem(last=False)

    def _tick(self) -> int:
        """A recency stamp that grows across processes (nanoseconds) and within one."""
        self._clock = max(self._clock + 1, time.time_ns())
        return self._clock

    def _connection(self) -> sqlite3.Connection | None:
        if self._disk_failed or self._path is None:
            return None
        if self._db is None:
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                if not self._path.exists():
                    # vectors of the user's sentences: private to the user
                    with contextlib.suppress(FileExistsError):
                        os.close(os.open(self._path, os.O_CREAT | os.O_EXCL | os.O_WRONLY,
                                         0o600))
                db = sqlite3.connect(self._path, timeout=_BUSY_TIMEOUT,
                                     check_same_thread=False, isolation_level=None)
                try:
                    db.executescript(_SCHEMA)
                except BaseException:
                    db.close()
                    raise
                self._db = db
            except (sqlite3.Error, OSError) as exc:
                self._fail(exc)
        return self._db

    def _fail(self, exc: Exception) -> None:
        """Warn once and keep vectors in memory from now on."""
        logger.warning("sentence vectors: cannot use %s (%s); vectors are kept in memory "
                       "only (delete the file to start it afresh)", self._path, exc)
        self._disk_failed = True
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    def _disk_get(self, keys: list[tuple[str, bytes]]) -> dict[tuple[str, bytes], bytes]:
        db = self._connection()
        if db is None:
            return {}
        found: dict[tuple[str, bytes], bytes] = {}
        try:
            for encoder in {k[0] for k in keys}:
                digests = [k[1] for k in keys if k[0] == encoder]
                for start in range(0, len(digests), 500):
                    part = digests[start:start + 500]
                    marks = ",".join("?" * len(part))
                    rows = db.execute(
                        "SELECT digest, vector FROM sentence_vectors "
                        f"WHERE encoder = ? AND digest IN ({marks})", [encoder, *part])
                    found.update(((encoder, bytes(d)), bytes(v)) for d, v in rows)
            if found:
                self._refresh(db, list(found))
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                self._fail(exc)
        except sqlite3.Error as exc:
            self._fail(exc)
        return found

    def _refresh(self, db: sqlite3.Connection, keys: list[tuple[str, bytes]]) -> None:
        """Mark ``keys`` used now, so eviction removes what no question needed lately."""
        stamp = self._tick()
        try:
            with _transaction(db):
                db.executemany("UPDATE sentence_vectors SET used = ? "
                               "WHERE encoder = ? AND digest = ?",
                               [(stamp, e, d) for e, d in keys])
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                raise
            logger.debug("sentence vectors: %s is busy; recency not updated", self._path)

    def _disk_put(self, rows: dict[tuple[str, bytes], bytes]) -> None:
        db = self._connection()
        if db is None or not rows:
            return
        stamp = self._tick()
        try:
            with _transaction(db):
                db.executemany(
                    "INSERT OR REPLACE INTO sentence_vectors (encoder, digest, vector, used) "
                    "VALUES (?, ?, ?, ?)", [(e, d, v, stamp) for (e, d), v in rows.items()])
                (count,) = db.execute("SELECT count(*) FROM sentence_vectors").fetchone()
                if count > self._disk_rows:
                    db.execute(
                        "DELETE FROM sentence_vectors WHERE (encoder, digest) IN ("
                        "SELECT encoder, digest FROM sentence_vectors ORDER BY used LIMIT ?)",
                        (count - self._disk_rows,))
        except sqlite3.OperationalError as exc:
            if _busy(exc):
                logger.debug("sentence vectors: %s is busy; %d vectors not kept",
                             self._path, len(rows))
            else:
                self._fail(exc)
        except sqlite3.Error as exc:
            self._fail(exc)


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taken at once (``IMMEDIATE``) so a busy file is known
    before any row is written."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield None
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _busy(exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` says another process holds the file (not that it is broken)."""
    text = str(exc).lower()
    return "locked" in text or "busy" in text


_STORES: dict[Path, SentenceVectors] = {}
_STORES_LOCK = threading.Lock()


def store_for(data_dir: Path) -> SentenceVectors:
    """The process's store of ``data_dir`` (one per data dir, made on first use; the
    file itself is opened when a vector is first looked up)."""
    key = Path(data_dir).expanduser().resolve() / FILE_NAME
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            store = _STORES[key] = SentenceVectors(key)
        return store


__all__ = ["DISK_ROWS", "FILE_NAME", "MEMORY_ROWS", "SentenceVectors", "store_for",
           "text_digest"]
