"""The academic engines and Elasticsearch against hand-written API replies (respx).

Behaviour every engine shares (mapping, dropping half-filled hits, empty and malformed
replies, 429 retries, timeouts, filtering after the search) runs once per engine
through :data:`CASES`. Each sample reply holds a hit dated 2024, one dated 2019 and one
that lacks something essential, so one body serves the mapping, dropping and
filtering tests. Engine-particular behaviour (pushdown parameters, keys, quirks) has
its own tests below.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import httpx
import pytest
import respx

from deepcite.errors import ConfigError, EgressDenied, SearchError
from deepcite.search.engines.arxiv import ArxivEngine
from deepcite.search.engines.base import WebEngine
from deepcite.search.engines.elasticsearch import ElasticsearchEngine
from deepcite.search.engines.openalex import OpenAlexEngine, rebuild_abstract
from deepcite.search.engines.parsing import bare_doi
from deepcite.search.engines.pubmed import PubMedEngine
from deepcite.search.engines.semantic_scholar import SemanticScholarEngine
from deepcite.types import SearchResult

ARXIV_URL = "https://export.arxiv.org/api/query"
OPENALEX_URL = "https://api.openalex.org/works"
S2_URL = "https://api.semanticscholar.org/graph/v1/paper/search"
ESEARCH_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi"
EFETCH_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi"
ES_BASE = "http://es.example:9200"
ES_URL = f"{ES_BASE}/documents/_search"
RANGE_2024 = {"search.since": "2024-01-01", "search.until": "2024-12-31"}
KEY_VARS = ("SEMANTIC_SCHOLAR_API_KEY", "S2_API_KEY", "NCBI_API_KEY", "ELASTICSEARCH_URL",
            "ELASTICSEARCH_API_KEY")

# ------------------------------------------------------------------ sample replies

ATOM_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
             '<feed xmlns="http://www.w3.org/2005/Atom" '
             'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
             'xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
             '<id>https://arxiv.org/api/Hx2kJ</id><title>arXiv Query</title>'
             '<updated>2024-05-01T00:00:00-04:00</updated>\n')


def atom(*entries: str, total: int | None = None) -> str:
    count = len(entries) if total is None else total
    return (ATOM_HEAD + f"<opensearch:totalResults>{count}</opensearch:totalResults>"
            "<opensearch:startIndex>0</opensearch:startIndex>\n" + "".join(entries) + "</feed>")


def arxiv_entry(arxiv_id: str, title: str, summary: str, published: str,
                extra: str = "") -> str:
    return f"""<entry>
  <id>http://arxiv.org/abs/{arxiv_id}</id>
  <updated>{published}</updated><published>{published}</published>
  <title>{title}</title>
  <summary>{summary}</summary>
  <author><name>Ada Lovelace</name></author>
  <author><name>Alan Turing</name><arxiv:affiliation>Manchester</arxiv:affiliation></author>
  {extra}
  <link href="http://arxiv.org/abs/{arxiv_id}" rel="alternate" type="text/html"/>
  <link title="pdf" href="http://arxiv.org/pdf/{arxiv_id}" rel="related"
        type="application/pdf"/>
  <arxiv:primary_category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
  <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
  <category term="stat.ML" scheme="http://arxiv.org/schemas/atom"/>
