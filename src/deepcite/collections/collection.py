"""Named document collections: create, open, fill, search, list and remove them.

A collection is one SQLite file, by default ``<data_dir>/collections/<name>.sqlite``.
Names are restricted to a safe character set because they become file names and are
typed on command lines. Search results come back as ordinary
:class:`~deepcite.types.SearchResult` objects whose ``url`` is a ``file://`` URI (with
``#page=N`` for PDFs, which browsers and PDF viewers understand), so local documents
are cited exactly like web pages.

With ``backend="elasticsearch"`` the chunks are also mirrored to a cluster and searched
there, and a machine without the SQLite file can search the collection through the
cluster alone (see :mod:`deepcite.collections.index.elastic`).

A collection in a read-only folder can still be listed and searched; changing it fails
up front with a one-line :class:`~deepcite.collections.file_access.ReadOnlyCollectionError`
(see :mod:`deepcite.collections.file_access`).

This is public API (``Collection.create("notes")`` in a script), so arguments are
checked here: settings default to what :func:`~deepcite.config.load_settings` gives,
paths may be ``str`` or ``Path``, and a wrong argument is a one-line
:class:`~deepcite.errors.CollectionError`, never a ``TypeError`` from deep inside.

The class and the listing live here; the jobs around them each have a private module,
whose public names are importable from here as before: ``_arguments`` (those argument
checks), ``_places`` (valid names, where a collection's files live), ``_search_results``
(hits as cited results), ``_document_text`` (a document's text from its chunks),
``_mirroring`` (an add to an ``elasticsearch`` collection) and ``_removal`` (deleting a
collection and its uploads).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from deepcite.build_once import BuildLock, lock_file
from deepcite.collections import file_access
from deepcite.collections._arguments import (
    PathArg,
    as_inputs,
    as_path,
    backend_named,
    kind_of,
    settings_or_default,
)
from deepcite.collections._document_text import DocumentPart, DocumentText, read_document_text
from deepcite.collections._mirroring import add_mirrored
from deepcite.collections._places import (
    NAME_PATTERN,
    SUFFIX,
    collection_path,
    collections_dir,
    missing_collection,
    upload_folder,
    validate_name,
)
from deepcite.collections._removal import remove_collection, remove_uploads
from deepcite.collections._search_results import ENGINE_NAME, search_result
from deepcite.collections.index import Index, elastic, inverted
from deepcite.collections.index.dense import embed_collection, hybrid_search, is_dense
from deepcite.collections.index.elastic import Cluster, ElasticIndex
from deepcite.collections.indexer import IndexReport, ProgressCallback, add_to_index
from deepcite.config import Settings
from deepcite.errors import CollectionError, mapped_errors
from deepcite.types import SearchResult

__all__ = [  # what other modules import from here, wherever it is defined
    "ENGINE_NAME",
    "NAME_PATTERN",
    "SUFFIX",
    "Collection",
    "CollectionInfo",
    "CollectionListing",
    "DocumentPart",
    "DocumentText",
    "PathArg",
    "collection_path",
    "collections_dir",
    "list_collections",
    "missing_collection",
    "remove_collection",
    "remove_uploads",
    "scan_collections",
    "upload_folder",
    "validate_name",
]

logger = logging.getLogger(__name__)

@dataclass(frozen=True)
class CollectionInfo:
    """Summary of one collection for listings (``updated`` is UTC, ``None`` if unknown).

    ``read_only``: it can be searched but not changed (its file or folder is read-only).
    ``backend``: ``sqlite`` (the embedded index) or ``elasticsearch``.
    """

    name: str
    path: Path
    documents: int
    chunks: int
    size_bytes: int
    updated: datetime | None
    read_only: bool = False
    backend: str = "sqlite"


@dataclass(frozen=True)
class CollectionListing:
    """Everything :func:`scan_collections` found in the collections folder.

    ``problems`` names the files that could not be read and why, so a listing never
    pretends there are no collections when there are; ``read_only`` says the folder
    itself cannot be written (nothing can be added or removed there).
    """

    folder: Path
    infos: list[CollectionInfo]
    problems: list[tuple[Path, str]]
    read_only: bool


class Collection:
    """One collection; cheap to construct, holds no open connection.

    ``elastic`` is the cluster index of an ``elasticsearch`` collection (``None`` for the
    embedded backend); ``search_only`` says there is no SQLite file here, only the index.
    """

    def __init__(self, name: str, index: Index, settings: Settings | None = None, *,
                 elastic: ElasticIndex | None = None, search_only: bool = False) -> None:
        self.name = name
        self.index = index
        self.settings = settings_or_default(settings)
        self.elastic = elastic
        self.search_only = search_only

    @property
    def backend(self) -> str:
        """``sqlite`` or ``elasticsearch``: where searches go."""
        return "sqlite" if self.elastic is None else "elasticsearch"

    @property
    def path(self) -> Path:
        """The collection's SQLite file."""
        return self.index.path

    def __repr__(self) -> str:
        return f"Collection(name={self.name!r}, path={str(self.path)!r})"

    @classmethod
    def create(cls, name: str, path: PathArg | None = None, *,
               settings: Settings | None = None, backend: str | None = None) -> Collection:
        """Create the collection ``name`` (at ``path`` if given); open it if it exists.

        ``settings`` default to :func:`~deepcite.config.load_settings` (``data_dir`` says
        where named collections live). ``backend`` is ``sqlite`` (the default for a new
        collection) or ``elasticsearch`` (chunks mirrored to and searched on the cluster
        ``engines.elasticsearch_url``); an existing collection keeps its backend, and
        asking for the other one is an error.
        """
        validate_name(name)
        settings = settings_or_default(settings)
        wanted = None if backend is None else backend_named(backend)
        file = (as_path(path, "The collection path") if path is not None
                else collection_path(name, settings))
        if file.exists():
            found = cls._from_file(file, name, settings)
            if wanted is not None and wanted != found.backend:
                raise CollectionError(
                    f"Collection {name!r} uses the {found.backend} backend; it cannot change "
                    f"to {wanted} - remove it (`deepcite collection rm {name}`) and add its "
                    f"folders again, or use another name")
            return found
        if wanted != "elasticsearch":
            return cls(name, Index.create(file, name), settings)
        remote = ElasticIndex(Cluster(settings), elastic.index_name(name), name)
        if not file_access.can_write(file):  # before anything is made on the cluster
            raise file_access.read_only_error(file, f"create collection {name!r}")
        if remote.exists():
            raise elastic.lives_elsewhere(name)
        remote.create()
        index = Index.create(file, name)
        try:
            with index.connect() as conn, index.transaction(conn):
                Index.set_meta(conn, "backend", "elasticsearch")
                Index.set_meta(conn, "index", remote.name)
        except sqlite3.Error as exc:
            raise index.write_error(exc, f"create collection {name!r}") from exc
        return cls(name, index, settings, elastic=remote)

    @classmethod
    def open(cls, name_or_path: PathArg, *, settings: Settings | None = None) -> Collection:
        """Open a collection by name, or by file path (a ``Path`` or a string with ``/``)."""
        if not isinstance(name_or_path, str | os.PathLike):
            raise CollectionError(f"Collection.open() takes a collection name or a file path "
                                  f"(str or Path), not {kind_of(name_or_path)}")
        settings = settings_or_default(settings)
        if not isinstance(name_or_path, str) or "/" in name_or_path or "\\" in name_or_path:
            file = as_path(name_or_path, "The collection file")
            if not file.is_file():
                raise CollectionError(f"No collection file at {file}")
            return cls._from_file(file, None, settings)
        return cls.named(name_or_path, settings=settings)

    @classmethod
    def named(cls, name: str, *, settings: Settings | None = None) -> Collection:
        """Open the collection called ``name``: a name only, never a file path.

        What servers and research runs use (``search.collections`` holds names), so a
        request cannot make the server open a file outside the data folder: anything
        that is not a valid name is refused before the file system is looked at, and an
        unknown name gets the same reply whatever exists elsewhere.
        """
        validate_name(name)
        settings = settings_or_default(settings)
        file = collection_path(name, settings)
        if not file.exists():  # something else in its place gets its own message (check)
            return cls._search_only(name, file, settings)
        return cls._from_file(file, name, settings)

    @classmethod
    def _search_only(cls, name: str, file: Path, settings: Settings) -> Collection:
        """The collection ``name`` from the cluster alone (its SQLite file is elsewhere)."""
        cluster = Cluster(settings)
        if not cluster.configured:
            raise missing_collection(name)
        remote = ElasticIndex(cluster, elastic.index_name(name), name)
        try:
            found = remote.exists()
        except CollectionError as exc:
            raise CollectionError(f"{missing_collection(name)} (not here, and the cluster "
                                  f"could not be asked: {exc})") from None
        if not found:
            raise CollectionError(f"{missing_collection(name)} (neither here nor as index "
                                  f"{remote.name} at {cluster.display_url})")
        return cls(name, Index(file), settings, elastic=remote, search_only=True)

    @classmethod
    def _from_file(cls, file: Path, name: str | None, settings: Settings) -> Collection:
        index = Index(file)
        index.check()
        if name is None:
            stored = index.get_meta("name")
            name = stored if stored else file.stem
        remote = None
        with mapped_errors("collection", f"{file}: cannot read collection"):
            backend = index.get_meta("backend")
            if backend == "elasticsearch":
                remote = ElasticIndex(Cluster(settings),
                                      index.get_meta("index") or elastic.index_name(name), name)
        return cls(name, index, settings, elastic=remote)

    # ------------------------------------------------------------------ content

    def add(
        self,
        folder_or_files: PathArg | Sequence[PathArg],
        progress: ProgressCallback | None = None,
        *,
        dense: bool | None = None,
        reembed: bool = False,
        embed_progress: Callable[[int, int], None] | None = None,
        on_wait: Callable[[], None] | None = None,
        refuse_hard_links: bool = False,
    ) -> IndexReport:
        """Index folders (recursively) and files; unchanged files are skipped.

        ``folder_or_files`` is one path (``str`` or ``Path``) or a list of them.
        Raises :class:`CollectionError` when an input does not exist or is not a path, and
        :class:`~deepcite.collections.file_access.ReadOnlyCollectionError` before reading
        anything when the collection cannot be written; files that fail to load are
        reported in :attr:`IndexReport.failed` and the rest is indexed.
        With ``dense`` (default: ``search.dense``), or when the collection already has
        embeddings, new chunks are embedded too; ``reembed`` redoes all of them.

        One add at a time per collection, across threads and processes (a lock file
        beside it, see :mod:`deepcite.build_once`); ``on_wait`` is told when this one
        waits for another. The waiter then compares the files with what the other
        indexed, so a folder added twice at once is indexed once.

        ``refuse_hard_links`` is for a server folder (the web app's folder roots and
        uploads): a file with more than one hard link is not indexed, as a symbolic
        link is not (see :mod:`deepcite.collections.files`).
        """
        inputs = as_inputs(folder_or_files)
        with self._change_lock("add to").held(on_wait):
            return self._add(inputs, progress, dense=dense, reembed=reembed,
                             embed_progress=embed_progress,
                             refuse_hard_links=refuse_hard_links)

    def _change_lock(self, doing: str) -> BuildLock:
        """The lock every change of the index is made under (adds and removals, from any
        process), once the collection may be changed here: not one whose index lives
        only in Elasticsearch, not a read-only file (the error says what was being done:
        ``doing`` "add to", "remove a document from")."""
        if self.search_only:
            raise elastic.lives_elsewhere(self.name)
        self.index.require_writable(f"{doing} collection {self.name!r}")
        return BuildLock(lock_file(self.path), what=f"collection {self.name!r}",
                         error=CollectionError)

    def _add(self, inputs: list[Path], progress: ProgressCallback | None, *,
             dense: bool | None, reembed: bool,
             embed_progress: Callable[[int, int], None] | None,
             refuse_hard_links: bool = False) -> IndexReport:
        """:meth:`add`, under the collection's lock."""
        search = self.settings.search
        if self.elastic is not None:
            if dense or reembed:
                raise CollectionError(
                    f"Collection {self.name!r} is searched in Elasticsearch, which has no "
                    f"dense (hybrid) search here - add without --dense/--reembed")
            report = add_mirrored(self.index, self.elastic, inputs, progress,
                                  self.settings, refuse_hard_links)
            logger.info("collection %s: %s", self.name, report.summary())
            return report
        report = add_to_index(self.index, inputs, progress,
                              target_tokens=search.chunk_tokens,
                              overlap_tokens=search.chunk_overlap_tokens,
                              refuse_hard_links=refuse_hard_links)
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
        if not isinstance(query, str):
            raise CollectionError(f"search() takes the query as text (str), not {kind_of(query)}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise CollectionError(f"search() needs k, the number of results, as a whole "
                                  f"number of at least 1, not {k!r}")
        if self.elastic is not None:
            return [search_result(hit, self.name) for hit in self.elastic.search(query, k)]
        with mapped_errors("collection",
                           lambda cause: f"Search in collection {self.name!r} failed: {cause}"):
            if is_dense(self.index, searching=True):
                hits = hybrid_search(self.index, query, k, self.settings)
            else:
                hits = self.index.search(query, k)
        return [search_result(hit, self.name) for hit in hits]

    def document_text(self, key: str) -> DocumentText | None:
        """The indexed text of the document stored as ``key`` (its resolved path, as
        :meth:`Index.documents` lists it), or ``None`` when no such document is indexed.

        Consecutive chunks overlap (see :mod:`deepcite.collections.chunking`); their
        page offsets let the overlap be dropped, so the text reads once.
        """
        if self.search_only:
            return None
        return read_document_text(self.index, key)

    def remove_document(self, key: str) -> bool:
        """Take the document stored as ``key`` out of the index (its chunks, the
        inverted index's and, for Elasticsearch, the cluster's copy); ``False`` when it
        was not indexed. The file itself is not touched: a later add of its folder
        indexes it again. Raises :class:`CollectionError` when the collection cannot
        be changed here (read-only, or its file lives in Elasticsearch only).
        """
        from deepcite.collections.index.rerank import record_stats

        with self._change_lock("remove a document from").held(None):
            try:
                with self.index.connect() as conn:
                    if conn.execute("SELECT 1 FROM documents WHERE path = ?",
                                    (key,)).fetchone() is None:
                        return False
                    self.index.sync_inverted(conn)
                    with self.index.transaction(conn):
                        self.index.delete_document(conn, key)
                        record_stats(conn)
                    self.index.sync_inverted(conn)
            except sqlite3.Error as exc:
                raise self.index.write_error(exc, "remove a document") from exc
            if self.elastic is not None:
                self.elastic.mirror(self.index, {key})
        logger.info("collection %s: removed %s", self.name, key)
        return True

    def info(self) -> CollectionInfo:
        """Counts, size on disk (database, write-ahead log, inverted index), last change.

        A search-only collection (no SQLite file here) asks the cluster for its counts.
        """
        if self.search_only and self.elastic is not None:
            return CollectionInfo(self.name, self.path, self.elastic.document_count(),
                                  self.elastic.count(), 0, None, read_only=True,
                                  backend=self.backend)
        with mapped_errors("collection", f"{self.path}: cannot read collection"):
            documents, chunks = self.index.counts()
            updated_raw = self.index.get_meta("updated")
        size = sum(
            p.stat().st_size
            for p in (self.path, Path(f"{self.path}-wal"))
            if p.exists()
        ) + inverted.size(self.path)
        updated = (
            datetime.fromtimestamp(float(updated_raw), tz=UTC) if updated_raw else None
        )
        return CollectionInfo(self.name, self.path, documents, chunks, size, updated,
                              read_only=not self.index.writable, backend=self.backend)


def scan_collections(settings: Settings) -> CollectionListing:
    """Every collection in the data directory by name, plus the files it cannot read.

    Opening is read-only where the folder is (see
    :mod:`~deepcite.collections.file_access`), so a read-only folder still lists its
    collections.
    """
    folder = collections_dir(settings)
    if not folder.is_dir():
        return CollectionListing(folder, [], [], read_only=False)
    infos: list[CollectionInfo] = []
    problems: list[tuple[Path, str]] = []
    for file in sorted(folder.glob(f"*{SUFFIX}")):
        try:
            infos.append(Collection._from_file(file, file.stem, settings).info())
        except CollectionError as exc:
            logger.warning("skipping %s: %s", file, exc)
            problems.append((file, str(exc)))
    return CollectionListing(folder, infos, problems, read_only=not file_access.writable(folder))


def list_collections(settings: Settings) -> list[CollectionInfo]:
    """Every readable collection in the data directory, by name (see :func:`scan_collections`)."""
    return scan_collections(settings).infos
