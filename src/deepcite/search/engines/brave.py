"""Brave Search: an independent web index (not a reseller of Google's or Bing's).

The free plan allows one request per second, hence the default rate. Brave filters by
date itself (``freshness`` takes an exact ``FROMtoTO`` range), so the user's time range
is pushed down exactly; a single include domain goes into the query as ``site:``.
"""

from __future__ import annotations

from datetime import date
from typing import Any, ClassVar

from deepcite.config_sections import EngineKey
from deepcite.errors import SearchError
from deepcite.search.engines.base import WebEngine
from deepcite.search.filters import site_query
from deepcite.search.results import clean_text, keep, make_result
from deepcite.types import SearchResult

API_URL = "https://api.search.brave.com/res/v1/web/search"
#: Brave's upper bound on ``count``.
MAX_COUNT = 20
#: Start of an open-ended ``until``-only range (Brave needs both ends).
EARLIEST = date(1990, 1, 1)


class BraveEngine(WebEngine):
    """Web search through the Brave Search API."""

    name: ClassVar[str] = "brave"
    description: ClassVar[str] = "Brave Search API (independent index)"
    needs: ClassVar[str] = "API key"
    default_rate: ClassVar[float | None] = 1.0
    key_setting: ClassVar[EngineKey | None] = "brave_api_key"
    key_env: ClassVar[tuple[str, ...]] = ("BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY")

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        headers = {"X-Subscription-Token": self.api_key(self.settings) or "",
                   "Accept": "application/json"}
        data = self.http.get_json(API_URL, params=self.request_params(query, max_results),
                                  headers=headers)
        if not isinstance(data, dict):
            raise SearchError(f"{self.name}: unexpected reply from api.search.brave.com")
        web = data.get("web")
        # No "web" section is how Brave says "nothing found".
        hits = web.get("results") if isinstance(web, dict) else []
        if not isinstance(hits, list):
            raise SearchError(f"{self.name}: unexpected reply from api.search.brave.com "
                              "(web.results is not a list)")
        return keep([_to_result(self.name, hit) for hit in hits if isinstance(hit, dict)])

    def request_params(self, query: str, max_results: int) -> dict[str, Any]:
        """Query parameters with the filters Brave can apply itself."""
        params: dict[str, Any] = {"q": site_query(query, self.filters),
                                  "count": max(1, min(max_results, MAX_COUNT))}
        freshness = brave_freshness(self.filters.since, self.filters.until)
        if freshness:
            params["freshness"] = freshness
        return params


def brave_freshness(since: date | None, until: date | None,
                    today: date | None = None) -> str | None:
    """``YYYY-MM-DDtoYYYY-MM-DD`` for a time range, ``None`` without one.

    An exact range beats the pd/pw/pm/py windows: those would only approximate the
    user's dates and leave the rest to the filters applied afterwards.
    """
    if since is None and until is None:
        return None
    start = since or EARLIEST
    end = until or today or date.today()
    return f"{start.isoformat()}to{end.isoformat()}"



def _to_result(engine: str, hit: dict[str, Any]) -> SearchResult | None:
    extra = hit.get("extra_snippets")
    full_text = None
    if isinstance(extra, list) and extra:
        parts = [clean_text(hit.get("description")), *(clean_text(e) for e in extra)]
        full_text = "\n\n".join(p for p in parts if p)
    return make_result(
        engine, title=hit.get("title"), url=hit.get("url"), snippet=hit.get("description"),
        full_text=full_text, published=hit.get("page_age") or hit.get("age"),
        metadata={"age": hit.get("age"), "language": hit.get("language")},
    )
