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
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from deepcite.build_once import BuildLock, lock_file
from deepcite.collections import file_access
from deepcite.collections.index import Hit, Index, elastic, inverted, readers
from deepcite.collections.index.dense import embed_collection, hybrid_search, is_dense
from deepcite.collections.index.elastic import BACKENDS, Cluster, ElasticIndex
from deepcite.collections.indexer import IndexReport, ProgressCallback, add_to_index
from deepcite.collections.paths import file_path
from deepcite.config import Settings, load_settings
from deepcite.config_sections import COLLECTION_NAME, collection_name_problem
from deepcite.errors import CollectionError, mapped_errors
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)

NAME_PATTERN = COLLECTION_NAME
SUFFIX = ".sqlite"
ENGINE_NAME = "local"


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


@dataclass(frozen=True)
class DocumentPart:
    """A stretch of one indexed document's text, on one page (``None``: no pages)."""

    page: int | None
    text: str


@dataclass(frozen=True)
class DocumentText:
    """What a collection holds of one document: its title, kind and indexed text,
    rebuilt from its chunks so that a reader sees what searches and reports cite."""

    path: str
    title: str
    kind: str
    parts: list[DocumentPart]


PathArg = str | os.PathLike[str]
"""A file or folder as the Python API accepts it."""


def _kind(value: object) -> str:
    return "None" if value is None else type(value).__name__


def _settings(settings: Settings | None) -> Settings:
    """``settings``, or the layered defaults (config files, ``DEEPCITE_*``) when ``None``."""
    if settings is None:
        return load_settings()
    if not isinstance(settings, Settings):
        raise CollectionError(f"settings must be a deepcite Settings object (from "
                              f"load_settings()), not {_kind(settings)}")
    return settings


def _as_path(value: object, what: str) -> Path:
    if isinstance(value, str | os.PathLike):
        if str(value).strip():
            return Path(value)
        raise CollectionError(f"{what} is empty - give a file or folder path")
    raise CollectionError(f"{what} must be a path (str or Path), not {_kind(value)}")


def _as_inputs(value: object) -> list[Path]:
    """What ``add`` accepts: one path, or a non-empty list or tuple of paths."""
    if isinstance(value, str | os.PathLike):
        return [_as_path(value, "The folder or file to add")]
    if isinstance(value, list | tuple) and value:
        return [_as_path(item, "Each folder or file to add") for item in value]
    shown = "an empty list" if isinstance(value, list | tuple) else _kind(value)
    raise CollectionError(f"add() takes a folder or file path (str or Path) or a list of "
                          f"them, not {shown}")


def validate_name(name: str) -> str:
    """Return ``name`` if it is a valid collection name, else raise ``CollectionError``.

    Every front end that takes a name from a request calls this (and :meth:`Collection.named`
    does again), because a name becomes a file name under the data folder: a path given
    as a name must never reach the file system. The rule itself is
    :func:`deepcite.config_sections.collection_name_problem`, which the settings
    (``search.collections``) use too, so a config file and a request refuse the same
    names with the same words.
    """
    problem = collection_name_problem(name)
    if problem is not None:
        raise CollectionError(problem)
    return name


def collections_dir(settings: Settings) -> Path:
    """Where named collections live: ``<data_dir>/collections``."""
    return settings.data_dir / "collections"


def collection_path(name: str, settings: Settings) -> Path:
    """The default file of the collection called ``name``."""
    return collections_dir(settings) / f"{validate_name(name)}{SUFFIX}"


def upload_folder(settings: Settings, name: str) -> Path:
    """Where the files uploaded into collection ``name`` on the web pages are kept
    (``name`` is valid); deleting the collection deletes the folder too."""
    return Path(settings.data_dir).expanduser() / "uploads" / name


def remove_uploads(settings: Settings, name: str) -> str | None:
    """Delete the files uploaded into collection ``name`` (none is no error): part of
    deleting a collection, from its page or with its owner's account. A warning line
    when they could not all be deleted."""
    uploads = upload_folder(settings, name)
    if not uploads.is_dir():
        return None
    try:
        shutil.rmtree(uploads)
    except OSError as exc:
        return f"the uploaded files in {uploads} were left: {exc}"
    return None


