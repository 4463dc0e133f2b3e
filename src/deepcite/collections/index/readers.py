"""One reused read connection per thread and collection file, for searches.

Opening a SQLite connection is cheap, but its first statement parses the whole schema
(FTS5 tables, triggers, indexes): on a 100,000-chunk collection that was about a third
of a search's time once the tantivy index made the search itself fast. Searches and
``meta`` reads therefore keep one connection per thread and file, open between calls.

Why per thread: a ``sqlite3.Connection`` must not be used by two threads at once, and
searches run from several (the web app's thread pool, parallel report parts). Each
thread's connections are closed when the thread ends (the holder's finaliser), or when
the file they were opened on is no longer the one at that path: the key includes the
file's device, inode and change time, so a collection removed and created again, a
restored copy or a forked process gets a fresh connection. A statement that fails
closes the connection, so a later search never inherits a half-finished transaction.

Writes never use these: they open their own connection (see :meth:`Index.connect`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

_Identity = tuple[int, int, int, int]
MAX_OPEN = 16
"""Connections one thread keeps at most (least recently used closed first)."""


class _Held:
    """A thread's open read connections; closes them when the thread lets go of it."""

    def __init__(self) -> None:
        self.conns: dict[str, tuple[_Identity, sqlite3.Connection]] = {}

    def drop(self, key: str) -> None:
        held = self.conns.pop(key, None)
        if held is not None:
            with contextlib.suppress(sqlite3.Error):
                held[1].close()

    def __del__(self) -> None:
        for key in list(self.conns):
            self.drop(key)


_LOCAL = threading.local()


def _held() -> _Held:
    held: _Held | None = getattr(_LOCAL, "held", None)
    if held is None:
        held = _LOCAL.held = _Held()
    return held


def _identity(path: Path) -> _Identity | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (os.getpid(), st.st_dev, st.st_ino, st.st_ctime_ns)


@contextlib.contextmanager
def reading(path: Path, connect: Callable[[], sqlite3.Connection]
            ) -> Iterator[sqlite3.Connection]:
    """A read connection to ``path``, reused by this thread while the file is the same.

    ``connect`` opens a new one when needed. Outside a transaction on return: one left
    open by the caller is rolled back; on an exception the connection is closed.
    """
    identity = _identity(path)
    if identity is None:  # a missing file: let connect() raise its own clear error
        conn = connect()
        try:
            yield conn
        finally:
            conn.close()
        return
    held = _held()
    key = str(path)
    found = held.conns.pop(key, None)
    if found is not None and found[0] != identity:
        with contextlib.suppress(sqlite3.Error):
            found[1].close()
        found = None
    conn = found[1] if found is not None else connect()
    try:
        yield conn
        if conn.in_transaction:
            conn.rollback()
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.close()
        raise
    held.conns[key] = (identity, conn)  # most recently used last
    while len(held.conns) > MAX_OPEN:
        held.drop(next(iter(held.conns)))


def forget(path: Path) -> None:
    """Close this thread's reused connection to ``path`` (before removing the file)."""
    _held().drop(str(path))
