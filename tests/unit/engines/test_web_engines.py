"""The general web engines against hand-written API replies (respx; no network).

Behaviour every HTTP engine shares (mapping, dropping half-filled hits, empty and
malformed replies, retries, timeouts, filters after the search) runs once per engine
through :data:`CASES`; what is particular to one engine (its pushdown parameters, its
key, its quirks) has its own tests below. DuckDuckGo answers HTML pages, so its tests
replay pages written the way its HTML endpoint writes them.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import httpx
import pytest
import respx

from deepcite.errors import ConfigError, EgressDenied, SearchError
from deepcite.search.engines.base import WebEngine
from deepcite.search.engines.brave import BraveEngine, brave_freshness
from deepcite.search.engines.duckduckgo import DuckDuckGoEngine, ddg_timelimit
from deepcite.search.engines.perplexity import LINK_ONLY_SNIPPET, PerplexityEngine
from deepcite.search.engines.searxng import SearxngEngine, searx_time_range
from deepcite.search.engines.tavily import TavilyEngine
from deepcite.search.engines.wikipedia import WikipediaEngine

Hit = dict[str, Any]
_page_ids = itertools.count(1000)

ANSWER = "Rust guarantees memory safety without a garbage collector [1][2]."

# ------------------------------------------------------------------ reply builders


def searx_hit(title: str, url: str, text: str) -> Hit:
    return {"title": title, "url": url, "content": text, "engines": ["bing", "brave"],
            "publishedDate": "2024-03-05T10:00:00", "score": 2.5}


def tavily_hit(title: str, url: str, text: str) -> Hit:
    return {"title": title, "url": url, "content": text, "score": 0.91,
            "raw_content": f"Full page of {title}", "published_date": "2024-03-05"}


def brave_hit(title: str, url: str, text: str) -> Hit:
    return {"title": title, "url": url, "description": f"<strong>{text}</strong>",
            "page_age": "2024-03-05T10:00:00", "age": "March 5, 2024", "language": "en"}


def pplx_page(title: str, url: str, text: str) -> Hit:
    return {"title": title, "url": url, "date": "2024-03-05"}


def pplx_reply(pages: list[Hit], answer: str = ANSWER) -> Any:
    return {"id": "x", "model": "sonar",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}}],
            "citations": [p.get("url") for p in pages], "search_results": pages}


def wiki_hit(title: str, url: str, text: str) -> Hit:
    return {"ns": 0, "title": title, "pageid": next(_page_ids),
            "snippet": f'<span class="searchmatch">{text}</span>',
            "timestamp": "2024-03-05T10:00:00Z"}


def wiki_extracts(request: httpx.Request) -> httpx.Response:
    ids = request.url.params["pageids"].split("|")
    pages = [{"pageid": int(i), "ns": 0, "title": f"Page {i}", "extract": f"Intro of {i}."}
             for i in ids]
    return httpx.Response(200, json={"batchcomplete": True, "query": {"pages": pages}})


@dataclass(frozen=True)
class Case:
    """One HTTP engine as the shared tests see it."""

    cls: type[WebEngine]
    method: str
    url: str
    hit: Callable[[str, str, str], Hit]
    reply: Callable[[list[Hit]], Any]
    broken: Hit
    settings: dict[str, Any] = field(default_factory=dict)
    #: Whether result URLs come from the hits (Wikipedia builds its own).
    urls_from_hits: bool = True

    @property
    def name(self) -> str:
        return self.cls.name


CASES = [
    Case(SearxngEngine, "GET", "https://searx.example.org/search", searx_hit,
         lambda hits: {"query": "q", "number_of_results": len(hits), "results": hits},
         {"url": "https://x.example/no-title", "content": "text"},
         {"engines.searxng_url": "https://searx.example.org"}),
    Case(TavilyEngine, "POST", "https://api.tavily.com/search", tavily_hit,
         lambda hits: {"query": "q", "results": hits, "response_time": 0.4},
         {"url": "https://x.example/no-title", "content": "text"},
         {"engines.tavily_api_key": "tvly-test"}),
    Case(BraveEngine, "GET", "https://api.search.brave.com/res/v1/web/search", brave_hit,
         lambda hits: {"type": "search", "web": {"type": "search", "results": hits}},
         {"url": "https://x.example/no-title", "description": "text"},
         {"engines.brave_api_key": "brave-test"}),
    Case(PerplexityEngine, "POST", "https://api.perplexity.ai/chat/completions", pplx_page,
         pplx_reply, {"title": "No URL", "url": ""},
         {"engines.perplexity_api_key": "pplx-test"}),
    Case(WikipediaEngine, "GET", "https://en.wikipedia.org/w/api.php", wiki_hit,
         lambda hits: {"batchcomplete": True,
                       "query": {"searchinfo": {"totalhits": len(hits)}, "search": hits}},
         {"ns": 0, "pageid": 1, "snippet": "no title", "timestamp": "2024-01-01T00:00:00Z"},
         urls_from_hits=False),
]


def hits_for(case: Case, count: int = 3) -> list[Hit]:
    return [case.hit(f"Result {i}", f"https://site{i}.example.com/page", f"Snippet {i}")
            for i in range(count)]


def mock(case: Case, **kwargs: Any) -> respx.Route:
    """The engine's main route; Wikipedia's intro request gets its own route first."""
    if case.cls is WikipediaEngine:
        respx.get(case.url, params={"prop": "extracts"}).mock(side_effect=wiki_extracts)
    return respx.route(method=case.method, url=case.url).mock(**kwargs)


@pytest.fixture
def engine_for(make_settings: Any) -> Callable[..., WebEngine]:
    def build(case: Case, **overrides: Any) -> WebEngine:
        return case.cls(make_settings(**{**case.settings, **overrides}))

    return build


# -------------------------------------------------------------------- shared tests

ids = [c.name for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=ids)
@respx.mock
def test_maps_hits_in_order(case: Case, engine_for: Any) -> None:
    hits = hits_for(case)
    mock(case, return_value=httpx.Response(200, json=case.reply(hits)))
    results = engine_for(case).search("rust memory safety", max_results=5)
    assert len(results) == 3
    assert all(r.engine == case.name and r.title and r.snippet for r in results)
    if case.urls_from_hits:
        assert [r.url for r in results] == [f"https://site{i}.example.com/page"
                                            for i in range(3)]


@pytest.mark.parametrize("case", CASES, ids=ids)
@respx.mock
def test_half_filled_hit_is_dropped(case: Case, engine_for: Any) -> None:
    hits = hits_for(case, 2)
    mock(case, return_value=httpx.Response(200, json=case.reply([hits[0], case.broken,
                                                                 hits[1]])))
    results = engine_for(case).search("q", max_results=5)
    assert len(results) == 2


@pytest.mark.parametrize("case", CASES, ids=ids)
@respx.mock
def test_no_hits_is_an_empty_list(case: Case, engine_for: Any) -> None:
    mock(case, return_value=httpx.Response(200, json=case.reply([])))
    assert engine_for(case).search("q", max_results=5) == []


@pytest.mark.parametrize("case", CASES, ids=ids)
@respx.mock
def test_malformed_json_is_a_search_error(case: Case, engine_for: Any) -> None:
    mock(case, return_value=httpx.Response(200, text="<html>maintenance</html>"))
    with pytest.raises(SearchError, match=rf"^{case.name}: malformed JSON"):
        engine_for(case).search("q", max_results=5)


@pytest.mark.parametrize("case", CASES, ids=ids)
@respx.mock
def test_unexpected_json_shape_is_a_search_error(case: Case, engine_for: Any) -> None:
    mock(case, return_value=httpx.Response(200, json=["not", "an", "object"]))
    with pytest.raises(SearchError, match=rf"^{case.name}: unexpected reply"):
        engine_for(case).search("q", max_results=5)


@pytest.mark.parametrize("case", CASES, ids=ids)
@respx.mock
def test_rate_limited_then_success(case: Case, engine_for: Any,
                                   _instant_backoff: list[float]) -> None:
    route = mock(case, side_effect=[
        httpx.Response(429, headers={"Retry-After": "3"}),
        httpx.Response(200, json=case.reply(hits_for(case, 2))),
    ])
    results = engine_for(case).search("q", max_results=5)
    assert len(results) == 2
    assert route.call_count == 2
    assert 3.0 in _instant_backoff


@pytest.mark.parametrize("case", CASES, ids=ids)
@respx.mock
def test_timeout_is_a_search_error_after_retries(case: Case, engine_for: Any) -> None:
    route = mock(case, side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(SearchError, match=rf"^{case.name}: timed out .* after 3 attempts"):
        engine_for(case).search("q", max_results=5)
    assert route.call_count == 3


@pytest.mark.parametrize("case", [c for c in CASES if c.urls_from_hits],
                         ids=[c.name for c in CASES if c.urls_from_hits])
@respx.mock
def test_filters_apply_after_the_search(case: Case, engine_for: Any) -> None:
    hits = [case.hit("Bad", "https://www.bad.example/x", "bad"),
            *hits_for(case, 2),
            case.hit("Also bad", "https://sub.bad.example/y", "bad")]
    mock(case, return_value=httpx.Response(200, json=case.reply(hits)))
    engine = engine_for(case, **{"search.exclude_domains": ["bad.example"]})
    results = engine.search("q", max_results=5)
    assert [r.url for r in results] == ["https://site0.example.com/page",
                                        "https://site1.example.com/page"]


@pytest.mark.parametrize("case", [c for c in CASES if c.cls.key_setting],
                         ids=[c.name for c in CASES if c.cls.key_setting])
def test_missing_key_names_setting_and_env(case: Case, make_settings: Any,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for var in case.cls.key_env:
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError) as err:
        case.cls(make_settings())
    message = str(err.value)
    assert f"engines.{case.cls.key_setting}" in message
    assert all(var in message for var in case.cls.key_env)


@pytest.mark.parametrize("case", [c for c in CASES if c.cls.key_setting],
                         ids=[c.name for c in CASES if c.cls.key_setting])
@respx.mock
def test_key_from_environment(case: Case, make_settings: Any,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    for var in case.cls.key_env:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(case.cls.key_env[-1], "env-key")
    route = mock(case, return_value=httpx.Response(200, json=case.reply(hits_for(case, 1))))
    case.cls(make_settings()).search("q", max_results=5)
    headers = route.calls.last.request.headers
    assert "env-key" in (headers.get("Authorization", "") + headers.get(
        "X-Subscription-Token", ""))


# ------------------------------------------------------------------------- SearXNG


@respx.mock
def test_searxng_maps_fields_and_pushes_filters_down(make_settings: Any) -> None:
    since = date.today() - timedelta(days=20)
    hit = searx_hit("Rust", "https://docs.rs/x", "Memory <b>safe</b>")
    hit["publishedDate"] = f"{since + timedelta(days=5)}T10:00:00"
    route = respx.get("https://searx.example.org/search").mock(
        return_value=httpx.Response(200, json={"results": [hit]}))
    engine = SearxngEngine(make_settings(**{
        "engines.searxng_url": "https://searx.example.org/", "search.since": since,
        "search.include_domains": ["docs.rs"]}))
    [result] = engine.search("rust", max_results=5)
    assert (result.title, result.url, result.snippet) == ("Rust", "https://docs.rs/x",
                                                          "Memory safe")
    assert result.published == (since + timedelta(days=5)).isoformat()
    assert result.metadata == {"engines": ["bing", "brave"], "score": 2.5}
    params = route.calls.last.request.url.params
    assert params["q"] == "rust site:docs.rs"
    assert (params["format"], params["pageno"], params["time_range"]) == ("json", "1", "month")
    assert "language" in params


def test_searxng_needs_an_instance_url(make_settings: Any,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEARXNG_URL", raising=False)
    with pytest.raises(ConfigError, match=r"engines\.searxng_url or SEARXNG_URL"):
        SearxngEngine(make_settings())
    with pytest.raises(ConfigError, match="not an http"):
        SearxngEngine(make_settings(**{"engines.searxng_url": "searx.example.org"}))


@respx.mock
def test_searxng_url_from_environment(make_settings: Any,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARXNG_URL", "https://env-searx.example.org/search")
    route = respx.get("https://env-searx.example.org/search").mock(
        return_value=httpx.Response(200, json={"results": []}))
    assert SearxngEngine(make_settings()).search("q", max_results=3) == []
    assert route.called


@respx.mock
def test_searxng_403_hints_at_the_json_format(make_settings: Any) -> None:
    respx.get("https://searx.example.org/search").mock(return_value=httpx.Response(403))
    engine = SearxngEngine(make_settings(**{"engines.searxng_url": "https://searx.example.org"}))
    with pytest.raises(SearchError, match=r"settings\.yml \(search\.formats\)") as err:
        engine.search("q", max_results=3)
    assert "API key" not in str(err.value)


@respx.mock
def test_searxng_configured_instance_is_allowed_exactly(make_settings: Any) -> None:
    """The configured instance needs no allow-list entry; other ports of its host do."""
    route = respx.get("http://searx.lan:8080/search").mock(return_value=httpx.Response(
        200, json={"results": [searx_hit("Home", "https://example.org/a", "text")]}))
    engine = SearxngEngine(make_settings(**{"engines.searxng_url": "http://searx.lan:8080"}))
    assert [r.url for r in engine.search("q", max_results=3)] == ["https://example.org/a"]
    assert route.called
    with pytest.raises(EgressDenied, match=r"searx\.lan:8081 to security\.allow_private_hosts"):
        engine.http.policy.check("http://searx.lan:8081/search")


def test_searx_time_range_picks_the_smallest_window() -> None:
    today = date(2024, 6, 30)
    assert searx_time_range(None, today) is None
    assert searx_time_range(date(2024, 6, 30), today) == "day"
    assert searx_time_range(date(2024, 6, 25), today) == "week"
    assert searx_time_range(date(2024, 6, 1), today) == "month"
    assert searx_time_range(date(2023, 7, 1), today) == "year"
    assert searx_time_range(date(2020, 1, 1), today) is None


# -------------------------------------------------------------------------- Tavily


@respx.mock
def test_tavily_maps_fields_and_pushes_filters_down(make_settings: Any) -> None:
    route = respx.post("https://api.tavily.com/search").mock(return_value=httpx.Response(
        200, json={"results": [tavily_hit("Rust", "https://docs.rs/x", "Memory safe")]}))
    engine = TavilyEngine(make_settings(**{
        "engines.tavily_api_key": "tvly-secret", "search.fetch_full_text": True,
        "search.include_domains": ["docs.rs", "rust-lang.org"],
        "search.exclude_domains": ["spam.example"],
        "search.since": "2024-01-01", "search.until": "2024-12-31"}))
    [result] = engine.search("rust", max_results=50)
    assert (result.title, result.url, result.snippet) == ("Rust", "https://docs.rs/x",
                                                          "Memory safe")
    assert result.full_text == "Full page of Rust"
    assert result.published == "2024-03-05"
    assert result.metadata == {"score": 0.91}
    request = route.calls.last.request
    assert request.headers["Authorization"] == "Bearer tvly-secret"
    body = json.loads(request.content)
    assert body == {"query": "rust", "max_results": 20, "search_depth": "basic",
                    "include_raw_content": True,
                    "include_domains": ["docs.rs", "rust-lang.org"],
                    "exclude_domains": ["spam.example"],
                    "start_date": "2024-01-01", "end_date": "2024-12-31"}


@respx.mock
def test_tavily_raw_content_only_when_full_text_is_asked_for(make_settings: Any) -> None:
    route = respx.post("https://api.tavily.com/search").mock(
        return_value=httpx.Response(200, json={"results": []}))
    TavilyEngine(make_settings(**{"engines.tavily_api_key": "k"})).search("q", max_results=3)
    body = json.loads(route.calls.last.request.content)
    assert body["include_raw_content"] is False
    assert not {"include_domains", "exclude_domains", "start_date", "end_date"} & set(body)


@respx.mock
def test_tavily_bad_key_says_so(make_settings: Any) -> None:
    respx.post("https://api.tavily.com/search").mock(return_value=httpx.Response(401))
    with pytest.raises(SearchError, match=r"^tavily: HTTP 401 .*check the API key"):
        TavilyEngine(make_settings(**{"engines.tavily_api_key": "k"})).search("q", max_results=3)


# ---------------------------------------------------------------------- Perplexity


def _pplx(make_settings: Any, **overrides: Any) -> PerplexityEngine:
    return PerplexityEngine(make_settings(**{"engines.perplexity_api_key": "pplx-k",
                                             **overrides}))


def _carrying_answer(results: list[Any], phrase: str = "memory safety") -> list[Any]:
    return [r for r in results if phrase in r.snippet or phrase in (r.full_text or "")]


@respx.mock
def test_perplexity_answer_rides_on_the_first_citation_only(make_settings: Any) -> None:
    pages = [pplx_page("The Rust Book", "https://doc.rust-lang.org/book", "")]
    reply = pplx_reply(pages)
    reply["citations"] = ["https://doc.rust-lang.org/book", "https://www.example.org/rust",
                          "https://doc.rust-lang.org/book"]
    route = respx.post("https://api.perplexity.ai/chat/completions").mock(
        return_value=httpx.Response(200, json=reply))
    results = _pplx(make_settings).search("is rust memory safe", max_results=5)
    assert [r.url for r in results] == ["https://doc.rust-lang.org/book",
                                        "https://www.example.org/rust"]
    first, link = results
    assert _carrying_answer(results) == [first]
    assert first.title == "The Rust Book"
    assert first.published == "2024-03-05"
    assert first.full_text == ("Rust guarantees memory safety without a garbage collector "
                               "(doc.rust-lang.org) (example.org).")
    assert first.snippet == first.full_text
    assert first.metadata == {"perplexity_answer": True, "model": "sonar"}
    assert (link.title, link.snippet, link.full_text) == ("example.org", LINK_ONLY_SNIPPET,
                                                          None)
    assert link.metadata == {"link_only": True}
    body = json.loads(route.calls.last.request.content)
    assert body == {"model": "sonar",
                    "messages": [{"role": "user", "content": "is rust memory safe"}]}
    assert route.calls.last.request.headers["Authorization"] == "Bearer pplx-k"


@respx.mock
def test_perplexity_answer_moves_past_an_excluded_first_citation(make_settings: Any) -> None:
    pages = [pplx_page("Spam", "https://spam.example/a", ""),
             pplx_page("Good", "https://good.example/b", ""),
             pplx_page("Other", "https://other.example/c", "")]
    respx.post("https://api.perplexity.ai/chat/completions").mock(
        return_value=httpx.Response(200, json=pplx_reply(pages)))
    engine = _pplx(make_settings, **{"search.exclude_domains": ["spam.example"]})
    results = engine.search("q", max_results=5)
    assert [r.url for r in results] == ["https://good.example/b", "https://other.example/c"]
    assert _carrying_answer(results) == [results[0]]
    assert results[0].metadata["perplexity_answer"] is True


@respx.mock
def test_perplexity_long_answer_snippet_is_cut(make_settings: Any) -> None:
    answer = "<think>internal musing</think>" + "memory safety matters. " * 60
    respx.post("https://api.perplexity.ai/chat/completions").mock(return_value=httpx.Response(
        200, json=pplx_reply([pplx_page("A", "https://a.example/", "")], answer)))
    [result] = _pplx(make_settings).search("q", max_results=5)
    assert len(result.snippet) <= 500 and result.snippet.endswith("...")
    assert result.full_text is not None and len(result.full_text) > 1000
    assert "musing" not in result.full_text


@respx.mock
def test_perplexity_pushes_filters_down(make_settings: Any) -> None:
    route = respx.post("https://api.perplexity.ai/chat/completions").mock(
        return_value=httpx.Response(200, json=pplx_reply([])))
    _pplx(make_settings, **{"search.include_domains": ["nature.com", "science.org"],
                            "search.since": "2024-03-05", "search.until": "2024-11-20",
                            "engines.perplexity_model": "sonar-pro"}).search("q", max_results=5)
    body = json.loads(route.calls.last.request.content)
    assert body["model"] == "sonar-pro"
    assert body["search_domain_filter"] == ["nature.com", "science.org"]
    assert body["search_after_date_filter"] == "3/5/2024"
    assert body["search_before_date_filter"] == "11/20/2024"
    _pplx(make_settings, **{"search.exclude_domains": ["reddit.com"]}).search("q",
                                                                              max_results=5)
    body = json.loads(route.calls.last.request.content)
    assert body["search_domain_filter"] == ["-reddit.com"]


@respx.mock
def test_perplexity_without_search_results_titles_by_host(make_settings: Any) -> None:
    reply = pplx_reply([])
    reply["citations"] = ["https://www.nature.com/articles/1", "https://science.org/2"]
    del reply["search_results"]
    respx.post("https://api.perplexity.ai/chat/completions").mock(
        return_value=httpx.Response(200, json=reply))
    results = _pplx(make_settings).search("q", max_results=5)
    assert [r.title for r in results] == ["nature.com", "science.org"]
    assert all(r.published is None for r in results)


# --------------------------------------------------------------------------- Brave


@respx.mock
def test_brave_maps_fields_and_pushes_filters_down(make_settings: Any) -> None:
    hit = brave_hit("Rust", "https://docs.rs/x", "Memory safe")
    hit["extra_snippets"] = ["More <b>text</b>.", "Even more."]
    route = respx.get("https://api.search.brave.com/res/v1/web/search").mock(
        return_value=httpx.Response(200, json={"web": {"results": [hit]}}))
    engine = BraveEngine(make_settings(**{
        "engines.brave_api_key": "brave-k", "search.include_domains": ["docs.rs"],
        "search.since": "2024-01-01", "search.until": "2024-06-30"}))
    [result] = engine.search("rust", max_results=50)
    assert (result.title, result.url, result.snippet) == ("Rust", "https://docs.rs/x",
                                                          "Memory safe")
    assert result.full_text == "Memory safe\n\nMore text .\n\nEven more."
    assert result.published == "2024-03-05"
    assert result.metadata == {"age": "March 5, 2024", "language": "en"}
    request = route.calls.last.request
    assert request.headers["X-Subscription-Token"] == "brave-k"
    assert request.headers["Accept"] == "application/json"
    params = request.url.params
    assert (params["q"], params["count"]) == ("rust site:docs.rs", "20")
    assert params["freshness"] == "2024-01-01to2024-06-30"


@respx.mock
def test_brave_without_web_section_is_empty(make_settings: Any) -> None:
    respx.get("https://api.search.brave.com/res/v1/web/search").mock(
        return_value=httpx.Response(200, json={"type": "search", "query": {"original": "q"}}))
    assert BraveEngine(make_settings(**{"engines.brave_api_key": "k"})).search(
        "q", max_results=5) == []


def test_brave_freshness_is_an_exact_range() -> None:
    today = date(2024, 6, 30)
    assert brave_freshness(None, None, today) is None
    assert brave_freshness(date(2024, 6, 1), None, today) == "2024-06-01to2024-06-30"
    assert brave_freshness(None, date(2020, 1, 1), today) == "1990-01-01to2020-01-01"


def test_brave_takes_its_second_env_var(make_settings: Any,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "second")
    assert BraveEngine.api_key(make_settings()) == "second"
    assert BraveEngine.default_rate == 1.0


# ----------------------------------------------------------------------- Wikipedia


@respx.mock
def test_wikipedia_maps_hits_with_intros(make_settings: Any) -> None:
    search = respx.get("https://de.wikipedia.org/w/api.php", params={"list": "search"}).mock(
        return_value=httpx.Response(200, json={"query": {"search": [
            {"ns": 0, "title": "C++ (Programmiersprache)", "pageid": 11,
             "snippet": 'eine <span class="searchmatch">Programmiersprache</span> &amp; mehr',
             "timestamp": "2024-05-01T12:00:00Z"},
            {"ns": 0, "title": "Zürich", "pageid": 12, "snippet": "",
             "timestamp": "2023-01-01T00:00:00Z"}]}}))
    extracts = respx.get("https://de.wikipedia.org/w/api.php",
                         params={"prop": "extracts"}).mock(side_effect=wiki_extracts)
    engine = WikipediaEngine(make_settings(**{"engines.wikipedia_language": "de"}))
    first, second = engine.search("programmiersprache", max_results=7)
    assert first.url == "https://de.wikipedia.org/wiki/C%2B%2B_(Programmiersprache)"
    assert first.title == "C++ (Programmiersprache)"
    assert first.snippet == "eine Programmiersprache & mehr"
    assert first.full_text == "Intro of 11."
    assert first.published is None
    assert first.metadata == {"pageid": 11, "last_edited": "2024-05-01T12:00:00Z",
                              "language": "de"}
    # A title-only match has no snippet; the intro stands in.
    assert second.url == "https://de.wikipedia.org/wiki/Z%C3%BCrich"
    assert second.snippet == "Intro of 12."
    params = search.calls.last.request.url.params
    assert (params["srsearch"], params["srlimit"], params["format"]) == (
        "programmiersprache", "7", "json")
    assert extracts.calls.last.request.url.params["pageids"] == "11|12"
    assert extracts.calls.last.request.url.params["exintro"] == "1"


@respx.mock
def test_wikipedia_keeps_snippets_when_intros_fail(make_settings: Any,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    respx.get("https://en.wikipedia.org/w/api.php", params={"prop": "extracts"}).mock(
        return_value=httpx.Response(200, text="not json"))
    respx.get("https://en.wikipedia.org/w/api.php").mock(return_value=httpx.Response(
        200, json={"query": {"search": [wiki_hit("Rust", "", "systems language")]}}))
    with caplog.at_level(logging.WARNING):
        [result] = WikipediaEngine(make_settings()).search("rust", max_results=3)
    assert (result.title, result.snippet, result.full_text) == ("Rust", "systems language",
                                                                None)
    assert result.url == "https://en.wikipedia.org/wiki/Rust"
    assert "intros unavailable" in caplog.text


@respx.mock
def test_wikipedia_respects_domain_filters(make_settings: Any) -> None:
    mock(CASES[-1], return_value=httpx.Response(200, json=CASES[-1].reply(
        hits_for(CASES[-1], 2))))
    engine = WikipediaEngine(make_settings(**{"search.exclude_domains": ["wikipedia.org"]}))
    assert engine.search("q", max_results=5) == []


# --------------------------------------------------------------------- DuckDuckGo


def ddg_result(title: str, href: str, snippet: str, *, ad: bool = False) -> str:
    """One result as DuckDuckGo's HTML endpoint writes it."""
    kind = "result--ad" if ad else "web-result"
    return (f'<div class="result results_links {kind}"><div class="links_main '
            f'result__body"><h2 class="result__title"><a rel="nofollow" class="result__a" '
            f'href="{href}">{title}</a></h2><div class="result__extras"><img src="x.ico">'
            f'<a class="result__url" href="{href}">site</a></div><a class="result__snippet"'
            f' href="{href}">{snippet}</a><div class="clear"></div></div></div>')


