"""Search: the engine protocol and registry, shared HTTP, page fetching, formatting.

Public names used by other modules and by users' scripts are re-exported here, and
imported on first use: rendering a stored report needs only :mod:`deepcite.search.urls`,
and must not load the HTTP client, retries and the engine registry for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcite._lazy import lazy_names

if TYPE_CHECKING:
    from deepcite.search.base import SearchEngine
    from deepcite.search.fetch import fetch_full_text, fetch_page
    from deepcite.search.filters import SearchFilters, apply_filters
    from deepcite.search.format import dedupe_and_format
    from deepcite.search.registry import describe_engines, engine_names, get_engine
    from deepcite.search.urls import canonical_url

_LAZY = {
    "SearchEngine": "deepcite.search.base",
    "fetch_full_text": "deepcite.search.fetch",
    "fetch_page": "deepcite.search.fetch",
    "SearchFilters": "deepcite.search.filters",
    "apply_filters": "deepcite.search.filters",
    "dedupe_and_format": "deepcite.search.format",
    "describe_engines": "deepcite.search.registry",
    "engine_names": "deepcite.search.registry",
    "get_engine": "deepcite.search.registry",
    "canonical_url": "deepcite.search.urls",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY)


__all__ = [
    "SearchEngine",
    "SearchFilters",
    "apply_filters",
    "canonical_url",
    "dedupe_and_format",
    "describe_engines",
    "engine_names",
    "fetch_full_text",
    "fetch_page",
    "get_engine",
]
