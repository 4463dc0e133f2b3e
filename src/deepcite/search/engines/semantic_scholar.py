"""Semantic Scholar: ~200 million papers with abstracts, TLDRs and citation counts.

Works without a key on a shared, easily exhausted pool (429s are retried by the HTTP
layer); a free key (``engines.semantic_scholar_api_key`` or SEMANTIC_SCHOLAR_API_KEY /
S2_API_KEY) gives a dedicated 1 request/second, the default rate. When a paper has no
abstract its machine-written TLDR serves as the snippet, which keeps many papers
whose publishers withhold abstracts.
"""

from __future__ import annotations

from typing import Any, ClassVar

from deepcite.config_sections import EngineKey
from deepcite.errors import SearchError
from deepcite.search.engines.base import WebEngine
from deepcite.search.engines.parsing import bare_doi
from deepcite.search.results import clean_text, keep, make_result
from deepcite.types import SearchResult

API_URL = "https://api.semanticscholar.org/graph/v1/paper/search"
FIELDS = ("title,url,abstract,tldr,year,venue,authors,citationCount,externalIds,"
          "openAccessPdf,publicationDate")
#: The relevance search endpoint returns at most 100 papers per call.
MAX_LIMIT = 100


class SemanticScholarEngine(WebEngine):
    """Searches the Semantic Scholar Academic Graph (relevance search)."""

    name: ClassVar[str] = "semantic-scholar"
    description: ClassVar[str] = "Semantic Scholar papers, all fields, with TLDRs"
    needs: ClassVar[str] = "optional API key"
    default_rate: ClassVar[float | None] = 1.0
    key_setting: ClassVar[EngineKey | None] = "semantic_scholar_api_key"
    key_env: ClassVar[tuple[str, ...]] = ("SEMANTIC_SCHOLAR_API_KEY", "S2_API_KEY")
    key_required: ClassVar[bool] = False

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        # S2 documents that hyphenated terms match nothing; spaces do.
        params: dict[str, Any] = {"query": query.replace("-", " "),
                                  "limit": min(max_results, MAX_LIMIT), "fields": FIELDS}
        window = self._date_window()
        if window:
            params["publicationDateOrYear"] = window
        key = self.api_key(self.settings)
        headers = {"x-api-key": key} if key else None
        data = self.http.get_json(API_URL, params=params, headers=headers)
        # An empty result set comes as {"total": 0, "offset": 0} without "data".
        papers = data.get("data", []) if isinstance(data, dict) else None
        if not isinstance(papers, list):
            raise SearchError(f"{self.name}: unexpected answer from api.semanticscholar.org "
                              "(no data list)")
        return keep([self._to_result(p) for p in papers if isinstance(p, dict)])

    def _date_window(self) -> str:
        """``since:until`` (either side may be open), or '' when neither is set."""
        since, until = self.filters.since, self.filters.until
        if not (since or until):
            return ""
        return f"{since.isoformat() if since else ''}:{until.isoformat() if until else ''}"

    def _to_result(self, paper: dict[str, Any]) -> SearchResult | None:
        ids = _dict(paper.get("externalIds"))
        tldr = _dict(paper.get("tldr")).get("text")
        url = paper.get("url") or (
            f"https://www.semanticscholar.org/paper/{paper['paperId']}"
            if paper.get("paperId") else None)
        year = paper.get("year")
        metadata: dict[str, Any] = {
            "doi": bare_doi(ids.get("DOI")),
            "arxiv_id": ids.get("ArXiv"),
            "pmid": str(ids["PubMed"]) if ids.get("PubMed") else None,
            "authors": [clean_text(a.get("name")) for a in paper.get("authors") or []
                        if isinstance(a, dict) and clean_text(a.get("name"))],
            "venue": clean_text(paper.get("venue")) or None,
            "year": year if isinstance(year, int) else None,
            "citation_count": paper.get("citationCount"),
            "pdf_url": _dict(paper.get("openAccessPdf")).get("url") or None,
            "paper_id": paper.get("paperId"),
        }
        if metadata["pdf_url"]:
            metadata["open_access"] = True
        return make_result(self.name, title=paper.get("title"), url=url,
                           snippet=paper.get("abstract") or tldr,
                           published=paper.get("publicationDate") or year, metadata=metadata)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
