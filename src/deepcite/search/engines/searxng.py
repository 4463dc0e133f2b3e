"""SearXNG: a metasearch instance the user runs or trusts, queried over its JSON API.

A self-hosted instance is the one web engine that can work with ``--offline`` (it is a
service on the user's own network), so the engine is marked offline-capable. The egress
policy allows the configured instance exactly - its scheme, host and port, nothing
else - while the result URLs it returns are judged like any page: a private or
loopback one is fetched only when ``security.allow_private_hosts`` names it.

Instances ship with only the HTML format enabled, and answer ``format=json`` with 403;
that case gets its own message, because "check the API key" would send the user looking
for a key SearXNG does not have.
"""

from __future__ import annotations

import os
from datetime import date
from typing import Any, ClassVar
from urllib.parse import urlsplit

from deepcite.config import Settings
from deepcite.errors import SearchError
from deepcite.search.engines.base import WebEngine
from deepcite.search.filters import site_query
from deepcite.search.results import keep, make_result
from deepcite.types import SearchResult

ENV_URL = "SEARXNG_URL"
#: (days covered, SearXNG time_range), smallest window first.
_WINDOWS = ((1, "day"), (7, "week"), (31, "month"), (366, "year"))


class SearxngEngine(WebEngine):
    """Web search through a SearXNG instance's ``/search?format=json``."""

    name: ClassVar[str] = "searxng"
    description: ClassVar[str] = "a SearXNG metasearch instance (self-hosted or trusted)"
    needs: ClassVar[str] = "instance URL"
    offline_capable: ClassVar[bool] = True

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.base_url = _search_url(instance_url(settings) or "")

    @classmethod
    def service_urls(cls, settings: Settings) -> tuple[str, ...]:
        """The instance, allowed exactly (scheme, host and port) by the egress policy."""
        url = instance_url(settings)
        return (url,) if url else ()

    @classmethod
    def unavailable_reason(cls, settings: Settings) -> str | None:
        """Missing or unusable instance URL."""
        url = instance_url(settings)
        if not url:
            return ("searxng needs an instance URL - set engines.searxng_url or "
                    f"{ENV_URL}")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return (f"searxng instance URL {url!r} is not an http(s) URL - fix "
                    f"engines.searxng_url or {ENV_URL}")
        return None

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        params: dict[str, Any] = {
            "q": site_query(query, self.filters), "format": "json", "pageno": 1,
            "language": "all",
        }
        time_range = searx_time_range(self.filters.since)
        if time_range:
            params["time_range"] = time_range
        try:
            data = self.http.get_json(self.base_url, params=params)
        except SearchError as exc:
            if exc.status == 403:
                raise SearchError(
                    f"{self.name}: {urlsplit(self.base_url).hostname} refused format=json "
                    "(HTTP 403) - enable the json format in the instance's settings.yml "
                    "(search.formats)") from exc
            raise
        hits = data.get("results") if isinstance(data, dict) else None
        if not isinstance(hits, list):
            raise SearchError(f"{self.name}: unexpected reply from "
                              f"{urlsplit(self.base_url).hostname} (no results list)")
        return keep([_to_result(self.name, hit) for hit in hits if isinstance(hit, dict)])


def instance_url(settings: Settings) -> str | None:
    """The instance URL: ``engines.searxng_url``, else ``SEARXNG_URL``."""
    url = settings.engines.searxng_url or os.environ.get(ENV_URL)
    return url.strip() if url and url.strip() else None


def _search_url(url: str) -> str:
    base = url.rstrip("/")
    return base if base.endswith("/search") else base + "/search"


def _to_result(engine: str, hit: dict[str, Any]) -> SearchResult | None:
    engines = hit.get("engines") or ([hit["engine"]] if hit.get("engine") else [])
    return make_result(
        engine, title=hit.get("title"), url=hit.get("url"), snippet=hit.get("content"),
        published=hit.get("publishedDate"),
        metadata={"engines": list(engines), "score": hit.get("score")},
    )



def searx_time_range(since: date | None, today: date | None = None) -> str | None:
    """The smallest SearXNG ``time_range`` covering ``since`` up to today, if any."""
    if since is None:
        return None
    days = ((today or date.today()) - since).days
    for window, name in _WINDOWS:
        if days <= window:
            return name
    return None
