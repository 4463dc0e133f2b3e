"""DuckDuckGo through the ``ddgs`` package: the default web engine, no key needed.

DuckDuckGo has no official search API, so the ``ddgs`` package scrapes its HTML
endpoint. That package does its own HTTP (``primp``, not httpx), which means the
shared :class:`~deepcite.search.http.EngineHTTP` - and with it the egress hook - is not
in the path. The engine therefore runs the egress check itself before every search, so
offline mode and a locked-down policy refuse DuckDuckGo like any other public host.

Only the ``duckduckgo`` backend of ``ddgs`` is used: its ``auto`` backend would spread
the query over Google, Bing, Yandex and others, hosts the user never chose and the
egress check never saw.
"""

from __future__ import annotations

import logging
import math
from datetime import date
from typing import Any, ClassVar

from deepcite.errors import ConfigError, EgressDenied, SearchError
from deepcite.search import http as engine_http
from deepcite.search.engines.base import WebEngine
from deepcite.search.filters import site_query
from deepcite.search.results import keep, make_result
from deepcite.security.egress import EgressPolicy
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)

SEARCH_URL = "https://html.duckduckgo.com/html/"
#: Pause before the single retry after DuckDuckGo rate-limited us.
RATELIMIT_PAUSE_SECONDS = 2.0
#: (days covered, ddgs timelimit), smallest window first.
_WINDOWS = ((1, "d"), (7, "w"), (31, "m"), (366, "y"))


class DuckDuckGoEngine(WebEngine):
    """Web search on DuckDuckGo; no account, no key."""

    name: ClassVar[str] = "duckduckgo"
    description: ClassVar[str] = "DuckDuckGo web search (no key needed)"
    needs: ClassVar[str] = "nothing"

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        try:
            EgressPolicy.from_settings(self.settings).check(SEARCH_URL)
        except EgressDenied as exc:
            raise SearchError(f"{self.name}: {exc}") from exc
        hits = self._text(site_query(query, self.filters), max_results)
        return keep([
            make_result(self.name, title=hit.get("title"), url=hit.get("href"),
                        snippet=hit.get("body"))
            for hit in hits if isinstance(hit, dict)
        ])

    def _text(self, query: str, max_results: int) -> list[Any]:
        """Raw ``ddgs`` hits; one retry after a rate limit, errors as SearchError."""
        try:
            from ddgs import DDGS
            from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException
        except ImportError as exc:
            raise ConfigError("duckduckgo needs the ddgs package - run `pip install ddgs`"
                              ) from exc
        timeout = max(1, math.ceil(self.settings.engines.timeout_seconds))
        timelimit = ddg_timelimit(self.filters.since)
        for attempt in (1, 2):
            try:
                hits = DDGS(timeout=timeout).text(
                    query, max_results=max_results, region="wt-wt", safesearch="moderate",
                    timelimit=timelimit, backend="duckduckgo")
                return list(hits or [])
            except RatelimitException as exc:
                if attempt == 2:
                    raise SearchError(f"{self.name}: rate-limited by duckduckgo.com twice; "
                                      "wait a minute or use another engine") from exc
                logger.info("%s: rate-limited, retrying once", self.name)
                engine_http._sleep(RATELIMIT_PAUSE_SECONDS)
            except TimeoutException as exc:
                raise SearchError(f"{self.name}: timed out after {timeout}s reaching "
                                  "duckduckgo.com") from exc
            except DDGSException as exc:
                message = _one_line(exc)
                # ddgs reports an empty result page as an error; for us it is no results.
                if "no results found" in message.lower():
                    return []
                raise SearchError(f"{self.name}: {message}") from exc
        return []  # pragma: no cover - the loop always returns or raises



def ddg_timelimit(since: date | None, today: date | None = None) -> str | None:
    """The smallest of d/w/m/y covering ``since`` up to today; ``None`` when none does."""
    if since is None:
        return None
    days = ((today or date.today()) - since).days
    for window, code in _WINDOWS:
        if days <= window:
            return code
    return None


def _one_line(exc: BaseException) -> str:
    """ddgs errors carry the whole Rust error chain; its first clause says enough."""
    text = " ".join(str(exc).split()).split(" > ", 1)[0]
    return (text[:200] + "...") if len(text) > 200 else (text or type(exc).__name__)
