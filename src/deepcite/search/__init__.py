"""Search engines: the protocol, URL canonicalisation and (later) web engines."""

from deepcite.search.base import SearchEngine
from deepcite.search.urls import canonical_url

__all__ = ["SearchEngine", "canonical_url"]
