"""The contract every search engine fulfils.

An engine turns a query into :class:`~deepcite.types.SearchResult` objects. It raises
:class:`~deepcite.errors.SearchError` when it fails, and the research layer treats that
as one engine's failure, never the run's. It never returns half-filled results: a hit
without title, url or snippet is dropped inside the engine.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from deepcite.types import SearchResult


@runtime_checkable
class SearchEngine(Protocol):
    """A named source of search results."""

    @property
    def name(self) -> str:
        """Short engine name shown to users and stored on each result (``local``, ...)."""
        ...

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Return up to ``max_results`` hits, best first; raise ``SearchError`` on failure."""
        ...
