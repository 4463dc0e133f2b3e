"""PubMed: ~37 million biomedical citations from MEDLINE and life-science journals.

NCBI's E-utilities take two steps: ESearch turns the query into PMIDs (sorted by
relevance), EFetch returns the records as XML with titles and abstracts. NCBI allows
3 requests/second without a key and 10 with one (``engines.pubmed_api_key`` or
NCBI_API_KEY). Records without an abstract (letters, comments, errata) are dropped:
a title alone is not evidence a cited answer can rest on.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, ClassVar

from deepcite.config import Settings
from deepcite.config_sections import EngineKey
from deepcite.errors import SearchError
from deepcite.search.engines.base import WebEngine
from deepcite.search.engines.parsing import bare_doi, parse_xml
from deepcite.search.http import EngineHTTP
from deepcite.search.results import clean_text, keep, make_result
from deepcite.types import SearchResult

EUTILS = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
HOST = "eutils.ncbi.nlm.nih.gov"
RATE_WITH_KEY = 10.0
_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
    start=1)}


class PubMedEngine(WebEngine):
    """Searches PubMed through NCBI E-utilities (ESearch, then EFetch)."""

    name: ClassVar[str] = "pubmed"
    description: ClassVar[str] = "PubMed biomedical literature (NCBI)"
    needs: ClassVar[str] = "nothing (optional API key)"
    default_rate: ClassVar[float | None] = 3.0
    key_setting: ClassVar[EngineKey | None] = "pubmed_api_key"
    key_env: ClassVar[tuple[str, ...]] = ("NCBI_API_KEY",)
    key_required: ClassVar[bool] = False

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._key = self.api_key(settings)
        if self._key:
            # A key raises NCBI's limit; engines.rate_per_second still wins if set.
            self.http.close()
            self.http = EngineHTTP(self.name, settings, default_rate=RATE_WITH_KEY)

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        pmids = self._esearch(query, max_results)
        if not pmids:
            return []
        text = self.http.get_text(f"{EUTILS}/efetch.fcgi", params=self._params(
            {"db": "pubmed", "id": ",".join(pmids), "retmode": "xml"}))
        root = parse_xml(self.name, text, HOST)
        records = {r.get("pmid"): r for r in
                   (_record(a) for a in root.iter("PubmedArticle")) if r}
        # EFetch does not promise ESearch's order; keep the relevance ranking.
        return keep([self._to_result(records[p]) for p in pmids if p in records])

    def _esearch(self, query: str, max_results: int) -> list[str]:
        params: dict[str, Any] = {"db": "pubmed", "term": query, "retmax": max_results,
                                  "retmode": "json", "sort": "relevance"}
        since, until = self.filters.since, self.filters.until
        if since or until:
            # NCBI needs mindate and maxdate as a pair; open ends get distant dates.
            params.update(datetype="pdat",
                          mindate=since.strftime("%Y/%m/%d") if since else "1800/01/01",
                          maxdate=until.strftime("%Y/%m/%d") if until else "3000/12/31")
        data = self.http.get_json(f"{EUTILS}/esearch.fcgi", params=self._params(params))
        result = data.get("esearchresult") if isinstance(data, dict) else None
        if not isinstance(result, dict):
            reason = data.get("error") if isinstance(data, dict) else None
            raise SearchError(f"{self.name}: unexpected answer from {HOST}"
                              f"{f' ({reason})' if reason else ''}")
        if result.get("ERROR"):
            raise SearchError(f"{self.name}: PubMed refused the query ({result['ERROR']})")
        ids = result.get("idlist") or []
        return [str(i) for i in ids if str(i).isascii() and str(i).isdigit()][:max_results]

    def _params(self, params: dict[str, Any]) -> dict[str, Any]:
        # NCBI asks tools to identify themselves.
        return {**params, "tool": "deepcite", **({"api_key": self._key} if self._key else {})}

    def _to_result(self, record: dict[str, Any]) -> SearchResult | None:
        pmid = record["pmid"]
        meta_keys = ("doi", "authors", "venue", "year", "pmcid", "open_access")
        return make_result(self.name, title=record.get("title"),
                           url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
                           snippet=record.get("abstract"), published=record.get("published"),
                           metadata={"pmid": pmid, **{k: record.get(k) for k in meta_keys}})


def _record(article: ET.Element) -> dict[str, Any] | None:
    """The fields of one ``PubmedArticle``; None without a PMID."""
    citation = article.find("MedlineCitation")
    pmid = _text(citation, "PMID") if citation is not None else ""
    body = citation.find("Article") if citation is not None else None
    if not (pmid.isascii() and pmid.isdigit()) or body is None:
        return None
    ids = {a.get("IdType"): _text(a) for a in article.iterfind("PubmedData/ArticleIdList/"
                                                                 "ArticleId")}
    doi = ids.get("doi") or next((_text(e) for e in body.iterfind("ELocationID")
                                  if e.get("EIdType") == "doi"), None)
    published, year = _pub_date(body.find("Journal/JournalIssue/PubDate"))
    return {
        "pmid": pmid,
        "title": _text(body, "ArticleTitle"),
        "abstract": _abstract(body),
        "venue": clean_text(_text(body, "Journal/Title")) or None,
        "published": published,
        "year": year,
        "authors": [n for n in (_author(a) for a in body.iterfind("AuthorList/Author")) if n],
        "doi": bare_doi(doi),
        "pmcid": ids.get("pmc") or None,
        # A PMC copy means the full text is free to read.
        "open_access": True if ids.get("pmc") else None,
    }


def _abstract(body: ET.Element) -> str:
    """All abstract sections, each prefixed with its label ('METHODS: ...')."""
    parts = []
    for section in body.iterfind("Abstract/AbstractText"):
        text = clean_text(_text(section))
        label = section.get("Label")
        if text:
            parts.append(f"{label.capitalize()}: {text}" if label else text)
    return " ".join(parts)


def _author(author: ET.Element) -> str:
    collective = _text(author, "CollectiveName")
    if collective:
        return clean_text(collective)
    return clean_text(f"{_text(author, 'ForeName')} {_text(author, 'LastName')}")


def _small_number(text: str) -> bool:
    """A month or day number int() can read: ASCII digits (isdigit alone takes "²")."""
    return text.isascii() and text.isdigit() and len(text) <= 2


def _pub_date(element: ET.Element | None) -> tuple[str | None, int | None]:
    """ISO-ish date text and year from Year/Month/Day or a MedlineDate ('2023 Nov-Dec')."""
    if element is None:
        return None, None
    year = _text(element, "Year") or _text(element, "MedlineDate")[:4]
    if not (len(year) == 4 and year.isascii() and year.isdigit()):
        return None, None
    month_text = _text(element, "Month") or _text(element, "MedlineDate")[5:8]
    month = _MONTHS.get(month_text[:3].lower()) or (
        int(month_text) if _small_number(month_text) and 1 <= int(month_text) <= 12
        else None)
    day = _text(element, "Day")
    if not month:
        return year, int(year)
    if _small_number(day):
        return f"{year}-{month:02d}-{int(day):02d}", int(year)
    return f"{year}-{month:02d}", int(year)


def _text(element: ET.Element | None, path: str | None = None) -> str:
    """All text inside ``element`` (or its ``path`` child), markup such as <i> included."""
    found = element.find(path) if element is not None and path else element
    return "".join(found.itertext()).strip() if found is not None else ""