</entry>
"""


ARXIV_FEED = atom(
    arxiv_entry("2401.01234v2", "Graph Neural Networks for\n   Molecular Property Prediction",
                "  We study graph neural\n  networks on molecules and   show strong results.\n",
                "2024-01-03T18:59:59Z",
                '<arxiv:doi>10.1103/PhysRevX.14.011001</arxiv:doi>'
                '<link title="doi" href="http://dx.doi.org/10.1103/PhysRevX.14.011001" '
                'rel="related"/><arxiv:journal_ref>Phys. Rev. X 14, 011001 (2024)'
                '</arxiv:journal_ref>'),
    arxiv_entry("hep-th/9901001v1", "Strings on graphs", "An older abstract about graphs.",
                "2019-01-04T00:00:01Z"),
    arxiv_entry("2402.00001v1", "No abstract here", "   ", "2024-02-01T00:00:00Z"),
)

OPENALEX_WORKS: dict[str, Any] = {
    "meta": {"count": 3, "db_response_time_ms": 30, "page": 1, "per_page": 5},
    "results": [
        {"id": "https://openalex.org/W4390000001",
         "doi": "https://doi.org/10.1038/S41586-024-00001-X",
         "title": "Graph neural networks in <i>chemistry</i>",
         "display_name": "Graph neural networks in chemistry",
         "publication_year": 2024, "publication_date": "2024-03-15", "type": "article",
         "primary_location": {"landing_page_url": "https://www.nature.com/articles/x1",
                              "pdf_url": None,
                              "source": {"display_name": "Nature", "type": "journal"}},
         "best_oa_location": {"pdf_url": "https://www.nature.com/articles/x1.pdf"},
         "open_access": {"is_oa": True, "oa_status": "gold"},
         "authorships": [{"author": {"display_name": "Marie Curie"}},
                         {"author": {"display_name": "Pierre Curie"}}],
         "cited_by_count": 42,
         "abstract_inverted_index": {"Graph": [0], "networks": [2], "neural": [1],
                                     "help": [3], "chemists.": [4]}},
        {"id": "https://openalex.org/W2900000002", "doi": "https://doi.org/10.1000/old.2",
         "title": "An older study of graphs", "publication_year": 2019,
         "publication_date": "2019-06-01", "type": "book-chapter",
         "primary_location": {"landing_page_url": None,
                              "source": {"display_name": "Springer Handbook"}},
         "best_oa_location": None, "open_access": {"is_oa": False},
         "authorships": [{"author": {"display_name": n}} for n in "ABCD"],
         "cited_by_count": 7, "abstract_inverted_index": None},
        {"id": "https://openalex.org/W3", "doi": None, "title": None, "display_name": None,
         "publication_year": 2024, "primary_location": None,
         "abstract_inverted_index": {"Untitled": [0]}},
    ],
}

S2_PAPERS: dict[str, Any] = {
    "total": 3, "offset": 0, "next": 3,
    "data": [
        {"paperId": "a1b2c3", "url": "https://www.semanticscholar.org/paper/a1b2c3",
         "title": "Graph neural networks at scale", "abstract": "We scale GNNs.",
         "tldr": {"model": "tldr@v2.0.0", "text": "GNNs scale."}, "year": 2024,
         "venue": "NeurIPS", "publicationDate": "2024-02-20", "citationCount": 12,
         "authors": [{"authorId": "1", "name": "Grace Hopper"},
                     {"authorId": "2", "name": "Edsger Dijkstra"}],
         "externalIds": {"DOI": "10.48550/ARXIV.2402.1", "ArXiv": "2402.00011",
                         "PubMed": "38000009", "CorpusId": 1},
         "openAccessPdf": {"url": "https://arxiv.org/pdf/2402.00011", "status": "GREEN"}},
        {"paperId": "d4e5f6", "url": "https://www.semanticscholar.org/paper/d4e5f6",
         "title": "Older graph paper", "abstract": None,
         "tldr": {"model": "tldr@v2.0.0", "text": "A TLDR stands in for the abstract."},
         "year": 2019, "venue": "", "publicationDate": None, "citationCount": 3,
         "authors": [], "externalIds": {}, "openAccessPdf": None},
        {"paperId": "0000", "url": "https://www.semanticscholar.org/paper/0000",
         "title": "Neither abstract nor TLDR", "abstract": None, "tldr": None, "year": 2024,
         "authors": [], "externalIds": None, "openAccessPdf": None},
    ],
}

PUBMED_IDS = ["38000001", "31000002", "30000003"]


def esearch(ids: list[str]) -> dict[str, Any]:
    return {"header": {"type": "esearch", "version": "0.3"},
            "esearchresult": {"count": str(len(ids)), "retmax": str(len(ids)),
                              "retstart": "0", "idlist": ids, "translationset": [],
                              "querytranslation": "graph[All Fields]"}}


PUBMED_XML = """<?xml version="1.0" ?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2024//EN"
  "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_240101.dtd">
<PubmedArticleSet>
<PubmedArticle>
  <MedlineCitation Status="MEDLINE" Owner="NLM">
    <PMID Version="1">31000002</PMID>
    <Article PubModel="Print">
      <Journal><Title>The Lancet</Title>
        <JournalIssue CitedMedium="Internet"><Volume>394</Volume>
          <PubDate><MedlineDate>2019 Nov-Dec</MedlineDate></PubDate></JournalIssue></Journal>
      <ArticleTitle>Older trial of <i>statins</i>.</ArticleTitle>
      <Abstract><AbstractText>Plain abstract of the older trial.</AbstractText></Abstract>
      <AuthorList><Author><CollectiveName>Statin Trialists Group</CollectiveName></Author>
      </AuthorList>
    </Article>
  </MedlineCitation>
  <PubmedData><ArticleIdList><ArticleId IdType="pubmed">31000002</ArticleId>
  </ArticleIdList></PubmedData>
