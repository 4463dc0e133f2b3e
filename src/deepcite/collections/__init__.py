"""Local document collections, indexed into SQLite FTS5 and searched with BM25.

A collection is a folder's worth of Markdown, text, reStructuredText, HTML, PDF, DOCX,
CSV and EPUB files (more through ``deepcite.loaders`` plugins), split into chunks that
keep page numbers, heading paths and character offsets so every citation can be traced
to its exact source text. :class:`LocalSearchEngine` makes collections one more
search engine for research runs; :func:`ensure_demo_collection` builds an offline demo
from Python's own documentation. The collection errors (:class:`ReadOnlyCollectionError`,
:class:`DamagedCollectionError`, :class:`LoadError`) all derive from
:class:`~deepcite.errors.CollectionError`.

Layout: :mod:`.loaders` turns files into pages, :mod:`.index` stores and searches
chunks, and the modules at this level manage collections (:mod:`.collection`,
:mod:`.indexer`, :mod:`.chunking`, :mod:`.demo`, :mod:`.engine`, :mod:`.file_access`;
``.collection``'s jobs are split into ``_arguments``, ``_places``, ``_search_results``,
``_document_text``, ``_mirroring`` and ``_removal``).
Public: the names in ``__all__`` below, and ``deepcite.collections.loaders`` for loader
plugins; every other module path is private.
"""

from deepcite.collections.collection import (
    Collection,
    CollectionInfo,
    CollectionListing,
    list_collections,
    remove_collection,
    scan_collections,
)
from deepcite.collections.demo import ensure_demo_collection
from deepcite.collections.documents import LoadError
from deepcite.collections.engine import LocalSearchEngine
from deepcite.collections.file_access import DamagedCollectionError, ReadOnlyCollectionError
from deepcite.collections.indexer import AddProgress, IndexReport
from deepcite.collections.paths import display_path

__all__ = [
    "AddProgress",
    "Collection",
    "CollectionInfo",
    "CollectionListing",
    "DamagedCollectionError",
    "IndexReport",
    "LoadError",
    "LocalSearchEngine",
    "ReadOnlyCollectionError",
    "display_path",
    "ensure_demo_collection",
    "list_collections",
    "remove_collection",
    "scan_collections",
]
