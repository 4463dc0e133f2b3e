"""Named document collections: create, open, fill, search, list and remove them.

A collection is one SQLite file, by default ``<data_dir>/collections/<name>.sqlite``.
Names are restricted to a safe character set because they become file names and are
typed on command lines. Search results come back as ordinary
:class:`~deepcite.types.SearchResult` objects whose ``url`` is a ``file://`` URI (with
``#page=N`` for PDFs, which browsers and PDF viewers understand), so local documents
are cited exactly like web pages.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from deepcite.collections.dense import embed_collection, hybrid_search, is_dense
from deepcite.collections.index import Hit, Index
from deepcite.collections.indexer import IndexReport, ProgressCallback, add_to_index
from deepcite.config import Settings
from deepcite.errors import CollectionError
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
SUFFIX = ".sqlite"
ENGINE_NAME = "local"


@dataclass(frozen=True)
class CollectionInfo:
    """Summary of one collection for listings (``updated`` is UTC, ``None`` if unknown)."""

    name: str
    path: Path
    documents: int
    chunks: int
    size_bytes: int
    updated: datetime | None


def validate_name(name: str) -> str:
    """Return ``name`` if it is a valid collection name, else raise ``CollectionError``."""
    if not NAME_PATTERN.fullmatch(name):
        raise CollectionError(
            f"Invalid collection name {name!r}: use 1-64 characters from letters, digits, "
            f"'_', '.' and '-', starting with a letter or digit"
        )
    return name


def collections_dir(settings: Settings) -> Path:
    """Where named collections live: ``<data_dir>/collections``."""
    return settings.data_dir / "collections"


def collection_path(name: str, settings: Settings) -> Path:
    """The default file of the collection called ``name``."""
    return collections_dir(settings) / f"{validate_name(name)}{SUFFIX}"


def _missing(name: str) -> CollectionError:
    return CollectionError(
        f"No collection named {name!r} - create it with "
        f"`deepcite collection add FOLDER --name {name}`"
    )


class Collection:
    """One collection; cheap to construct, holds no open connection."""

    def __init__(self, name: str, index: Index, settings: Settings | None = None) -> None:
        self.name = name
        self.index = index
        self.settings = settings if settings is not None else Settings()

    @property
    def path(self) -> Path:
        """The collection's SQLite file."""
        return self.index.path

    def __repr__(self) -> str:
        return f"Collection(name={self.name!r}, path={str(self.path)!r})"

    @classmethod
    def create(cls, name: str, path: Path | None = None, *, settings: Settings) -> Collection:
        """Create the collection ``name`` (at ``path`` if given); open it if it exists."""
        validate_name(name)
        file = path if path is not None else collection_path(name, settings)
        if file.exists():
            return cls._from_file(file, name, settings)
        return cls(name, Index.create(file, name), settings)

    @classmethod
    def open(cls, name_or_path: str | Path, *, settings: Settings) -> Collection:
        """Open a collection by name, or by file path (a ``Path`` or a string with ``/``)."""
        if isinstance(name_or_path, Path) or "/" in name_or_path or "\\" in name_or_path:
            file = Path(name_or_path)
            if not file.is_file():
                raise CollectionError(f"No collection file at {file}")
            return cls._from_file(file, None, settings)
        file = collection_path(name_or_path, settings)
        if not file.is_file():
            raise _missing(name_or_path)
        return cls._from_file(file, name_or_path, settings)

    @classmethod
    def _from_file(cls, file: Path, name: str | None, settings: Settings) -> Collection:
        index = Index(file)
        index.check()
        if name is None:
            stored = index.get_meta("name")
            name = stored if stored else file.stem
        return cls(name, index, settings)

    # ------------------------------------------------------------------ content

    def add(
        self,
        folder_or_files: Path | Sequence[Path],
        progress: ProgressCallback | None = None,
        *,
        dense: bool | None = None,
        reembed: bool = False,
        embed_progress: Callable[[int, int], None] | None = None,
    ) -> IndexReport:
        """Index folders (recursively) and files; unchanged files are skipped.

        Raises :class:`CollectionError` when an input does not exist; files that fail
        to load are reported in :attr:`IndexReport.failed` and the rest is indexed.
        With ``dense`` (default: ``search.dense``), or when the collection already has
        embeddings, new chunks are embedded too; ``reembed`` redoes all of them.
        """
        search = self.settings.search
        report = add_to_index(self.index, folder_or_files, progress,
                              target_tokens=search.chunk_tokens,
                              overlap_tokens=search.chunk_overlap_tokens)
        wants_dense = search.dense if dense is None else dense
        if wants_dense or reembed or is_dense(self.index):
            report.embedded = embed_collection(self.index, self.settings, reembed=reembed,
                                               progress=embed_progress)
        logger.info("collection %s: %s", self.name, report.summary())
        return report

    def search(self, query: str, k: int = 10) -> list[SearchResult]:
        """The ``k`` best-matching chunks, best first; ``[]`` for a query of stopwords.

        Safe to call from several threads at once (each call has its own connection).
        """
        try:
            if is_dense(self.index):
                hits = hybrid_search(self.index, query, k, self.settings)
            else:
                hits = self.index.search(query, k)
        except sqlite3.Error as exc:
            raise CollectionError(f"Search in collection {self.name!r} failed: {exc}") from exc
        return [self._result(hit) for hit in hits]

    def _result(self, hit: Hit) -> SearchResult:
        path = Path(hit.path)
        url = path.as_uri()
        if hit.kind == "pdf" and hit.page is not None:
            url += f"#page={hit.page}"
        return SearchResult(
            title=hit.title or path.name,
            url=url,
            snippet=hit.text,
            engine=ENGINE_NAME,
            metadata={
                "collection": self.name,
                "path": hit.path,
                "page": hit.page,
                "heading": hit.heading,
                "heading_path": list(hit.heading_path),
                "kind": hit.kind,
                "start": hit.start,
                "end": hit.end,
                "score": hit.score,
                "chunk_id": hit.chunk_id,
                "document_title": hit.title,
            },
        )

    def info(self) -> CollectionInfo:
        """Counts, file size (database plus write-ahead log) and last change time."""
        try:
            documents, chunks = self.index.counts()
            updated_raw = self.index.get_meta("updated")
        except sqlite3.Error as exc:
            raise CollectionError(f"{self.path}: cannot read collection ({exc})") from exc
        size = sum(
            p.stat().st_size
            for p in (self.path, Path(f"{self.path}-wal"))
            if p.exists()
        )
        updated = (
            datetime.fromtimestamp(float(updated_raw), tz=UTC) if updated_raw else None
        )
        return CollectionInfo(self.name, self.path, documents, chunks, size, updated)


def list_collections(settings: Settings) -> list[CollectionInfo]:
    """Every collection in the data directory, by name; unreadable files are skipped."""
    folder = collections_dir(settings)
    if not folder.is_dir():
        return []
    infos = []
    for file in sorted(folder.glob(f"*{SUFFIX}")):
        try:
            infos.append(Collection._from_file(file, file.stem, settings).info())
        except CollectionError as exc:
            logger.warning("skipping %s: %s", file, exc)
    return infos


def remove_collection(name: str, settings: Settings) -> None:
    """Delete the collection ``name`` (its SQLite file and WAL side files)."""
    file = collection_path(name, settings)
    if not file.is_file():
        raise _missing(name)
    for path in (file, Path(f"{file}-wal"), Path(f"{file}-shm")):
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            raise CollectionError(f"Cannot remove {path} ({exc.strerror or exc})") from exc
    logger.info("removed collection %s (%s)", name, file)
