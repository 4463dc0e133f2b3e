"""A collection's hits as the :class:`~deepcite.types.SearchResult` every engine returns.

The ``url`` is a ``file://`` URI (with ``#page=N`` for PDFs, which browsers and PDF
viewers understand), so local documents are cited exactly like web pages; the metadata
keeps what a citation needs to point at the exact text (path, page, heading, offsets).
"""

from __future__ import annotations

import functools
from pathlib import Path

from deepcite.collections.index import Hit
from deepcite.collections.paths import file_path
from deepcite.types import SearchResult

ENGINE_NAME = "local"


@functools.lru_cache(maxsize=4096)
def file_url(key: str) -> str:
    """The ``file:`` URL of a stored path (remembered: a search builds ten of them, and
    ``pathlib`` took a fifth of a fast search's time)."""
    path = file_path(key)  # the real file, also for a name that was not UTF-8
    return path.as_uri()  # percent-encodes the file's bytes: valid ASCII either way


def search_result(hit: Hit, collection: str) -> SearchResult:
    """``hit``, found in the collection called ``collection``, as a search result."""
    url = file_url(hit.path)
    if hit.kind == "pdf" and hit.page is not None:
        url += f"#page={hit.page}"
    return SearchResult(
        title=hit.title or Path(hit.path).name,
        url=url,
        snippet=hit.text,
        engine=ENGINE_NAME,
        metadata={
            "collection": collection,
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
