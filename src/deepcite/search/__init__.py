"""Search: the engine protocol and registry, shared HTTP, page fetching, formatting.

Public names used by other modules and by users' scripts are re-exported here.
"""

from deepcite.search.base import SearchEngine
from deepcite.search.fetch import fetch_full_text, fetch_page
from deepcite.search.filters import SearchFilters, apply_filters
from deepcite.search.format import dedupe_and_format
from deepcite.search.registry import describe_engines, engine_names, get_engine
from deepcite.search.urls import canonical_url

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