def ddg_page(*results: str) -> str:
    return ("<!DOCTYPE html><html><body><div id=\"links\" class=\"results\">"
            + "".join(results) + "</div></body></html>")


DDG_PAGE = ddg_page(
    ddg_result("Ad", "https://duckduckgo.com/y.js?ad_domain=x.example&u3=1", "Buy", ad=True),
    ddg_result("<b>Rust</b> &amp; you", "//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.rust-lang.org"
               "%2F&rut=abc", "A <b>language</b>"),
    ddg_result("", "https://no-title.example/", "dropped"),
    ddg_result("Spam", "https://spam.example/", "excluded"),
    ddg_result("Book", "https://doc.rust-lang.org/book/", "The book"),
)
DDG_URL = "https://html.duckduckgo.com/html/"


def _form(request: httpx.Request) -> dict[str, str]:
    from urllib.parse import parse_qsl

    return dict(parse_qsl(request.content.decode(), keep_blank_values=True))


@respx.mock
def test_duckduckgo_maps_hits_and_applies_filters(make_settings: Any) -> None:
    route = respx.post(DDG_URL).mock(return_value=httpx.Response(200, text=DDG_PAGE))
    engine = DuckDuckGoEngine(make_settings(**{"search.exclude_domains": ["spam.example"]}))
    results = engine.search("rust", max_results=3)
    assert [(r.title, r.url, r.snippet) for r in results] == [
        ("Rust & you", "https://www.rust-lang.org/", "A language"),
        ("Book", "https://doc.rust-lang.org/book/", "The book")]
    assert all(r.engine == "duckduckgo" and r.published is None for r in results)
    assert _form(route.calls[0].request) == {"q": "rust", "b": "", "l": "wt-wt"}


