"""DuckDuckGo's HTML endpoint: the default web engine, no key needed.

DuckDuckGo has no official search API; its HTML endpoint (``html.duckduckgo.com``)
answers a form post with a plain results page. The engine posts to it through the
shared :class:`~deepcite.search.http.EngineHTTP`, like every other engine, so the
egress policy is enforced *at connect time*: the request and each redirect hop are
vetted, and the TCP connection goes to the addresses the policy approved (pinned,
see :mod:`deepcite.security.transport`), never to a second DNS answer.

It used to go through the ``ddgs`` package, whose HTTP client (``primp``) is a Rust
library: its sockets never pass through Python's ``socket`` module, so neither our
transport nor an audit hook on ``socket.connect`` can see or pin them, and the engine
could only check the URL before handing it over - a DNS answer that changed between
that check and primp's own lookup (rebinding) would have reached a private address.
Only DuckDuckGo itself is asked (``ddgs``'s ``auto`` backend spread a query over
other search hosts the user never chose).
"""

from __future__ import annotations

import logging
from datetime import date
from html.parser import HTMLParser
from typing import ClassVar
from urllib.parse import parse_qs, urljoin, urlsplit

from deepcite.errors import SearchError
from deepcite.search import http as engine_http
from deepcite.search.engines.base import WebEngine
from deepcite.search.filters import site_query
from deepcite.search.results import keep, make_result
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)

SEARCH_URL = "https://html.duckduckgo.com/html/"
#: Pause before the single retry after DuckDuckGo rate-limited us.
RATELIMIT_PAUSE_SECONDS = 2.0
#: Result pages asked for at most (about 10 results on the first, 15 on the next).
MAX_PAGES = 3
#: DuckDuckGo's answer to a client it rate-limits: 202 with a challenge page.
_RATELIMITED = 202
#: (days covered, DuckDuckGo ``df`` code), smallest window first.
_WINDOWS = ((1, "d"), (7, "w"), (31, "m"), (366, "y"))
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                   "meta", "source", "track", "wbr"})


class DuckDuckGoEngine(WebEngine):
    """Web search on DuckDuckGo; no account, no key."""

    name: ClassVar[str] = "duckduckgo"
    description: ClassVar[str] = "DuckDuckGo web search (no key needed)"
    needs: ClassVar[str] = "nothing"

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        form = {"q": site_query(query, self.filters), "b": "", "l": "wt-wt"}
        timelimit = ddg_timelimit(self.filters.since)
        if timelimit:
            form["df"] = timelimit
        hits: list[tuple[str, str, str]] = []
        for page in range(1, MAX_PAGES + 1):
            if page > 1:
                form["s"] = str(10 + (page - 2) * 15)
            found = parse_results(self._page(form))
            fresh = [hit for hit in found if hit not in hits]
            hits.extend(fresh)
            if not fresh or len(hits) >= max_results:
                break
        return keep([make_result(self.name, title=title, url=url, snippet=snippet)
                     for title, url, snippet in hits[:max_results]])

    def _page(self, form: dict[str, str]) -> str:
        """One results page; one retry after a rate limit (SearchError after two)."""
        for attempt in (1, 2):
            response = self.http.request("POST", SEARCH_URL, form=form)
            if response.status_code != _RATELIMITED:
                return response.text
            if attempt == 1:
                logger.info("%s: rate-limited, retrying once", self.name)
                engine_http._sleep(RATELIMIT_PAUSE_SECONDS)
        raise SearchError(f"{self.name}: rate-limited by duckduckgo.com twice; wait a "
                          "minute or use another engine")


def ddg_timelimit(since: date | None, today: date | None = None) -> str | None:
    """The smallest of d/w/m/y covering ``since`` up to today; ``None`` when none does."""
    if since is None:
        return None
    days = ((today or date.today()) - since).days
    for window, code in _WINDOWS:
        if days <= window:
            return code
    return None


def parse_results(page: str) -> list[tuple[str, str, str]]:
    """``(title, url, snippet)`` of each organic result on a results page, in order;
    ads (links through ``duckduckgo.com/y.js``) and results without a link are left
    out, and DuckDuckGo's redirect links (``/l/?uddg=``) give the URL they point to."""
    parser = _ResultsParser()
    parser.feed(page)
    parser.close()
    hits = []
    for title, href, snippet in parser.results:
        url = _target(href)
        if url and title:
            hits.append((title, url, snippet))
    return hits


def _target(href: str) -> str | None:
    """The result's own URL from a results-page link; ``None`` for an ad or no link."""
    absolute = urljoin(SEARCH_URL, href.strip())
    parts = urlsplit(absolute)
    if parts.hostname and parts.hostname.endswith("duckduckgo.com"):
        if parts.path == "/l/":
            target = parse_qs(parts.query).get("uddg", [""])[0]
            return target if target.startswith(("http://", "https://")) else None
        return None  # an ad (/y.js) or a link to DuckDuckGo itself
    return absolute if parts.scheme in ("http", "https") else None


class _ResultsParser(HTMLParser):
    """Collects each result's title link (``result__a``) and snippet
    (``result__snippet``): the classes DuckDuckGo's HTML page marks them with."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.results: list[tuple[str, str, str]] = []
        self._field: str | None = None  # "title" or "snippet" while inside one
        self._depth = 0
        self._text: list[str] = []
        self._current: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._field is not None:
            self._depth += tag not in _VOID
            return
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if "result__a" in classes:
            self._finish()
            self._current = {"href": values.get("href") or ""}
            self._open("title", tag)
        elif "result__snippet" in classes and self._current:
            self._current.setdefault("snippet_href", values.get("href") or "")
            self._open("snippet", tag)

    def handle_endtag(self, tag: str) -> None:
        if self._field is None:
            return
        self._depth -= 1
        if self._depth <= 0:
            self._current[self._field] = " ".join("".join(self._text).split())
            self._field = None

    def handle_data(self, data: str) -> None:
        if self._field is not None:
            self._text.append(data)

    def close(self) -> None:
        super().close()
        self._finish()

    def _open(self, field: str, tag: str) -> None:
        self._field, self._text = field, []
        self._depth = 0 if tag in _VOID else 1

    def _finish(self) -> None:
        if self._current:
            current = self._current
            self.results.append((current.get("title", ""),
                                 current.get("href") or current.get("snippet_href", ""),
                                 current.get("snippet", "")))
        self._current = {}