</PubmedArticle>
<PubmedArticle>
  <MedlineCitation Status="MEDLINE" Owner="NLM">
    <PMID Version="1">38000001</PMID>
    <Article PubModel="Print-Electronic">
      <Journal><ISSN IssnType="Electronic">1546-170X</ISSN><Title>Nature medicine</Title>
        <JournalIssue CitedMedium="Internet"><Volume>30</Volume><Issue>3</Issue>
          <PubDate><Year>2024</Year><Month>Mar</Month><Day>05</Day></PubDate>
        </JournalIssue></Journal>
      <ArticleTitle>Statins and graph-based risk models.</ArticleTitle>
      <ELocationID EIdType="doi" ValidYN="Y">10.1038/s41591-024-00001-1</ELocationID>
      <Abstract>
        <AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">Risk is high.</AbstractText>
        <AbstractText Label="METHODS" NlmCategory="METHODS">We used <i>graphs</i>.
        </AbstractText>
      </Abstract>
      <AuthorList CompleteYN="Y">
        <Author ValidYN="Y"><LastName>Smith</LastName><ForeName>Jane A</ForeName>
          <Initials>JA</Initials></Author>
        <Author ValidYN="Y"><LastName>Doe</LastName><ForeName>John</ForeName></Author>
      </AuthorList>
    </Article>
  </MedlineCitation>
  <PubmedData><ArticleIdList>
    <ArticleId IdType="pubmed">38000001</ArticleId>
    <ArticleId IdType="doi">10.1038/S41591-024-00001-1</ArticleId>
    <ArticleId IdType="pmc">PMC1234567</ArticleId>
  </ArticleIdList></PubmedData>
</PubmedArticle>
<PubmedArticle>
  <MedlineCitation Status="MEDLINE" Owner="NLM">
    <PMID Version="1">30000003</PMID>
    <Article><Journal><Title>BMJ</Title><JournalIssue><PubDate><Year>2024</Year></PubDate>
      </JournalIssue></Journal>
      <ArticleTitle>A letter without abstract.</ArticleTitle></Article>
  </MedlineCitation>
</PubmedArticle>
</PubmedArticleSet>
"""

ES_LONG_TEXT = "Graph databases store nodes and edges. " * 20
ES_HITS: dict[str, Any] = {
    "took": 3, "timed_out": False,
    "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
    "hits": {"total": {"value": 3, "relation": "eq"}, "max_score": 3.2, "hits": [
        {"_index": "documents", "_id": "doc-1", "_score": 3.2,
         "_source": {"title": "Graph handbook", "url": "https://intranet.example/graph",
                     "content": "Intro. Graph neural networks are covered here.",
                     "date": "2024-02-01"},
         "highlight": {"content": ["<em>Graph</em> neural networks", "are <em>covered</em>"]}},
        {"_index": "documents", "_id": "doc-2", "_score": 1.1,
         "_source": {"content": ES_LONG_TEXT, "date": 1546300800000}},
        {"_index": "documents", "_id": "doc-3", "_score": 0.5,
         "_source": {"title": "Empty document", "date": "2024-01-05"}},
    ]},
}

# ------------------------------------------------------------------ shared cases


@dataclass
class Case:
    """How to serve one engine: its main route, replies and settings."""

    cls: type[WebEngine]
    url: str
    ok: dict[str, Any]
    empty: dict[str, Any]
    method: str = "GET"
    settings: dict[str, Any] = field(default_factory=dict)
    #: Routes the engine needs besides the main one (PubMed's EFetch).
    extra: Callable[[respx.MockRouter], None] | None = None


def _efetch(router: respx.MockRouter) -> None:
    router.get(EFETCH_URL, name="efetch").mock(return_value=httpx.Response(200, text=PUBMED_XML))


CASES = {
    "arxiv": Case(ArxivEngine, ARXIV_URL, {"text": ARXIV_FEED}, {"text": atom()}),
    "openalex": Case(OpenAlexEngine, OPENALEX_URL, {"json": OPENALEX_WORKS},
                     {"json": {"meta": {"count": 0}, "results": []}}),
    "semantic-scholar": Case(SemanticScholarEngine, S2_URL, {"json": S2_PAPERS},
                             {"json": {"total": 0, "offset": 0}}),
    "pubmed": Case(PubMedEngine, ESEARCH_URL, {"json": esearch(PUBMED_IDS)},
                   {"json": esearch([])}, extra=_efetch),
    "elasticsearch": Case(ElasticsearchEngine, ES_URL, {"json": ES_HITS},
                          {"json": {"hits": {"total": {"value": 0}, "hits": []}}},
                          method="POST",
                          settings={"engines.elasticsearch_url": ES_BASE,
                                    "engines.elasticsearch_date_field": "date"}),
}


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys or URLs in the developer's environment must not change what is tested."""
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_called=False) as mock:
        yield mock