@respx.mock
def test_duckduckgo_asks_for_the_next_page_only_when_it_needs_more(make_settings: Any) -> None:
    second = ddg_page(ddg_result("More", "https://more.example/", "more"))
    route = respx.post(DDG_URL).mock(side_effect=[
        httpx.Response(200, text=DDG_PAGE), httpx.Response(200, text=second),
        httpx.Response(200, text=second)])
    results = DuckDuckGoEngine(make_settings()).search("rust", max_results=10)
    assert [r.url for r in results][-1] == "https://more.example/"
    forms = [_form(call.request) for call in route.calls]
    assert [form.get("s") for form in forms] == [None, "10", "25"]  # the third added nothing


@respx.mock
def test_duckduckgo_pushes_time_and_single_domain_down(make_settings: Any) -> None:
    route = respx.post(DDG_URL).mock(return_value=httpx.Response(200, text=ddg_page()))
    since = date.today() - timedelta(days=3)
    DuckDuckGoEngine(make_settings(**{"search.since": since,
                                      "search.include_domains": ["rust-lang.org"]})
                     ).search("rust", max_results=5)
    DuckDuckGoEngine(make_settings(**{"search.include_domains": ["a.org", "b.org"]})
                     ).search("rust", max_results=5)
    first, second = (_form(call.request) for call in route.calls)
    assert (first["q"], first["df"]) == ("rust site:rust-lang.org", "w")
    assert second["q"] == "rust" and "df" not in second


