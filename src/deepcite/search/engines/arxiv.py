"""arXiv: preprints in physics, mathematics, computer science and neighbouring fields.

The export API answers with an Atom feed. arXiv asks clients to leave 3 seconds
between calls, hence the default rate. Free text is turned into ``all:`` terms joined
with AND (arXiv ranks OR queries poorly: a common word alone matches thousands of
papers); when that finds nothing the same terms are tried once more with OR, so a long
question still returns the papers that match most of it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import date
from typing import Any, ClassVar

from deepcite.errors import SearchError
from deepcite.search.engines.base import WebEngine
from deepcite.search.engines.parsing import bare_doi, parse_xml
from deepcite.search.results import clean_text, keep, make_result
from deepcite.text.stopwords import SEARCH_STOPWORDS
from deepcite.text.words import ANY_WORD
from deepcite.types import SearchResult

API_URL = "https://export.arxiv.org/api/query"
_NS = {"a": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}
_ID = re.compile(r"abs/(?P<id>.+?)(?:v(?P<version>\d+))?$")
MAX_TERMS = 12


class ArxivEngine(WebEngine):
    """Searches arXiv through its Atom export API."""

    name: ClassVar[str] = "arxiv"
    description: ClassVar[str] = "arXiv preprints (physics, maths, CS, biology, finance)"
    default_rate: ClassVar[float | None] = 0.34

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        terms = _terms(query)
        if not terms:
            return []
        results = self._fetch(" AND ".join(terms), max_results)
        if not results and len(terms) > 1:
            results = self._fetch(" OR ".join(terms), max_results)
        return results

    def _fetch(self, expression: str, max_results: int) -> list[SearchResult]:
        window = self._date_window()
        search = f"({expression}) AND {window}" if window else expression
        params = {"search_query": search, "start": 0, "max_results": max_results,
                  "sortBy": "relevance", "sortOrder": "descending"}
        text = self.http.get_text(API_URL, params=params)
        root = parse_xml(self.name, text, "export.arxiv.org")
        entries = root.findall("a:entry", _NS)
        if len(entries) == 1 and "/api/errors" in _text(entries[0], "a:id"):
            # arXiv reports bad queries as a feed with one "Error" entry.
            raise SearchError(f"{self.name}: arXiv refused the query "
                              f"({_text(entries[0], 'a:summary') or 'no reason given'})")
        return keep([self._to_result(entry) for entry in entries])

    def _date_window(self) -> str:
        """``submittedDate:[...]`` for the user's since/until, or '' without them."""
        since, until = self.filters.since, self.filters.until
        if not (since or until):
            return ""
        start = (since or date(1991, 1, 1)).strftime("%Y%m%d")
        end = (until or date.today()).strftime("%Y%m%d")
        return f"submittedDate:[{start}0000 TO {end}2359]"

    def _to_result(self, entry: ET.Element) -> SearchResult | None:
        entry_id = _text(entry, "a:id")
        match = _ID.search(entry_id)
        url = _https(entry_id) if match else ""
        metadata: dict[str, Any] = {
            "authors": [clean_text(_text(a, "a:name")) for a in entry.findall("a:author", _NS)],
            "doi": bare_doi(_text(entry, "arxiv:doi")),
            "venue": clean_text(_text(entry, "arxiv:journal_ref")) or None,
            "categories": [c.get("term") for c in entry.findall("a:category", _NS)
                           if c.get("term")],
            "pdf_url": _https(next((link.get("href") for link in entry.findall("a:link", _NS)
                                    if link.get("title") == "pdf"), None)),
            "open_access": True,
        }
        published = _text(entry, "a:published")
        if published[:4].isdigit():
            metadata["year"] = int(published[:4])
        if match:
            metadata["arxiv_id"] = match.group("id")
            if match.group("version"):
                metadata["version"] = int(match.group("version"))
        return make_result(self.name, title=_text(entry, "a:title"), url=url,
                           snippet=_text(entry, "a:summary"), published=published or None,
                           metadata=metadata)


def _terms(query: str) -> list[str]:
    """``all:`` terms for the content words of ``query`` (all its words if none are)."""
    words = ANY_WORD.findall(query)
    content = [w for w in words if w.lower() not in SEARCH_STOPWORDS] or words
    unique = list(dict.fromkeys(w.lower() for w in content))[:MAX_TERMS]
    return [f"all:{w}" for w in unique]


def _https(url: str | None) -> str | None:
    """arXiv still writes http:// links; the same pages are served over https."""
    return url.replace("http://", "https://", 1) if url else url


def _text(element: ET.Element, path: str) -> str:
    found = element.find(path, _NS)
    return "".join(found.itertext()).strip() if found is not None else ""
