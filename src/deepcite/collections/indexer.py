"""Bring a collection's index up to date with a set of folders and files.

Adding is incremental by content hash: unchanged files are skipped without parsing,
changed ones are re-indexed, and files that were indexed from an added folder but no
longer exist are removed. One bad file never stops the rest; it is reported in
:attr:`IndexReport.failed` with a reason a user can act on.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from deepcite.collections.chunking import chunk_document
from deepcite.collections.files import Discovery, discover, fingerprint
from deepcite.collections.index import DocumentRecord, Index, StoredDocument
from deepcite.collections.loaders import LoadError, load_document, supported_suffixes
from deepcite.errors import CollectionError

logger = logging.getLogger(__name__)

Action = Literal["added", "updated", "skipped", "failed", "removed"]


@dataclass(frozen=True)
class AddProgress:
    """Sent after each file: ``done`` of ``total`` files handled, the last one ``path``."""

    done: int
    total: int
    path: Path
    action: Action


@dataclass
class IndexReport:
    """What an ``add`` did, file by file."""

    added: list[Path] = field(default_factory=list)
    updated: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether the index content changed."""
        return bool(self.added or self.updated or self.removed)

    def summary(self) -> str:
        """One line for humans: ``2 added, 1 updated, 0 removed, 5 unchanged, 1 failed``."""
        return (
            f"{len(self.added)} added, {len(self.updated)} updated, "
            f"{len(self.removed)} removed, {len(self.skipped)} unchanged, "
            f"{len(self.failed)} failed"
        )


ProgressCallback = Callable[[AddProgress], None]


def _stale(stored: dict[str, StoredDocument], found: Discovery) -> list[str]:
    """Indexed paths under an added folder that were not found again and are gone."""
    current = {str(p) for p in found.files}
    stale = []
    for path in stored:
        doc_path = Path(path)
        if path in current or doc_path.exists():
            continue
        if any(doc_path.is_relative_to(folder) for folder in found.folders):
            stale.append(path)
    return sorted(stale)


class _Adder:
    def __init__(
        self, index: Index, conn: sqlite3.Connection, progress: ProgressCallback | None
    ) -> None:
        self.index = index
        self.conn = conn
        self.progress = progress
        self.report = IndexReport()
        self.stored = index.documents()
        self.done = 0
        self.total = 0

    def _tick(self, path: Path, action: Action) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(AddProgress(self.done, self.total, path, action))

    def _fail(self, path: Path, reason: str) -> None:
        logger.info("could not index %s: %s", path, reason)
        self.report.failed.append((path, reason))
        if str(path) in self.stored:
            # Never keep citing content the file no longer yields.
            self.index.delete_document(self.conn, str(path))
        self._tick(path, "failed")

    def add_file(self, path: Path) -> None:
        key = str(path)
        try:
            fp = fingerprint(path)
        except OSError as exc:
            self._fail(path, f"cannot read file ({exc.strerror or exc})")
            return
        previous = self.stored.get(key)
        if previous is not None and previous.sha256 == fp.sha256:
            self.report.skipped.append(path)
            self._tick(path, "skipped")
            return
        try:
            document = load_document(path)
        except LoadError as exc:
            self._fail(path, exc.reason)
            return
        chunks = chunk_document(document)
        self.report.warnings.extend(f"{path}: {warning}" for warning in document.warnings)
        if not chunks:
            self.report.warnings.append(f"{path}: no text found; nothing to search")
        record = DocumentRecord(key, document.title, document.kind, fp.sha256, fp.size, fp.mtime)
        self.index.put_document(self.conn, record, chunks)
        action: Action = "added" if previous is None else "updated"
        (self.report.added if previous is None else self.report.updated).append(path)
        self._tick(path, action)

    def run(self, found: Discovery) -> IndexReport:
        stale = _stale(self.stored, found)
        self.total = len(found.files) + len(found.unsupported) + len(stale)
        for path in found.unsupported:
            suffixes = ", ".join(supported_suffixes())
            self._fail(path, f"unsupported file type {path.suffix or '(none)'}; "
                             f"supported: {suffixes}")
        for path in found.files:
            self.add_file(path)
        for key in stale:
            self.index.delete_document(self.conn, key)
            self.report.removed.append(Path(key))
            self._tick(Path(key), "removed")
        return self.report


def add_to_index(
    index: Index,
    inputs: Path | Sequence[Path],
    progress: ProgressCallback | None = None,
) -> IndexReport:
    """Index ``inputs`` (folders and/or files) into ``index``; see :class:`IndexReport`."""
    found = discover(inputs)
    try:
        with index.connect() as conn:
            return _Adder(index, conn, progress).run(found)
    except sqlite3.Error as exc:
        raise CollectionError(f"{index.path}: indexing failed ({exc})") from exc