def serve(router: respx.MockRouter, case: Case, **reply: Any) -> respx.Route:
    """Mock the case's main route with ``reply`` (its ``ok`` reply when none given)."""
    if case.extra:
        case.extra(router)
    route = router.route(method=case.method, url=case.url)
    if reply.get("side_effect") is not None:
        return route.mock(side_effect=reply["side_effect"])
    return route.mock(return_value=httpx.Response(reply.pop("status", 200),
                                                  **(reply or case.ok)))


def run(make_settings: Any, case: Case, query: str = "graph neural networks",
        max_results: int = 5, **settings: Any) -> list[SearchResult]:
    engine = case.cls(make_settings(**{**case.settings, **settings}))
    try:
        return engine.search(query, max_results=max_results)
    finally:
        engine.close()


def by_title(results: list[SearchResult]) -> dict[str, SearchResult]:
    return {r.title: r for r in results}


@pytest.mark.parametrize("name", CASES)
def test_half_filled_hits_are_dropped(name: str, router: respx.MockRouter,
                                      make_settings: Any) -> None:
    case = CASES[name]
    serve(router, case)
    results = run(make_settings, case)
    assert len(results) == 2
    assert all(r.engine == name and r.title and r.url and r.snippet for r in results)


@pytest.mark.parametrize("name", CASES)
def test_empty_reply_is_no_results(name: str, router: respx.MockRouter,
                                   make_settings: Any) -> None:
    case = CASES[name]
    serve(router, case, **case.empty)
    assert run(make_settings, case) == []


@pytest.mark.parametrize("name", CASES)
def test_malformed_reply_is_a_search_error(name: str, router: respx.MockRouter,
                                           make_settings: Any) -> None:
    case = CASES[name]
    serve(router, case, text="<feed><entry>{not json" if name != "arxiv" else "<feed><entry>")
    with pytest.raises(SearchError, match=rf"^{name}: malformed (JSON|XML)"):
        run(make_settings, case)


@pytest.mark.parametrize("name", CASES)
def test_429_is_retried(name: str, router: respx.MockRouter, make_settings: Any,
                        _instant_backoff: list[float]) -> None:
    case = CASES[name]
    route = serve(router, case, side_effect=[
        httpx.Response(429, headers={"Retry-After": "1.5"}), httpx.Response(200, **case.ok)])
    assert len(run(make_settings, case)) == 2
    assert route.call_count == 2 and 1.5 in _instant_backoff


