"""Bring a collection's index up to date with a set of folders and files.

Adding is incremental: a file whose size and modification time (in nanoseconds) are
what the index recorded is skipped without being read; otherwise it is hashed, and only
a changed content hash gets it parsed and re-indexed, so touching a file costs one
hash. Files that were indexed from an added folder but no longer exist are removed.
Stat data recorded less than :data:`RACY_SECONDS` after the file's last change is not
trusted (like git's "racily clean" entries): a same-size edit within the file system's
timestamp granularity would otherwise go unnoticed.

Files are loaded, chunked and written one at a time, so memory stays flat as a
collection grows. The inverted index beside the file is brought up to date at the start
(catching up after an interrupted add), every :data:`~.index.inverted.SYNC_EVERY` chunks and
at the end (see :mod:`~deepcite.collections.index.inverted`). Writes are committed in
batches of about :data:`BATCH_SECONDS` (one transaction per file makes FTS5 much
slower), each file in its own savepoint:
Ctrl-C keeps every completed file, a crash loses at most the last batch, and the
next ``add`` picks up where it stopped. One bad file never stops the rest; it is reported in
:attr:`IndexReport.failed` with a reason a user can act on.

Documents are keyed by :func:`~deepcite.collections.paths.document_key`, which is the
absolute path for every file whose name is valid UTF-8 and an escaped form for the
rest, so a file called ``caf\xe9.txt`` is indexed, skipped when unchanged and removed
when deleted like any other. What discovery deliberately passes over (symbolic links,
special files) is reported in :attr:`IndexReport.ignored`.

A server folder is indexed with ``refuse_hard_links`` (see :mod:`.files`): besides the
walk, each file is checked again as it is hashed (on the opened file) and after it is
loaded (the same inode, still one link), so a file re-linked meanwhile is refused.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from deepcite.collections.chunking import OVERLAP_TOKENS, TARGET_TOKENS, chunk_document
from deepcite.collections.files import (
    HARD_LINK,
    Discovery,
    FileStat,
    HardLinkError,
    discover,
    hash_file,
    stat_file,
)
from deepcite.collections.index import INDEXER_VERSION, DocumentRecord, Index, StoredDocument
from deepcite.collections.index.inverted import SYNC_EVERY, Feeder
from deepcite.collections.index.rerank import record_stats
from deepcite.collections.loaders import LoadError, load_document, supported_suffixes
from deepcite.collections.paths import display_path, document_key, key_exists

logger = logging.getLogger(__name__)

Action = Literal["added", "updated", "skipped", "failed", "removed"]
RACY_SECONDS = 2.0
"""Stat data younger than this when recorded is re-checked by hash next time."""
BATCH_SECONDS = 1.0
"""Commit the files indexed so far at least this often."""


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
    #: Paths deliberately not indexed, with the reason (symbolic links, FIFOs, ...).
    ignored: list[tuple[Path, str]] = field(default_factory=list)
    #: Chunks given a vector by this add (dense collections only).
    embedded: int = 0

    @property
    def changed(self) -> bool:
        """Whether the index content changed."""
        return bool(self.added or self.updated or self.removed)

    def summary(self) -> str:
        """One line for humans: ``2 added, 1 updated, 0 removed, 5 unchanged, 1 failed``.

        ``, 2 ignored`` follows when symbolic links or special files were passed over.
        """
        return (
            f"{len(self.added)} added, {len(self.updated)} updated, "
            f"{len(self.removed)} removed, {len(self.skipped)} unchanged, "
            f"{len(self.failed)} failed"
            + (f", {len(self.ignored)} ignored" if self.ignored else "")
        )


ProgressCallback = Callable[[AddProgress], None]
ChangeCallback = Callable[[str], None]
"""Told the key of each document whose chunks an ``add`` replaced or deleted."""


def _stale(stored: dict[str, StoredDocument], found: Discovery) -> list[str]:
    """Indexed keys under an added folder whose file is gone or is now passed over.

    Compared as keys (see :mod:`.paths`), so files with non-UTF-8 names are matched too;
    a file that became a symbolic link or a FIFO no longer keeps its old content.
    """
    current = {document_key(p) for p in found.files}
    ignored = {document_key(p) for p, _ in found.ignored}
    folders = [Path(document_key(folder)) for folder in found.folders]
    stale = []
    for key in stored:
        if key in current or (key not in ignored and key_exists(key)):
            continue
        if any(Path(key).is_relative_to(folder) for folder in folders):
            stale.append(key)
    return sorted(stale)


def _trusted_mtime_ns(stat: FileStat) -> int:
    """``stat.mtime_ns``, or 0 ("hash it next time") if the file changed very recently."""
    return stat.mtime_ns if time.time_ns() - stat.mtime_ns > RACY_SECONDS * 1e9 else 0


def _same_single_file(path: Path, before: FileStat) -> bool:
    """Whether ``path`` is still the inode ``before`` was read from, with one link."""
    try:
        after = stat_file(path)
    except OSError:
        return False
    return after.inode == before.inode and after.links == 1


def _unchanged_stat(previous: StoredDocument | None, stat: FileStat) -> bool:
    return (previous is not None and previous.indexer == INDEXER_VERSION
            and previous.mtime_ns != 0 and previous.mtime_ns == stat.mtime_ns
            and previous.size == stat.size)


class _Adder:
    def __init__(
        self,
        index: Index,
        conn: sqlite3.Connection,
        progress: ProgressCallback | None,
        chunking: tuple[int, int],
        on_change: ChangeCallback | None = None,
        *,
        refuse_hard_links: bool = False,
    ) -> None:
        self.index = index
        self.refuse_hard_links = refuse_hard_links
        self.on_change = on_change
        self.conn = conn
        self.progress = progress
        self.target_tokens, self.overlap_tokens = chunking
        self.report = IndexReport()
        self.stored = index.documents()
        self.done = 0
        self.total = 0
        self.batch_started = time.monotonic()
        self.unsynced = 0
        self.feed = Feeder(index.path)

    def _tick(self, path: Path, action: Action) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(AddProgress(self.done, self.total, path, action))

    def _fail(self, path: Path, reason: str) -> None:
        logger.info("could not index %s: %s", display_path(path), reason)
        self.report.failed.append((path, reason))
        key = document_key(path)
        if key in self.stored:
            # Never keep citing content the file no longer yields.
            self.index.delete_document(self.conn, key, self.feed)
            self._changed(key)
        self._tick(path, "failed")

    def _changed(self, key: str) -> None:
        if self.on_change is not None:
            self.on_change(key)

    def _skip(self, path: Path) -> None:
        self.report.skipped.append(path)
        self._tick(path, "skipped")

    def add_file(self, path: Path) -> None:
        key = document_key(path)
        previous = self.stored.get(key)
        try:
            stat = stat_file(path)
            if self.refuse_hard_links and stat.links > 1:
                raise HardLinkError
            if _unchanged_stat(previous, stat):
                self._skip(path)
                return
            sha256 = hash_file(path, refuse_hard_links=self.refuse_hard_links)
        except HardLinkError:
            self._fail(path, HARD_LINK)
            return
        except OSError as exc:
            self._fail(path, f"cannot read file ({exc.strerror or exc})")
            return
        if previous is not None and previous.indexer == INDEXER_VERSION \
                and previous.sha256 == sha256:
            self.index.touch_document(self.conn, key, stat.size, stat.mtime,
                                      _trusted_mtime_ns(stat))
            self._skip(path)
            return
        try:
            document = load_document(path)
        except LoadError as exc:
            self._fail(path, exc.reason)
            return
        if self.refuse_hard_links and not _same_single_file(path, stat):
            self._fail(path, HARD_LINK)
            return
        chunks = chunk_document(document, target_tokens=self.target_tokens,
                                overlap_tokens=self.overlap_tokens)
        shown = display_path(path)
        self.report.warnings.extend(f"{shown}: {warning}" for warning in document.warnings)
        if not chunks:
            self.report.warnings.append(f"{shown}: no text found; nothing to search")
        record = DocumentRecord(key, document.title, document.kind, sha256, stat.size,
                                stat.mtime, _trusted_mtime_ns(stat))
        try:
            self.index.put_document(self.conn, record, chunks, self.feed)
        except UnicodeEncodeError as exc:  # lone surrogates from a (plugin) loader
            self._fail(path, f"its loader produced text that is not valid Unicode ({exc.reason})")
            return
        self._changed(key)
        action: Action = "added" if previous is None else "updated"
        (self.report.added if previous is None else self.report.updated).append(path)
        self._tick(path, action)
        self.unsynced += len(chunks)
        if time.monotonic() - self.batch_started >= BATCH_SECONDS:
            if self.unsynced >= SYNC_EVERY:  # keep the catch-up after the add short
                self.index.commit(self.conn)
                self.index.sync_inverted(self.conn, self.feed)
                self.feed.start(self.conn)
                self.unsynced = 0
            self.index.checkpoint(self.conn)
            self.batch_started = time.monotonic()

    def run(self, found: Discovery) -> IndexReport:
        self.report.ignored.extend(found.ignored)
        stale = _stale(self.stored, found)
        self.total = len(found.files) + len(found.unsupported) + len(stale)
        for path in found.unsupported:
            suffixes = ", ".join(supported_suffixes())
            self._fail(path, f"unsupported file type {path.suffix or '(none)'}; "
                             f"supported: {suffixes}")
        for path in found.files:
            self.add_file(path)
        for key in stale:
            self.index.delete_document(self.conn, key, self.feed)
            self._changed(key)
            self.report.removed.append(Path(key))
            self._tick(Path(key), "removed")
        return self.report


def add_to_index(
    index: Index,
    inputs: Path | Sequence[Path],
    progress: ProgressCallback | None = None,
    *,
    target_tokens: int = TARGET_TOKENS,
    overlap_tokens: int = OVERLAP_TOKENS,
    on_change: ChangeCallback | None = None,
    refuse_hard_links: bool = False,
) -> IndexReport:
    """Index ``inputs`` (folders and/or files) into ``index``; see :class:`IndexReport`.

    ``target_tokens``/``overlap_tokens`` size the chunks of files indexed by this call;
    unchanged files keep the chunks they were indexed with. ``on_change`` is told each
    document whose chunks were written or deleted (to mirror them elsewhere).
    ``refuse_hard_links``: the server folders' rule (module doc).
    """
    found = discover(inputs, refuse_hard_links=refuse_hard_links)
    try:
        with index.connect() as conn:
            conn.execute("PRAGMA cache_size=-32000")  # 32 MB: FTS merges touch many pages
            index.sync_inverted(conn)  # catch up after an interrupted add
            adder = _Adder(index, conn, progress, (target_tokens, overlap_tokens),
                           on_change, refuse_hard_links=refuse_hard_links)
            adder.feed.start(conn)
            try:
                with index.batch(conn):
                    report = adder.run(found)
                    record_stats(conn)
                index.sync_inverted(conn, adder.feed)
            finally:
                adder.feed.discard()
            return report
    except sqlite3.Error as exc:
        raise index.write_error(exc, "index into this collection") from exc
