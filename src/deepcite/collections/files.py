"""Find the files an ``add`` should index, and fingerprint them.

Folders are walked recursively in a stable (sorted) order so reports and progress are
reproducible; hidden files and folders (``.git``, ``.venv``, editor swap files) are
skipped because they are almost never documents a user means to search. Explicitly
named files are taken as given, hidden or not.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deepcite.collections.loaders import is_supported
from deepcite.errors import CollectionError

_HASH_BLOCK = 1 << 20


@dataclass
class Discovery:
    """What the inputs of one ``add`` expand to (all paths absolute and resolved)."""

    files: list[Path] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)
    unsupported: list[Path] = field(default_factory=list)


def _as_paths(inputs: Path | str | Sequence[Path | str]) -> list[Path]:
    if isinstance(inputs, str | os.PathLike):
        return [Path(inputs)]
    return [Path(item) for item in inputs]


def _is_hidden(name: str) -> bool:
    return name.startswith(".")


def walk_folder(folder: Path) -> Iterator[Path]:
    """Supported, non-hidden files under ``folder``, recursively, in sorted order."""
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _is_hidden(d))
        for name in sorted(names):
            path = Path(root) / name
            if not _is_hidden(name) and is_supported(path) and path.is_file():
                yield path


def discover(inputs: Path | str | Sequence[Path | str]) -> Discovery:
    """Expand folders and files; raise :class:`CollectionError` if any input is missing.

    Everything is checked before anything is indexed, so a typo in the last argument
    does not leave a half-done ``add`` behind.
    """
    paths = _as_paths(inputs)
    if not paths:
        raise CollectionError("Nothing to add: give at least one folder or file")
    for path in paths:
        if not path.exists():
            kind = "File" if path.suffix and is_supported(path) else "Folder"
            raise CollectionError(f"{kind} not found: {path}")
    found = Discovery()
    seen: set[Path] = set()
    for path in paths:
        resolved = path.resolve()
        if resolved.is_dir():
            found.folders.append(resolved)
            candidates: list[Path] = [p.resolve() for p in walk_folder(resolved)]
        elif is_supported(resolved):
            candidates = [resolved]
        else:
            found.unsupported.append(resolved)
            continue
        for candidate in candidates:
            if candidate not in seen:
                seen.add(candidate)
                found.files.append(candidate)
    return found


@dataclass(frozen=True)
class FileStat:
    """Size and modification time of one file, read without opening it."""

    size: int
    mtime: float
    mtime_ns: int


def stat_file(path: Path) -> FileStat:
    """Size and mtime of ``path``; raises ``OSError``.

    Re-adding a folder compares these with what the index stored and hashes only the
    files whose size or mtime changed, so an unchanged folder costs one ``stat`` per
    file instead of reading every byte.
    """
    stat = path.stat()
    return FileStat(stat.st_size, stat.st_mtime, stat.st_mtime_ns)


def hash_file(path: Path) -> str:
    """SHA-256 of the file's bytes, read in blocks so memory stays flat; raises ``OSError``."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Fingerprint:
    """Content hash and stat data of one file."""

    sha256: str
    size: int
    mtime: float
    mtime_ns: int = 0


def fingerprint(path: Path) -> Fingerprint:
    """SHA-256 of the file's bytes plus its size and mtime; raises ``OSError``."""
    stat = stat_file(path)
    return Fingerprint(hash_file(path), stat.size, stat.mtime, stat.mtime_ns)
