"""Wikipedia: full-text search over one language edition, with article intros as text.

Two MediaWiki API calls per query: ``list=search`` finds the articles, then
``prop=extracts`` fetches their plain-text introductions in one batch, which makes
better source text than the search snippet alone. The intros are a bonus: when that
second call fails the hits are still returned with their snippets.

The search hit's timestamp is the article's last edit, not a publication date, so it
goes into ``metadata["last_edited"]`` and ``published`` stays empty: a time filter on
an edit date would drop old articles edited today or keep new ones for the wrong reason.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar
from urllib.parse import quote

from deepcite.errors import SearchError
from deepcite.search.engines.base import WebEngine
from deepcite.search.results import clean_text, keep, make_result
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)

#: Pages per extracts request (the API's ``exlimit`` maximum for intros).
EXTRACT_BATCH = 20
#: Upper bound on ``srlimit`` deepcite asks for.
MAX_HITS = 50


class WikipediaEngine(WebEngine):
    """Search one Wikipedia language edition through the MediaWiki API."""

    name: ClassVar[str] = "wikipedia"
    description: ClassVar[str] = "Wikipedia articles (engines.wikipedia_language)"
    needs: ClassVar[str] = "nothing"
    default_rate: ClassVar[float | None] = 5.0

    @property
    def language(self) -> str:
        """The language edition, e.g. ``en``."""
        return self.settings.engines.wikipedia_language

    @property
    def api_url(self) -> str:
        """The edition's ``api.php``."""
        return f"https://{self.language}.wikipedia.org/w/api.php"

    def article_url(self, title: str) -> str:
        """The canonical article URL for ``title``."""
        path = quote(title.replace(" ", "_"), safe="_:/()',!*-.~")
        return f"https://{self.language}.wikipedia.org/wiki/{path}"

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        data = self.http.get_json(self.api_url, params={
            "action": "query", "list": "search", "srsearch": query,
            "srlimit": max(1, min(max_results, MAX_HITS)), "srprop": "snippet|timestamp",
            "format": "json", "formatversion": 2, "utf8": 1,
        })
        query_part = data.get("query") if isinstance(data, dict) else None
        hits = query_part.get("search") if isinstance(query_part, dict) else None
        if not isinstance(hits, list):
            raise SearchError(f"{self.name}: unexpected reply from {self.language}."
                              "wikipedia.org (no query.search list)")
        hits = [h for h in hits if isinstance(h, dict)]
        intros = self._intros([h["pageid"] for h in hits if isinstance(h.get("pageid"), int)])
        return keep([self._to_result(hit, intros.get(hit.get("pageid"))) for hit in hits])

    def _intros(self, page_ids: list[int]) -> dict[Any, str]:
        """Plain-text introductions by page id; empty (with a warning) on failure."""
        intros: dict[Any, str] = {}
        for start in range(0, len(page_ids), EXTRACT_BATCH):
            batch = page_ids[start:start + EXTRACT_BATCH]
            try:
                data = self.http.get_json(self.api_url, params={
                    "action": "query", "prop": "extracts", "exintro": 1, "explaintext": 1,
                    "exlimit": "max", "pageids": "|".join(map(str, batch)),
                    "format": "json", "formatversion": 2, "utf8": 1,
                })
            except SearchError as exc:
                logger.warning("%s: article intros unavailable, using snippets only (%s)",
                               self.name, exc)
                return intros
            query_part = data.get("query") if isinstance(data, dict) else None
            pages = query_part.get("pages") if isinstance(query_part, dict) else None
            for page in pages if isinstance(pages, list) else []:
                if isinstance(page, dict) and isinstance(page.get("extract"), str):
                    intros[page.get("pageid")] = page["extract"].strip()
        return intros

    def _to_result(self, hit: dict[str, Any], intro: str | None) -> SearchResult | None:
        title = hit.get("title")
        # A title-only match has an empty snippet; the intro's opening stands in.
        snippet = clean_text(hit.get("snippet")) or (intro or "")[:300]
        return make_result(
            self.name, title=title,
            url=self.article_url(title) if isinstance(title, str) and title else None,
            snippet=snippet, full_text=intro or None,
            metadata={"pageid": hit.get("pageid"), "last_edited": hit.get("timestamp"),
                      "language": self.language},
        )