def missing_collection(name: str) -> CollectionError:
    """The error for a collection name that names none (also what a name the asker
    may not search is answered, so that names reveal nothing)."""
    return CollectionError(
        f"No collection named {name!r} - create it with "
        f"`deepcite collection add FOLDER --name {name}`"
    )


def _backend(value: object) -> str:
    if isinstance(value, str) and value in BACKENDS:
        return value
    raise CollectionError(f"Unknown collection backend {value!r} - use one of "
                          f"{', '.join(BACKENDS)}")


@functools.lru_cache(maxsize=4096)
def _file_url(key: str) -> str:
    """The ``file:`` URL of a stored path (remembered: a search builds ten of them, and
    ``pathlib`` took a fifth of a fast search's time)."""
    path = file_path(key)  # the real file, also for a name that was not UTF-8
    return path.as_uri()  # percent-encodes the file's bytes: valid ASCII either way


class Collection:
    """One collection; cheap to construct, holds no open connection.

    ``elastic`` is the cluster index of an ``elasticsearch`` collection (``None`` for the
    embedded backend); ``search_only`` says there is no SQLite file here, only the index.
    """

    def __init__(self, name: str, index: Index, settings: Settings | None = None, *,
                 elastic: ElasticIndex | None = None, search_only: bool = False) -> None:
        self.name = name
        self.index = index
        self.settings = _settings(settings)
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
        settings = _settings(settings)
        wanted = None if backend is None else _backend(backend)
        file = (_as_path(path, "The collection path") if path is not None
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
                                  f"(str or Path), not {_kind(name_or_path)}")
        settings = _settings(settings)
        if not isinstance(name_or_path, str) or "/" in name_or_path or "\\" in name_or_path:
            file = _as_path(name_or_path, "The collection file")
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
        settings = _settings(settings)
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
        inputs = _as_inputs(folder_or_files)
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
            report = self._add_mirrored(self.elastic, inputs, progress, refuse_hard_links)
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

    def _add_mirrored(self, remote: ElasticIndex, inputs: list[Path],
                      progress: ProgressCallback | None,
                      refuse_hard_links: bool = False) -> IndexReport:
        """Index into the SQLite file, then mirror the changed documents to the cluster.

        What is still owed to the cluster is recorded first as "everything" (so a crash
        leads to a full re-send next time) and, when the add or the mirroring fails or
        is interrupted, as exactly the documents concerned.
        """
        pending = elastic.load_pending(self.index)
        if not remote.exists():  # first use, or the index was deleted on the cluster
            remote.create()
            pending = None
        elastic.store_pending(self.index, None)
        changed: set[str] = set()
        search = self.settings.search
        try:
            report = add_to_index(self.index, inputs, progress,
                                  target_tokens=search.chunk_tokens,
                                  overlap_tokens=search.chunk_overlap_tokens,
                                  on_change=changed.add,
                                  refuse_hard_links=refuse_hard_links)
            remote.mirror(self.index, None if pending is None else pending | changed)
        except BaseException:
            owed = None if pending is None else pending | changed
            with contextlib.suppress(sqlite3.Error):  # else "*" stays: all is re-sent
                elastic.store_pending(self.index, owed)
            raise
        elastic.store_pending(self.index, set())
        return report

    def search(self, query: str, k: int = 10) -> list[SearchResult]:
        """The ``k`` best-matching chunks, best first; ``[]`` for a query of stopwords.

        Safe to call from several threads at once (each call has its own connection).
        """
        if not isinstance(query, str):
            raise CollectionError(f"search() takes the query as text (str), not {_kind(query)}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise CollectionError(f"search() needs k, the number of results, as a whole "
                                  f"number of at least 1, not {k!r}")
        if self.elastic is not None:
            return [self._result(hit) for hit in self.elastic.search(query, k)]
        with mapped_errors("collection",
                           lambda cause: f"Search in collection {self.name!r} failed: {cause}"):
            if is_dense(self.index, searching=True):
                hits = hybrid_search(self.index, query, k, self.settings)
            else:
                hits = self.index.search(query, k)
        return [self._result(hit) for hit in hits]

    def _result(self, hit: Hit) -> SearchResult:
        url = _file_url(hit.path)
        if hit.kind == "pdf" and hit.page is not None:
            url += f"#page={hit.page}"
        return SearchResult(
            title=hit.title or Path(hit.path).name,
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

    def document_text(self, key: str) -> DocumentText | None:
        """The indexed text of the document stored as ``key`` (its resolved path, as
        :meth:`Index.documents` lists it), or ``None`` when no such document is indexed.

        Consecutive chunks overlap (see :mod:`deepcite.collections.chunking`); their
        page offsets let the overlap be dropped, so the text reads once.
        """
        if self.search_only:
            return None
        with mapped_errors("collection", f"{self.path}: cannot read collection"), \
                self.index.connect() as conn:
            row = conn.execute("SELECT id, title, kind FROM documents WHERE path = ?",
                               (key,)).fetchone()
            if row is None:
                return None
            chunks = conn.execute(
                'SELECT text, page, start, "end" FROM chunks WHERE doc_id = ? ORDER BY ord',
                (row[0],)).fetchall()
        parts: list[DocumentPart] = []
        reached: dict[int | None, int] = {}
        for text, page, start, end in chunks:
            done = reached.get(page, -1)
            if isinstance(start, int) and isinstance(end, int) and end - start == len(text):
                if start < done:
                    text = text[done - start:]
                reached[page] = max(done, end)
            if not text:
                continue
            if parts and parts[-1].page == page:
                parts[-1] = DocumentPart(page, parts[-1].text + text)
            else:
                parts.append(DocumentPart(page, text))
        return DocumentText(key, str(row[1] or Path(key).name), str(row[2] or ""), parts)

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


def _stored_elastic(file: Path, name: str, settings: Settings) -> ElasticIndex | None:
    """The cluster index the collection file names, if it is readable and has one."""
    try:
        index = Index(file)
        if index.get_meta("backend") != "elasticsearch":
            return None
        stored = index.get_meta("index")
    except sqlite3.Error:
        return None
    return ElasticIndex(Cluster(settings), stored or elastic.index_name(name), name)


def remove_collection(name: str, settings: Settings) -> str | None:
    """Delete the collection ``name`` (its SQLite file, WAL side files and index folder).

    A read-only folder is refused before anything is deleted, so a collection is never
    left half removed. For an ``elasticsearch`` collection the cluster index is deleted
    too; when that fails the local files are still removed and the returned warning
    says which index is left on the cluster (``None`` when all went well).
    """
    file = collection_path(name, settings)
    if not file.is_file():
        cluster = Cluster(settings)
        if cluster.configured:
            try:
                there = ElasticIndex(cluster, elastic.index_name(name), name).exists()
            except CollectionError:
                there = False
            if there:
                raise CollectionError(
                    f"{elastic.lives_elsewhere(name)}; remove it from there, or delete index "
                    f"{elastic.index_name(name)} on {cluster.display_url}")
        raise missing_collection(name)
    if not file_access.writable(file.parent):
        raise file_access.read_only_error(file, f"remove collection {name!r}")
    warning = None
    remote = _stored_elastic(file, name, settings)  # a damaged file is removed all the same
    if remote is not None:
        try:
            remote.delete()
        except CollectionError as exc:
            warning = (f"index {remote.name} was left on the cluster - delete it there by "
                       f"hand ({exc})")
    readers.forget(file)
    for path in (file, Path(f"{file}-wal"), Path(f"{file}-shm"), inverted.folder_of(file)):
        try:
            if path.is_dir():
                inverted.remove(file)
            else:
                path.unlink(missing_ok=True)
        except OSError as exc:
            raise CollectionError(
                f"Cannot remove {path} ({exc.strerror or exc}) - check its permissions and "
                f"remove it by hand") from exc
    logger.info("removed collection %s (%s)", name, file)
    return warning