@pytest.mark.parametrize("name", CASES)
def test_timeout_is_a_search_error(name: str, router: respx.MockRouter,
                                   make_settings: Any) -> None:
    case = CASES[name]
    route = serve(router, case, side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(SearchError, match=rf"^{name}: timed out .* after 2 attempts"):
        run(make_settings, case, **{"engines.max_retries": 1})
    assert route.call_count == 2


@pytest.mark.parametrize("name", CASES)
def test_results_outside_the_time_range_are_filtered(name: str, router: respx.MockRouter,
                                                     make_settings: Any) -> None:
    case = CASES[name]
    serve(router, case)
    results = run(make_settings, case, **RANGE_2024)
    assert len(results) == 1
    assert results[0].published is not None and results[0].published.startswith("2024")


# ------------------------------------------------------------------ arXiv


def test_arxiv_mapping(router: respx.MockRouter, make_settings: Any) -> None:
    route = serve(router, CASES["arxiv"])
    results = by_title(run(make_settings, CASES["arxiv"]))
    new = results["Graph Neural Networks for Molecular Property Prediction"]
    assert new.url == "https://arxiv.org/abs/2401.01234v2"
    assert new.snippet == "We study graph neural networks on molecules and show strong results."
    assert new.published == "2024-01-03"
    assert new.metadata == {
        "authors": ["Ada Lovelace", "Alan Turing"], "doi": "10.1103/physrevx.14.011001",
        "venue": "Phys. Rev. X 14, 011001 (2024)", "categories": ["cs.LG", "stat.ML"],
        "pdf_url": "https://arxiv.org/pdf/2401.01234v2", "open_access": True, "year": 2024,
        "arxiv_id": "2401.01234", "version": 2}
    old = results["Strings on graphs"]
    assert (old.metadata["arxiv_id"], old.metadata["version"]) == ("hep-th/9901001", 1)
    assert "doi" not in old.metadata and "venue" not in old.metadata
    params = route.calls.last.request.url.params
    assert params["search_query"] == "all:graph AND all:neural AND all:networks"
    assert (params["max_results"], params["sortBy"]) == ("5", "relevance")


def test_arxiv_time_range_pushdown(router: respx.MockRouter, make_settings: Any) -> None:
    route = serve(router, CASES["arxiv"])
    run(make_settings, CASES["arxiv"], **RANGE_2024)
    assert route.calls.last.request.url.params["search_query"] == (
        "(all:graph AND all:neural AND all:networks) AND "
        "submittedDate:[202401010000 TO 202412312359]")
    run(make_settings, CASES["arxiv"], **{"search.since": "2023-05-06"})
    assert route.calls.last.request.url.params["search_query"].endswith(
        "AND submittedDate:[202305060000 TO " + _today() + "2359]")


def _today() -> str:
    return date.today().strftime("%Y%m%d")


def test_arxiv_falls_back_to_or_when_and_finds_nothing(router: respx.MockRouter,
                                                       make_settings: Any) -> None:
    route = router.get(ARXIV_URL).mock(side_effect=[
        httpx.Response(200, text=atom()), httpx.Response(200, text=ARXIV_FEED)])
    results = run(make_settings, CASES["arxiv"], "What is the effect of graph networks?")
    assert len(results) == 2
    queries = [call.request.url.params["search_query"] for call in route.calls]
    assert queries == ["all:effect AND all:graph AND all:networks",
                       "all:effect OR all:graph OR all:networks"]


def test_arxiv_query_without_words_sends_nothing(router: respx.MockRouter,
                                                 make_settings: Any) -> None:
    route = serve(router, CASES["arxiv"])
    assert run(make_settings, CASES["arxiv"], "?? !!") == []
    assert route.call_count == 0


def test_arxiv_error_entry_is_a_search_error(router: respx.MockRouter,
                                            make_settings: Any) -> None:
    error = atom('<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id>'
                 '<title>Error</title><summary>incorrect id format for 1234</summary>'
                 '</entry>')
    serve(router, CASES["arxiv"], text=error)
    with pytest.raises(SearchError, match=r"arxiv: arXiv refused the query .*incorrect id"):
        run(make_settings, CASES["arxiv"], "graph")


def test_arxiv_refuses_entity_declarations_and_huge_replies(
        router: respx.MockRouter, make_settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    bomb = '<?xml version="1.0"?><!DOCTYPE f [<!ENTITY a "aaaa">]><feed>&a;</feed>'
    route = serve(router, CASES["arxiv"], text=bomb)
    with pytest.raises(SearchError, match="arxiv: refused XML with entity declarations"):
        run(make_settings, CASES["arxiv"], "graph")
    monkeypatch.setattr("deepcite.search.engines.parsing.MAX_XML_CHARS", 100)
    route.mock(return_value=httpx.Response(200, text=ARXIV_FEED))
    with pytest.raises(SearchError, match=r"arxiv: the answer from export\.arxiv\.org is too"):
        run(make_settings, CASES["arxiv"], "graph")


def test_bare_doi() -> None:
    assert bare_doi("https://doi.org/10.1038/ABC") == "10.1038/abc"
    assert bare_doi("doi: 10.1/X") == "10.1/x"
    assert bare_doi("http://dx.doi.org/10.5/y") == "10.5/y"
    assert bare_doi("not a doi") is None and bare_doi(None) is None


# ------------------------------------------------------------------ OpenAlex


def test_openalex_mapping(router: respx.MockRouter, make_settings: Any) -> None:
    route = serve(router, CASES["openalex"])
    results = by_title(run(make_settings, CASES["openalex"]))
    new = results["Graph neural networks in chemistry"]
    assert new.url == "https://www.nature.com/articles/x1"
    assert new.snippet == "Graph neural networks help chemists."
    assert new.published == "2024-03-15"
    assert new.metadata == {
        "doi": "10.1038/s41586-024-00001-x", "authors": ["Marie Curie", "Pierre Curie"],
        "venue": "Nature", "year": 2024, "citation_count": 42, "open_access": True,
        "pdf_url": "https://www.nature.com/articles/x1.pdf",
        "openalex_id": "https://openalex.org/W4390000001"}
    old = results["An older study of graphs"]
    assert old.url == "https://doi.org/10.1000/old.2"
    assert old.snippet == "Book chapter in Springer Handbook (2019) by A, B, C et al."
    assert old.metadata["open_access"] is False and "pdf_url" not in old.metadata
    params = route.calls.last.request.url.params
    assert (params["search"], params["per-page"]) == ("graph neural networks", "5")
    assert "filter" not in params and "mailto" not in params
    assert "abstract_inverted_index" in params["select"]


def test_openalex_pushdown_and_polite_pool(router: respx.MockRouter,
                                           make_settings: Any) -> None:
    route = serve(router, CASES["openalex"])
    run(make_settings, CASES["openalex"],
        **{**RANGE_2024, "engines.openalex_email": "me@example.org"})
    params = route.calls.last.request.url.params
    assert params["filter"] == "from_publication_date:2024-01-01,to_publication_date:2024-12-31"
    assert params["mailto"] == "me@example.org"
    run(make_settings, CASES["openalex"], **{"search.until": "2020-02-29"})
    assert route.calls.last.request.url.params["filter"] == "to_publication_date:2020-02-29"


def test_openalex_falls_back_to_the_openalex_id_and_drops_bare_works(
        router: respx.MockRouter, make_settings: Any) -> None:
    works = {"results": [
        {"id": "https://openalex.org/W9", "title": "Only an id", "publication_year": 2020,
         "primary_location": {"source": None}},
        {"id": "https://openalex.org/W10", "title": "Nothing to describe"},
    ]}
    serve(router, CASES["openalex"], json=works)
    [result] = run(make_settings, CASES["openalex"])
    assert (result.url, result.snippet) == ("https://openalex.org/W9", "Work (2020)")


def test_openalex_unexpected_shape_is_a_search_error(router: respx.MockRouter,
                                                     make_settings: Any) -> None:
    serve(router, CASES["openalex"], json={"error": "Invalid query parameters"})
    with pytest.raises(SearchError, match="openalex: unexpected answer"):
        run(make_settings, CASES["openalex"])


def test_rebuild_abstract_ignores_junk() -> None:
    assert rebuild_abstract({"b": [1], "a": [0], "x": ["2"], "y": [10**9], "z": None}) == "a b"
    assert rebuild_abstract(None) == ""


# ------------------------------------------------------------------ Semantic Scholar


def test_semantic_scholar_mapping(router: respx.MockRouter, make_settings: Any) -> None:
    route = serve(router, CASES["semantic-scholar"])
    results = by_title(run(make_settings, CASES["semantic-scholar"],
                           "graph-neural networks"))
    new = results["Graph neural networks at scale"]
    assert (new.url, new.snippet, new.published) == (
        "https://www.semanticscholar.org/paper/a1b2c3", "We scale GNNs.", "2024-02-20")
    assert new.metadata == {
        "doi": "10.48550/arxiv.2402.1", "arxiv_id": "2402.00011", "pmid": "38000009",
        "authors": ["Grace Hopper", "Edsger Dijkstra"], "venue": "NeurIPS", "year": 2024,
        "citation_count": 12, "pdf_url": "https://arxiv.org/pdf/2402.00011",
        "open_access": True, "paper_id": "a1b2c3"}
    old = results["Older graph paper"]
    assert old.snippet == "A TLDR stands in for the abstract."
    assert old.published == "2019" and old.metadata["year"] == 2019
    request = route.calls.last.request
    assert request.url.params["query"] == "graph neural networks"
    assert request.url.params["limit"] == "5"
    assert set(request.url.params["fields"].split(",")) >= {"tldr", "externalIds", "abstract"}
    assert "x-api-key" not in request.headers
    assert "publicationDateOrYear" not in request.url.params


def test_semantic_scholar_pushdown_and_key(router: respx.MockRouter, make_settings: Any,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    route = serve(router, CASES["semantic-scholar"])
    run(make_settings, CASES["semantic-scholar"],
        **{**RANGE_2024, "engines.semantic_scholar_api_key": "s2-secret"})
    request = route.calls.last.request
    assert request.url.params["publicationDateOrYear"] == "2024-01-01:2024-12-31"
    assert request.headers["x-api-key"] == "s2-secret"
    monkeypatch.setenv("S2_API_KEY", "from-env")
    run(make_settings, CASES["semantic-scholar"], **{"search.since": "2023-07-01"})
    request = route.calls.last.request
    assert request.url.params["publicationDateOrYear"] == "2023-07-01:"
    assert request.headers["x-api-key"] == "from-env"


def test_semantic_scholar_is_available_without_a_key(make_settings: Any) -> None:
    assert SemanticScholarEngine.unavailable_reason(make_settings()) is None
    assert SemanticScholarEngine.needs == "optional API key"


# ------------------------------------------------------------------ PubMed


def test_pubmed_mapping_keeps_the_relevance_order(router: respx.MockRouter,
                                                  make_settings: Any) -> None:
    route = serve(router, CASES["pubmed"])
    results = run(make_settings, CASES["pubmed"])
    assert [r.metadata["pmid"] for r in results] == ["38000001", "31000002"]
    new, old = results
    assert new.title == "Statins and graph-based risk models."
    assert new.url == "https://pubmed.ncbi.nlm.nih.gov/38000001/"
    assert new.snippet == "Background: Risk is high. Methods: We used graphs."
    assert new.published == "2024-03-05"
    assert new.metadata == {
        "pmid": "38000001", "doi": "10.1038/s41591-024-00001-1",
        "authors": ["Jane A Smith", "John Doe"], "venue": "Nature medicine", "year": 2024,
        "pmcid": "PMC1234567", "open_access": True}
    assert old.title == "Older trial of statins."
    assert (old.published, old.metadata["year"]) == ("2019-11", 2019)
    assert old.metadata["authors"] == ["Statin Trialists Group"]
    assert "open_access" not in old.metadata and "doi" not in old.metadata
    params = route.calls.last.request.url.params
    assert (params["db"], params["term"], params["retmax"], params["retmode"]) == (
        "pubmed", "graph neural networks", "5", "json")
    assert "mindate" not in params and "api_key" not in params
    fetch = router.routes["efetch"].calls.last.request.url.params
    assert fetch["id"] == ",".join(PUBMED_IDS) and fetch["retmode"] == "xml"


def test_pubmed_without_ids_makes_no_second_request(router: respx.MockRouter,
                                                    make_settings: Any) -> None:
    serve(router, CASES["pubmed"], **CASES["pubmed"].empty)
    assert run(make_settings, CASES["pubmed"]) == []
    assert router.routes["efetch"].call_count == 0  # EFetch


def test_pubmed_pushdown(router: respx.MockRouter, make_settings: Any) -> None:
    route = serve(router, CASES["pubmed"])
    run(make_settings, CASES["pubmed"], **RANGE_2024)
    params = route.calls.last.request.url.params
    assert (params["datetype"], params["mindate"], params["maxdate"]) == (
        "pdat", "2024/01/01", "2024/12/31")
    run(make_settings, CASES["pubmed"], **{"search.since": "2022-03-04"})
    params = route.calls.last.request.url.params
    assert (params["mindate"], params["maxdate"]) == ("2022/03/04", "3000/12/31")


def test_pubmed_key_is_sent_and_raises_the_rate(router: respx.MockRouter, make_settings: Any,
                                                 _instant_backoff: list[float]) -> None:
    route = serve(router, CASES["pubmed"])
    run(make_settings, CASES["pubmed"], **{"engines.pubmed_api_key": "ncbi-secret"})
    assert route.calls.last.request.url.params["api_key"] == "ncbi-secret"
    assert router.routes["efetch"].calls.last.request.url.params["api_key"] == "ncbi-secret"
    assert _instant_backoff and max(_instant_backoff) <= 0.1
    _instant_backoff.clear()
    run(make_settings, CASES["pubmed"])
    assert max(_instant_backoff) > 0.1  # 3 requests/second without a key


def test_pubmed_errors(router: respx.MockRouter, make_settings: Any) -> None:
    route = serve(router, CASES["pubmed"],
                  json={"esearchresult": {"ERROR": "Invalid query syntax"}})
    with pytest.raises(SearchError, match=r"pubmed: PubMed refused the query \(Invalid"):
        run(make_settings, CASES["pubmed"])
    route.mock(return_value=httpx.Response(200, json={"error": "API key invalid"}))
    with pytest.raises(SearchError, match=r"pubmed: unexpected answer .*\(API key invalid\)"):
        run(make_settings, CASES["pubmed"])
    route.mock(return_value=httpx.Response(200, json=esearch(PUBMED_IDS)))
    router.routes["efetch"].mock(return_value=httpx.Response(200, text="<PubmedArticleSet><Pub"))
    with pytest.raises(SearchError, match="pubmed: malformed XML"):
        run(make_settings, CASES["pubmed"])


# ------------------------------------------------------------------ Elasticsearch


def test_elasticsearch_mapping_and_request(router: respx.MockRouter,
                                           make_settings: Any) -> None:
    route = serve(router, CASES["elasticsearch"])
    results = by_title(run(make_settings, CASES["elasticsearch"]))
    first = results["Graph handbook"]
    assert (first.url, first.snippet) == ("https://intranet.example/graph",
                                          "Graph neural networks … are covered")
    assert first.full_text == "Intro. Graph neural networks are covered here."
    assert first.published == "2024-02-01"
    assert first.metadata == {"index": "documents", "id": "doc-1", "score": 3.2}
    second = results["doc-2"]
    assert second.url == f"{ES_BASE}/documents/_doc/doc-2"
    assert second.published == "2019-01-01"
    assert len(second.snippet) <= 502 and second.snippet.endswith(" …")
    request = route.calls.last.request
    body = json.loads(request.content)
    assert body["size"] == 5
    assert body["query"]["bool"]["must"] == [{"multi_match": {
        "query": "graph neural networks", "fields": ["title^2", "content"]}}]
    assert "filter" not in body["query"]["bool"]
    assert body["highlight"] == {"fields": {"content": {}}}
    assert "authorization" not in request.headers


def test_elasticsearch_pushdown_fields_and_key(router: respx.MockRouter, make_settings: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    route = router.post(f"{ES_BASE}/papers/_search").respond(json={"hits": {"hits": [
        {"_index": "papers", "_id": "p1", "_score": 2.0,
         "_source": {"meta": {"name": "Nested title"}, "body": ["Part one.", "Part two."],
                     "link": "https://docs.example/p1", "issued": "2024-06-01"}}]}})
    monkeypatch.setenv("ELASTICSEARCH_API_KEY", "es-key")
    [result] = run(make_settings, CASES["elasticsearch"], **{
        **RANGE_2024, "engines.elasticsearch_index": "papers",
        "engines.elasticsearch_title_field": "meta.name",
        "engines.elasticsearch_text_field": "body", "engines.elasticsearch_url_field": "link",
        "engines.elasticsearch_date_field": "issued"})
    assert (result.title, result.url, result.published) == (
        "Nested title", "https://docs.example/p1", "2024-06-01")
    assert result.full_text == "Part one.\n\nPart two."
    request = route.calls.last.request
    assert request.url == "http://es.example:9200/papers/_search"
    assert request.headers["authorization"] == "ApiKey es-key"
    body = json.loads(request.content)
    assert body["query"]["bool"]["filter"] == [{"range": {"issued": {
        "format": "yyyy-MM-dd", "gte": "2024-01-01", "lte": "2024-12-31"}}}]
    assert body["query"]["bool"]["must"][0]["multi_match"]["fields"] == ["meta.name^2", "body"]


def test_elasticsearch_url_comes_from_settings_or_env(make_settings: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    reason = ElasticsearchEngine.unavailable_reason(make_settings())
    assert reason is not None and "engines.elasticsearch_url" in reason
    with pytest.raises(ConfigError, match="ELASTICSEARCH_URL"):
        ElasticsearchEngine(make_settings())
    monkeypatch.setenv("ELASTICSEARCH_URL", "https://elastic:pw@search.example:9243/")
    engine = ElasticsearchEngine(make_settings())
    assert engine.url == "https://elastic:pw@search.example:9243"
    assert engine.display_url == "https://search.example:9243"
    engine.close()
    assert ElasticsearchEngine.offline_capable is True


def test_elasticsearch_missing_index_names_the_setting(router: respx.MockRouter,
                                                       make_settings: Any) -> None:
    serve(router, CASES["elasticsearch"], status=404, json={
        "error": {"type": "index_not_found_exception", "reason": "no such index [documents]",
                  "index": "documents"}, "status": 404})
    with pytest.raises(SearchError, match=r"elasticsearch: index 'documents' not found at "
                                          r"http://es.example:9200 - check "
                                          r"engines.elasticsearch_index"):
        run(make_settings, CASES["elasticsearch"])


def test_elasticsearch_other_http_errors_pass_through(router: respx.MockRouter,
                                                      make_settings: Any) -> None:
    serve(router, CASES["elasticsearch"], status=401, json={"error": "unauthorized"})
    with pytest.raises(SearchError, match=r"elasticsearch: HTTP 401 .* check the API key"):
        run(make_settings, CASES["elasticsearch"])


def test_elasticsearch_configured_cluster_is_allowed_exactly(router: respx.MockRouter,
                                                              make_settings: Any) -> None:
    """The cluster the user configured needs no allow-list entry; its host on another
    port or scheme is still a private address the engine may not reach."""
    route = router.post("http://localhost:9200/documents/_search").mock(
        return_value=httpx.Response(200, json=ES_HITS))
    results = run(make_settings, CASES["elasticsearch"],
                  **{"engines.elasticsearch_url": "http://localhost:9200"})
    assert len(results) == 2 and route.call_count == 1
    engine = ElasticsearchEngine(make_settings(
        **{"engines.elasticsearch_url": "http://localhost:9200"}))
    with pytest.raises(EgressDenied, match="allow_private_hosts"):
        engine.http.policy.check("http://localhost:9201/documents/_search")
