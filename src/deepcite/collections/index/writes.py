"""Write transactions for collection files: single, batched, and all-or-nothing units.

An ``add`` writes many files. One transaction per file makes FTS5 flush and merge many
tiny index segments, so files are written in batches (:func:`batch`, committed every
so often with :func:`checkpoint`); each file's writes form a :func:`unit`, a savepoint
inside the batch. When Ctrl-C or an error ends a batch, the file in flight is rolled
back to its savepoint and the completed files are committed, so an interruption
never loses finished work and never leaves half a file in the index.

Every commit here first hands the chunks written in the transaction to FTS5
(:func:`.schema.flush`), so what readers see is indexed; :func:`commit` does both for
callers that end a transaction themselves.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from deepcite.collections.index.schema import flush


def commit(conn: sqlite3.Connection) -> None:
    """Index the chunks this transaction wrote in FTS5, then ``COMMIT``."""
    flush(conn)
    conn.execute("COMMIT")


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error or interrupt."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        flush(conn)
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (disk full)
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def batch(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction for many files; what is complete is kept on interrupt.

    Writes inside use savepoints (see :func:`unit`), so when an exception or Ctrl-C
    ends the batch, the file in flight is already undone and the files before it are
    committed (or, if even that fails, everything is rolled back).
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        if conn.in_transaction:
            flush(conn)
    except BaseException:
        if conn.in_transaction:
            try:
                commit(conn)
            except sqlite3.Error:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
        raise
    if conn.in_transaction:
        conn.execute("COMMIT")


def checkpoint(conn: sqlite3.Connection) -> None:
    """Commit the batch so far and start a new one (inside :func:`batch`)."""
    if conn.in_transaction:
        commit(conn)
    conn.execute("BEGIN IMMEDIATE")


@contextmanager
def unit(conn: sqlite3.Connection) -> Iterator[None]:
    """All-or-nothing writes: a savepoint inside a batch, else a transaction."""
    if not conn.in_transaction:
        with transaction(conn):
            yield
        return
    conn.execute("SAVEPOINT unit")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK TO unit")
            conn.execute("RELEASE unit")
        raise
    conn.execute("RELEASE unit")

