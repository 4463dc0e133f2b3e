"""Tavily: a search API built for LLM agents, with page text in the same reply.

Tavily can filter by domain and by publication date on its side, so the user's filters
are pushed down (fewer wasted results); the shared filters still run afterwards. When
the user asked for full text (``search.fetch_full_text``), Tavily's ``raw_content``
saves fetching the pages again.
"""

from __future__ import annotations

from typing import Any, ClassVar

from deepcite.config_sections import EngineKey
from deepcite.errors import SearchError
from deepcite.search.engines.base import WebEngine
from deepcite.search.results import keep, make_result
from deepcite.types import SearchResult

API_URL = "https://api.tavily.com/search"
#: Tavily's upper bound on ``max_results``.
MAX_RESULTS = 20


class TavilyEngine(WebEngine):
    """Web search through the Tavily API."""

    name: ClassVar[str] = "tavily"
    description: ClassVar[str] = "Tavily search API (returns page text)"
    needs: ClassVar[str] = "API key"
    key_setting: ClassVar[EngineKey | None] = "tavily_api_key"
    key_env: ClassVar[tuple[str, ...]] = ("TAVILY_API_KEY",)

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        key = self.api_key(self.settings)
        data = self.http.post_json(API_URL, json_body=self.request_body(query, max_results),
                                   headers={"Authorization": f"Bearer {key}"})
        hits = data.get("results") if isinstance(data, dict) else None
        if not isinstance(hits, list):
            raise SearchError(f"{self.name}: unexpected reply from api.tavily.com "
                              "(no results list)")
        return keep([_to_result(self.name, hit) for hit in hits if isinstance(hit, dict)])

    def request_body(self, query: str, max_results: int) -> dict[str, Any]:
        """The JSON body: the query plus every filter Tavily can apply itself."""
        f = self.filters
        body: dict[str, Any] = {
            "query": query,
            "max_results": max(1, min(max_results, MAX_RESULTS)),
            "search_depth": "basic",
            "include_raw_content": self.settings.search.fetch_full_text,
        }
        if f.include_domains:
            body["include_domains"] = list(f.include_domains)
        if f.exclude_domains:
            body["exclude_domains"] = list(f.exclude_domains)
        if f.since:
            body["start_date"] = f.since.isoformat()
        if f.until:
            body["end_date"] = f.until.isoformat()
        return body


def _to_result(engine: str, hit: dict[str, Any]) -> SearchResult | None:
    return make_result(
        engine, title=hit.get("title"), url=hit.get("url"), snippet=hit.get("content"),
        full_text=hit.get("raw_content"), published=hit.get("published_date"),
        metadata={"score": hit.get("score")},
    )
