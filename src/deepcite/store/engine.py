"""Connecting to the history database, and saying in one line why it failed.

SQLite (the default, ``history.db`` in the data dir) is set up for a store that several
processes use at once - a ``deepcite ask`` writing while ``deepcite history`` reads:

* WAL journal, so readers never wait for the writer;
* a busy timeout, so a second writer waits its turn instead of failing at once;
* foreign keys on, which SQLite leaves off by default - without them deleting a run
  would orphan its sources, checks and events;
* transactions begun by deepcite rather than by the sqlite3 module, which would commit
  before DDL on its own; so a migration is one transaction, and a write transaction
  can start with ``BEGIN IMMEDIATE`` (it then queues for the write lock instead of
  failing half-way when another process wrote first).

A server database (PostgreSQL) gets a connection pool sized by ``store.pool_size``,
``store.max_overflow`` and ``store.pool_timeout_seconds`` - many worker threads and
processes share it - and ``pool_pre_ping``, so a connection left broken by a server
restart is replaced before use: while the server is down every call fails with the
one-line :func:`unreachable` message, and the first call after it is back works.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, exc, make_url
from sqlalchemy.engine import URL, Connection
from sqlalchemy.pool import QueuePool

from deepcite.errors import StoreError

BUSY_TIMEOUT_MS = 15_000
"""How long a writer waits for another process's write to finish before giving up."""
CONNECT_TIMEOUT_S = 10
"""How long a server database (PostgreSQL) may take to accept a connection."""
WAL_RETRY_S = 0.02
WRITE = {"sqlite_begin": "IMMEDIATE"}
"""Execution options of a connection that is going to write."""


def sqlite_url(path: Path) -> URL:
    """The SQLAlchemy URL of a SQLite file (any characters in the path are safe)."""
    return URL.create("sqlite", database=str(path))


def create_store_engine(url: str | URL, *, pool_size: int = 5, max_overflow: int = 10,
                        pool_timeout: float = 10.0) -> Engine:
    """An engine for ``url``, set up as the module docstring says.

    The folder of a SQLite file is created if missing; the pool options apply to server
    databases only. Raises :class:`StoreError` for a URL that is not one, or whose
    driver is not installed.
    """
    try:
        parsed = make_url(url)
    except exc.ArgumentError:
        raise StoreError(f"store.url {str(url)!r} is not a database URL; use e.g. "
                         "postgresql+psycopg://user@host/dbname, or unset it for the "
                         "SQLite file in the data dir") from None
    options: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        _create_folder(parsed)
    else:
        options.update(poolclass=QueuePool, pool_size=pool_size, max_overflow=max_overflow,
                       pool_timeout=pool_timeout, pool_pre_ping=True)
        if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
            options["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT_S}
    try:
        engine = create_engine(parsed, **options)
    except (ModuleNotFoundError, exc.NoSuchModuleError) as error:
        raise StoreError(f"No database driver for {location(parsed)} ({error}); for "
                         "PostgreSQL run: pip install 'deepcite[postgres]'") from None
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_connected)
        event.listen(engine, "begin", _sqlite_begin)
    return engine


def _create_folder(url: URL) -> None:
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return
    folder = Path(database).expanduser().parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"Cannot create the folder {folder} for the history "
                         f"({error.strerror}); set DEEPCITE_DATA_DIR to a writable folder "
                         "or store.url to a database") from None


def _sqlite_connected(dbapi_connection: sqlite3.Connection, record: Any) -> None:
    # No implicit transactions from the driver: _sqlite_begin starts them.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            _switch_to_wal(cursor)
    finally:
        cursor.close()


def _switch_to_wal(cursor: sqlite3.Cursor) -> None:
    """Turn on WAL (once per file: the mode is kept in the file).

    Switching needs the whole file to itself, and SQLite answers "database is locked"
    at once, without its busy timeout, when another connection is busy - as when two
    processes create the store together - so it is retried here for as long.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(WAL_RETRY_S)


def _sqlite_begin(connection: Connection) -> None:
    mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
    connection.exec_driver_sql(f"BEGIN {mode}")


def location(url: str | URL) -> str:
    """Where a store is, for messages: a SQLite file's path, else the URL, no password."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database:
        return parsed.database
    return parsed.render_as_string(hide_password=True)


def store_error(error: exc.SQLAlchemyError | sqlite3.Error, url: str | URL) -> StoreError:
    """A one-line :class:`StoreError` for a database failure at ``url``."""
    where = location(url)
    original = getattr(error, "orig", None) or error
    detail = " ".join(str(original).split()) or type(original).__name__
    lowered = detail.lower()
    if "file is not a database" in lowered or "malformed" in lowered:
        return StoreError(f"{where} is not a usable history database ({detail}); move it "
                          "away and deepcite starts a new history there, or set store.url")
    if "database is locked" in lowered or "database is busy" in lowered:
        return StoreError(f"The history {where} is busy: another deepcite is writing to it "
                          "- try again in a moment")
    if "unable to open database" in lowered or "readonly database" in lowered:
        return StoreError(f"Cannot open or write the history {where} ({detail}); check "
                          "that it and its folder are writable, or set store.url")
    if isinstance(error, exc.OperationalError | exc.InterfaceError):
        return StoreError(f"Cannot use the history database {where} ({detail[:300]}); "
                          "check store.url (DEEPCITE_STORE_URL) and that the server runs")
    return StoreError(f"The history database {where} failed ({detail[:300]}); check "
                      "store.url, or move the database away to start a new history")


def unreachable(error: exc.SQLAlchemyError, url: str | URL) -> StoreError | None:
    """The one-line error for a server database that cannot be reached (down, restarting,
    connection dropped), or ``None`` when ``error`` is something else.

    SQLite has no server: its failures are :func:`store_error`'s. Nor is a PostgreSQL
    deadlock or serialization failure (SQLSTATE class 40, an ``OperationalError`` to
    the driver) a server that went away.
    """
    if make_url(url).get_backend_name() == "sqlite":
        return None
    original = getattr(error, "orig", None)
    if str(getattr(original, "sqlstate", "") or "").startswith("40"):
        return None
    lost = isinstance(error, exc.DBAPIError) and error.connection_invalidated
    if not (lost or isinstance(error, exc.OperationalError | exc.InterfaceError)):
        return None
    detail = " ".join(str(original or error).split()) or type(error).__name__
    return StoreError(f"The history store at {location(url)} is unreachable "
                      f"({detail[:300]}) - check that the database is running")


def operation_error(error: exc.SQLAlchemyError, url: str | URL) -> StoreError:
    """A one-line :class:`StoreError` for a failed store operation (see
    :func:`unreachable` and :func:`store_error`)."""
    return unreachable(error, url) or store_error(error, url)
