"""Opening collection files where the data folder may be read-only, and saying so.

A data folder can be read-only: a shared install, a backup mounted read-only, a
container volume, ``chmod -R a-w``. Searching should still work there, and anything
that would write must stop with one line that says why and how to fix it, before it
touches anything. SQLite alone gets both wrong: a WAL-mode file in a read-only folder
cannot even be *read* the normal way (SQLite wants to create the ``-shm`` file next to
it), and the error it gives looks like a damaged file, which once made deepcite list no
collections at all and try to delete and rebuild the demo collection.

So the connection mode is chosen from what the file system allows (``os.access``, which
also sees read-only mounts, even for root): read-write when the file and its folder are
writable; otherwise read-only, and "immutable" (no locks, no ``-shm``) when the folder
is read-only and no write-ahead log is pending - the one way SQLite can read such a
file. An immutable reader would miss a pending log, so then the normal read-only mode is
kept and fails with a message saying the folder must be writable once.

SQLite errors are sorted into three kinds: read-only, damaged (positively not a usable
collection: not a database, corrupt, no deepcite tables, an unknown format) and anything
else. Only a damaged file may ever be rebuilt (the demo collection); the others are
reported and never acted on, because "cannot open" can be a permission, a lock or a
full disk.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from deepcite.errors import CollectionError

__all__ = ["DamagedCollectionError", "ReadOnlyCollectionError", "can_write",
           "is_damage", "is_read_only", "read_only_error", "sqlite_uri", "writable"]


class ReadOnlyCollectionError(CollectionError):
    """A write was refused because the collection file or its folder is read-only."""


class DamagedCollectionError(CollectionError):
    """The file is positively unusable here: not a database, corrupt, not a deepcite
    collection, or in a format this version cannot read. Only such a file may be
    deleted and rebuilt (the demo collection), and only in a writable folder."""


def writable(path: Path) -> bool:
    """Whether this process may write ``path`` (``os.access``: sees read-only mounts)."""
    return os.access(path, os.W_OK)


def _side_files(file: Path) -> tuple[Path, Path]:
    return Path(f"{file}-wal"), Path(f"{file}-shm")


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return path


def can_write(file: Path) -> bool:
    """Whether a collection at ``file`` can be created or changed.

    A new file needs its nearest existing folder writable (folders are created on the
    way). An existing one needs itself writable and either its folder writable or its
    write-ahead log and shared-memory files present and writable (SQLite writes there).
    """
    if not file.exists():
        return writable(_nearest_existing(file.parent))
    if not writable(file):
        return False
    if writable(file.parent):
        return True
    return all(side.exists() and writable(side) for side in _side_files(file))


def _wal_pending(file: Path) -> bool:
    wal = _side_files(file)[0]
    try:
        return wal.stat().st_size > 0
    except OSError:
        return False


def sqlite_uri(file: Path, *, create: bool = False) -> str:
    """The URI to open ``file`` with: read-write when allowed, else read-only.

    Read-only in a read-only folder means ``immutable=1`` unless a write-ahead log is
    pending (see the module doc).
    """
    base = file.resolve().as_uri()
    if create:
        return f"{base}?mode=rwc"
    if can_write(file):
        return f"{base}?mode=rw"
    if writable(file.parent) or _wal_pending(file):
        return f"{base}?mode=ro"
    return f"{base}?mode=ro&immutable=1"


def _error_name(exc: sqlite3.Error) -> str:
    return str(getattr(exc, "sqlite_errorname", "") or "")


def is_read_only(exc: sqlite3.Error) -> bool:
    """Whether SQLite refused because something is read-only or not permitted."""
    name = _error_name(exc)
    return name.startswith("SQLITE_READONLY") or name == "SQLITE_PERM"


def is_damage(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file is not a database or is corrupt."""
    name = _error_name(exc)
    return name == "SQLITE_NOTADB" or name.startswith("SQLITE_CORRUPT")


def read_only_error(file: Path, action: str) -> ReadOnlyCollectionError:
    """The one-line error for a write to ``file`` that the file system will refuse."""
    folder = _nearest_existing(file.parent)
    where = file if writable(folder) and file.exists() else folder
    return ReadOnlyCollectionError(
        f"Cannot {action}: {where} is read-only - make it writable (e.g. chmod -R u+w "
        f"{folder}) or use a writable data folder (DEEPCITE_DATA_DIR or data_dir in the "
        f"config)"
    )
