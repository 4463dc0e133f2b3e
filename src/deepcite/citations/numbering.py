"""The SourceNumbering: the only place citation numbers are given.

A result gets its number when it first enters the source numbering and keeps it for the whole
run, across iterations and report sections. Adding the same passage again (same
canonical URL and same text) returns the existing source instead of a new number, so
a number is never reused and never duplicated. The source keeps the URL it was first
found at (``Source.url``, what every output shows and links to); the canonical form is
stored beside it only as the key.

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


class SourceNumbering:
    """Numbers sources 1, 2, 3 ... in the order they are added; thread-safe."""

    def __init__(self) -> None:
        self._sources: list[Source] = []
        self._by_number: dict[int, Source] = {}
        self._by_key: dict[tuple[str, str], Source] = {}
        self._next = 1
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
                number=self._next,
                title=one_line(result.title) or result.url,
                url=result.url,
                canonical_url=canonical,
                snippet=result.snippet,
                engine=result.engine,
                full_text=result.full_text,
                published=result.published,
                metadata=dict(result.metadata),
            )
            self._keep(source, key)
            return source

    def restore(self, sources: Iterable[Source]) -> None:
        """Take back sources numbered in an earlier session (a stored run a follow-up
        builds on), keeping their numbers; new sources then continue after the highest.

        Numbers must rise above the source numbering's own, or two sources would share one - a
        ``ValueError``, since only stored runs, which a registry numbered, are restored.
        A stored run may lack numbers (sources registered but never used), so gaps are
        allowed; no later source takes a number inside one.
        """
        with self._lock:
            for source in sorted(sources, key=lambda s: s.number):
                if source.number < self._next:
                    raise ValueError(f"source {source.number} is already taken (the next "
                                     f"number is {self._next})")
                key = (source.canonical_url, " ".join(source.snippet.split()))
                self._keep(source, key)

    def _keep(self, source: Source, key: tuple[str, str]) -> None:
        self._sources.append(source)
        self._by_number[source.number] = source
        self._by_key.setdefault(key, source)
        self._next = source.number + 1

    def add_many(self, results: Iterable[SearchResult]) -> list[Source]:
        """Register several results; returns their sources in the same order."""
        return [self.add(result) for result in results]

    def get(self, number: int) -> Source | None:
        """The source numbered ``number``, or ``None`` when there is none."""
        with self._lock:
            return self._by_number.get(number)

    def numbers(self) -> set[int]:
        """All numbers given so far."""
        with self._lock:
            return set(self._by_number)

    def sources(self) -> list[Source]:
        """A snapshot of all sources in number order."""
        with self._lock:
            return list(self._sources)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sources)

    def __iter__(self) -> Iterator[Source]:
        return iter(self.sources())