def test_ddg_timelimit_picks_the_smallest_window() -> None:
    today = date(2024, 6, 30)
    assert [ddg_timelimit(today - timedelta(days=n), today) for n in (0, 5, 20, 200, 900)
            ] == ["d", "w", "m", "y", None]
    assert ddg_timelimit(None, today) is None


@respx.mock
def test_duckduckgo_no_results_page_is_empty(make_settings: Any) -> None:
    respx.post(DDG_URL).mock(return_value=httpx.Response(
        200, text='<html><body><div class="no-results">No results.</div></body></html>'))
    assert DuckDuckGoEngine(make_settings()).search("q", max_results=5) == []


@respx.mock
def test_duckduckgo_retries_once_after_a_rate_limit(make_settings: Any,
                                                    _instant_backoff: list[float]) -> None:
    route = respx.post(DDG_URL).mock(side_effect=[
        httpx.Response(202, text="anomaly"),
        httpx.Response(200, text=ddg_page(ddg_result("Rust", "https://www.rust-lang.org/",
                                                     "A language")))])
    results = DuckDuckGoEngine(make_settings()).search("q", max_results=1)
    assert [r.url for r in results] == ["https://www.rust-lang.org/"]
    assert route.call_count == 2 and _instant_backoff == [2.0]


@respx.mock
def test_duckduckgo_errors_are_one_line_search_errors(make_settings: Any) -> None:
    engine = DuckDuckGoEngine(make_settings())
    respx.post(DDG_URL).mock(return_value=httpx.Response(202, text="anomaly"))
    with pytest.raises(SearchError, match=r"^duckduckgo: rate-limited .* twice"):
        engine.search("q", max_results=5)
    respx.post(DDG_URL).mock(side_effect=httpx.ConnectError("boom"))
    with pytest.raises(SearchError, match=r"^duckduckgo: connection failed .* from "
                                          r"html\.duckduckgo\.com"):
        engine.search("q", max_results=5)


@respx.mock
def test_duckduckgo_offline_is_refused_before_searching(make_settings: Any) -> None:
    route = respx.post(DDG_URL)
    engine = DuckDuckGoEngine(make_settings(**{"security.offline": True}))
    with pytest.raises(SearchError, match=r"^duckduckgo: Refused .*offline mode"):
        engine.search("q", max_results=5)
    assert route.call_count == 0


@respx.mock
def test_searxng_lan_instance_works_offline(make_settings: Any) -> None:
    respx.get("http://searx.lan:8080/search").mock(return_value=httpx.Response(
        200, json={"results": [searx_hit("Home", "https://example.org/a", "text")]}))
    engine = SearxngEngine(make_settings(**{"security.offline": True,
                                            "engines.searxng_url": "http://searx.lan:8080"}))
    assert [r.url for r in engine.search("q", max_results=3)] == ["https://example.org/a"]
    assert SearxngEngine.offline_capable
