"""The SourceRegistry: the only place citation numbers are given.

A result gets its number when it first enters the registry and keeps it for the whole
run, across iterations and report sections. Adding the same passage again (same
canonical URL and same text) returns the existing source instead of a new number, so
a number is never reused and never duplicated.

Titles are made one line without control characters as they enter: a title is a label
shown on terminals, in prompts and in reports, and a newline or escape sequence in it
(any page can choose its own) would let a source fake lines of output. Passage text is
kept exactly as found, because verification compares answers against it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from deepcite.search.urls import canonical_url
from deepcite.security.terminal import one_line
from deepcite.types import SearchResult, Source


class SourceRegistry:
    """Numbers sources 1, 2, 3 ... in the order they are added; thread-safe."""

    def __init__(self) -> None:
        self._sources: list[Source] = []
        self._by_key: dict[tuple[str, str], Source] = {}
        self._lock = threading.Lock()

    def add(self, result: SearchResult) -> Source:
        """Register ``result`` and return its source; a known passage keeps its number."""
        canonical = canonical_url(result.url)
        key = (canonical, " ".join(result.snippet.split()))
        with self._lock:
            known = self._by_key.get(key)
            if known is not None:
                return known
            source = Source(
                number=len(self._sources) + 1,
                title=one_line(result.title) or result.url,
                url=result.url,
                canonical_url=canonical,
                snippet=result.snippet,
                engine=result.engine,
                full_text=result.full_text,
                published=result.published,
                metadata=dict(result.metadata),
            )
            self._sources.append(source)
            self._by_key[key] = source
            return source

    def add_many(self, results: Iterable[SearchResult]) -> list[Source]:
        """Register several results; returns their sources in the same order."""
        return [self.add(result) for result in results]

    def get(self, number: int) -> Source | None:
        """The source numbered ``number``, or ``None`` when there is none."""
        with self._lock:
            if 1 <= number <= len(self._sources):
                return self._sources[number - 1]
        return None

    def numbers(self) -> set[int]:
        """All numbers given so far."""
        with self._lock:
            return set(range(1, len(self._sources) + 1))

    def sources(self) -> list[Source]:
        """A snapshot of all sources in number order."""
        with self._lock:
            return list(self._sources)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sources)

    def __iter__(self) -> Iterator[Source]:
        return iter(self.sources())
