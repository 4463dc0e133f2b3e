"""Search: the engine protocol and registry, shared HTTP, page fetching, formatting.

Public names used by other modules and by users' scripts are re-exported here, and
imported on first use: rendering a stored report needs only :mod:`deepcite.search.urls`,
and must not load the HTTP client, retries and the engine registry for it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

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


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'deepcite.search' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
