"""Domain and time-range filters, applied to every engine's results.

Engines that can, push the filters down into their query (fewer wasted results);
:func:`apply_filters` then runs on every result list regardless, so an engine that
cannot filter, or filters loosely, still returns only what the user asked for.
Results without a known ``published`` date are kept by time filters: unknown is not
out of range.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from urllib.parse import urlsplit

from deepcite.config import Settings
from deepcite.types import SearchResult


@dataclass(frozen=True)
class SearchFilters:
    """What the user restricted results to."""

    include_domains: tuple[str, ...] = ()
    exclude_domains: tuple[str, ...] = ()
    since: date | None = None
    until: date | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> SearchFilters:
        """The filters in the settings snapshot."""
        s = settings.search
        return cls(
            include_domains=tuple(_domain(d) for d in s.include_domains),
            exclude_domains=tuple(_domain(d) for d in s.exclude_domains),
            since=s.since,
            until=s.until,
        )

    @property
    def active(self) -> bool:
        """Whether any filter is set."""
        return bool(self.include_domains or self.exclude_domains or self.since or self.until)

    def allows(self, result: SearchResult) -> bool:
        """Whether ``result`` passes the domain and date filters."""
        if self.include_domains or self.exclude_domains:
            host = (urlsplit(result.url).hostname or "").lower()
            local = result.url.startswith("file:")
            if self.include_domains and not local and not _matches(host, self.include_domains):
                return False
            if _matches(host, self.exclude_domains):
                return False
        published = result.published
        if published and (self.since or self.until):
            # Compare on the precision the date has: "2024" is within since=2024-06-01.
            if self.since and published < self.since.isoformat()[: len(published)]:
                return False
            if self.until and published > self.until.isoformat()[: len(published)]:
                return False
        return True


def apply_filters(results: list[SearchResult], filters: SearchFilters) -> list[SearchResult]:
    """``results`` that pass ``filters``, in order."""
    if not filters.active:
        return results
    return [r for r in results if filters.allows(r)]


def _domain(text: str) -> str:
    text = text.strip().lower()
    if "//" in text:
        text = urlsplit(text).hostname or text
    return text.removeprefix("www.").strip(".")


def _matches(host: str, domains: tuple[str, ...]) -> bool:
    host = host.removeprefix("www.")
    return any(host == d or host.endswith("." + d) for d in domains)


def site_query(query: str, filters: SearchFilters) -> str:
    """``query site:domain`` when exactly one domain is included, else ``query``.

    With several include domains an OR of ``site:`` terms is unreliable on web engines,
    so the filters applied after the search do that work alone.
    """
    if len(filters.include_domains) == 1:
        return f"{query} site:{filters.include_domains[0]}"
    return query
