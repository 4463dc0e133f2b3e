"""Shared search machinery: HTTP retries, registry, auto, circuit, fetch, formatting."""

from __future__ import annotations

import io
import threading
from typing import Any

import httpx
import pytest
import respx

from deepcite.errors import ConfigError, SearchError
from deepcite.search import canonical_url, dedupe_and_format, fetch_full_text, get_engine
from deepcite.search.auto import AutoEngine, merge_results
from deepcite.search.circuit_breaker import CircuitOpen, GuardedEngine
from deepcite.search.filters import SearchFilters, apply_filters
from deepcite.search.format import cut_to_tokens
from deepcite.search.http import EngineHTTP
from deepcite.search.registry import describe_engines, engine_names
from deepcite.search.results import make_result
from deepcite.types import SearchResult
from tests.factories import make_pdf
from tests.fakes import MemoryEngine, passage


def test_canonical_url_rules() -> None:
    assert canonical_url("HTTPS://User:pw@Example.COM:443/a/b/?utm_source=x&q=1&fbclid=2&"
                         "gclid=3&_ga=4#frag") == "https://example.com/a/b?q=1"
    assert canonical_url("http://example.com:8080/") == "http://example.com:8080/"
    assert canonical_url("http://example.com/?b=2&a=1&utm_medium=m") == \
        "http://example.com/?b=2&a=1"
    assert canonical_url("  not a url  ") == "not a url"
    assert canonical_url("file:///docs/a.pdf#page=3") == "file:///docs/a.pdf#page=3"


def test_make_result_drops_half_filled_hits() -> None:
    assert make_result("x", title="T", url="", snippet="s") is None
    assert make_result("x", title=" ", url="https://a.b", snippet="s") is None
    result = make_result("x", title="<b>T</b> &amp; U", url="https://a.b", snippet="s",
                         published="2024-03-05T10:00:00Z", metadata={"doi": None, "year": 2024})
    assert result is not None
    assert (result.title, result.published, result.metadata) == ("T & U", "2024-03-05",
                                                                 {"year": 2024})


def test_http_retries_429_then_succeeds(make_settings: Any, _instant_backoff: list[float]
                                        ) -> None:
    http = EngineHTTP("demo", make_settings())
    with respx.mock:
        route = respx.get("https://api.example/search").mock(side_effect=[
            httpx.Response(429, headers={"Retry-After": "2"}), httpx.Response(200, json={"ok": 1})])
        assert http.get_json("https://api.example/search") == {"ok": 1}
    assert route.call_count == 2 and 2.0 in _instant_backoff


def test_http_failures_are_one_line_search_errors(make_settings: Any) -> None:
    http = EngineHTTP("demo", make_settings(**{"engines.max_retries": 1}))
    with respx.mock:
        respx.get("https://api.example/a").mock(side_effect=httpx.ReadTimeout("slow"))
        respx.get("https://api.example/b").mock(return_value=httpx.Response(200, text="{oops"))
        respx.get("https://api.example/c").mock(return_value=httpx.Response(401))
        with pytest.raises(SearchError, match=r"demo: timed out .* after 2 attempts"):
            http.get_json("https://api.example/a")
        with pytest.raises(SearchError, match="malformed JSON"):
            http.get_json("https://api.example/b")
        with pytest.raises(SearchError, match=r"401.*check the API key"):
            http.get_json("https://api.example/c")


def test_http_refuses_private_targets(make_settings: Any) -> None:
    http = EngineHTTP("demo", make_settings())
    with pytest.raises(SearchError, match="allow_private_hosts"):
        http.get_json("http://127.0.0.1:9200/_search")


def test_rate_limit_spaces_requests(make_settings: Any, _instant_backoff: list[float],
                                    monkeypatch: Any) -> None:
    # the clock stands still: on a loaded machine more than half a second may pass
    # between two requests, and the third would then need no wait
    monkeypatch.setattr("deepcite.search.http.time.monotonic", lambda: 1000.0)
    http = EngineHTTP("demo", make_settings(**{"engines.rate_per_second": {"demo": 2.0}}))
    with respx.mock:
        respx.get("https://api.example/r").mock(return_value=httpx.Response(200, json={}))
        for _ in range(3):
            http.get_json("https://api.example/r")
    # The fake sleep does not advance the clock, so the 2nd and 3rd starts are booked
    # half a second and a second from now.
    assert [round(p, 1) for p in _instant_backoff] == [0.5, 1.0]


def test_registry_knows_every_engine_and_explains_unusable_ones(make_settings: Any,
                                                                monkeypatch: Any) -> None:
    for var in ("BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY", "TAVILY_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    names = set(engine_names())
    assert {"duckduckgo", "searxng", "tavily", "perplexity", "brave", "wikipedia", "arxiv",
            "openalex", "semantic-scholar", "pubmed", "elasticsearch", "local", "auto"} <= names
    rows = {row.name: row for row in describe_engines(make_settings())}
    assert rows["duckduckgo"].usable
    assert not rows["brave"].usable and "BRAVE_API_KEY" in rows["brave"].detail
    offline = {row.name: row for row in describe_engines(make_settings(
        **{"security.offline": True}))}
    assert not offline["duckduckgo"].usable and "offline" in offline["duckduckgo"].detail
    with pytest.raises(ConfigError, match="Unknown search engine 'bing'"):
        get_engine("bing", make_settings())
    assert get_engine("DuckDuckGo", make_settings()).name == "duckduckgo"


def test_auto_runs_engines_in_parallel_and_merges() -> None:
    together = threading.Barrier(2, timeout=5)

    class Slow(MemoryEngine):
        def search(self, query: str, *, max_results: int) -> list[SearchResult]:
            together.wait()  # both engines must be searching at once, or this times out
            return super().search(query, max_results=max_results)

    a = Slow([passage("A1", "alpha topic", "https://a.org/1"),
              passage("Shared", "alpha topic", "https://s.org/x")], name="a")
    b = Slow([passage("Shared copy", "alpha topic", "https://S.org/x/?utm_source=z"),
              passage("B1", "alpha topic", "https://b.org/1")], name="b")
    broken = MemoryEngine([], name="broken", fail_with="HTTP 503")
    results = AutoEngine([a, b, broken]).search("alpha", max_results=10)
    assert [r.title for r in results] == ["A1", "Shared copy", "B1"]
    with pytest.raises(SearchError, match="every engine failed"):
        AutoEngine([broken]).search("alpha", max_results=5)
    assert merge_results([], 3) == []


def test_circuit_opens_after_repeated_failures() -> None:
    broken = MemoryEngine([], name="flaky", fail_with="HTTP 500")
    guarded = GuardedEngine(broken, failures=2)
    for _ in range(2):
        with pytest.raises(SearchError):
            guarded.search("q", max_results=3)
    with pytest.raises(CircuitOpen, match="skipped for the rest of the run"):
        guarded.search("q", max_results=3)
    assert len(broken.queries) == 2


def test_filters_on_domain_and_date() -> None:
    results = [
        SearchResult(title="a", url="https://www.arxiv.org/abs/1", snippet="s", engine="e",
                     published="2023-05-01"),
        SearchResult(title="b", url="https://blog.example.com/p", snippet="s", engine="e",
                     published="2024-07-01"),
        SearchResult(title="c", url="https://spam.example.com/p", snippet="s", engine="e"),
        SearchResult(title="d", url="https://news.org/p", snippet="s", engine="e",
                     published="2024"),
    ]
    from datetime import date
    since = SearchFilters(since=date(2024, 1, 1))
    assert [r.title for r in apply_filters(results, since)] == ["b", "c", "d"]
    domains = SearchFilters(include_domains=("example.com",),
                            exclude_domains=("spam.example.com",))
    assert [r.title for r in apply_filters(results, domains)] == ["b"]


def test_dedupe_and_format_blocks_and_budget() -> None:
    long_text = "word " * 2000
    results = [
        SearchResult(title="Page", url="https://x.org/p?utm_source=a", snippet="short",
                     engine="e"),
        SearchResult(title="Page again", url="https://x.org/p", snippet="other", engine="e",
                     full_text=long_text),
        SearchResult(title="Other", url="https://y.org/", snippet="y", engine="e"),
    ]
    text = dedupe_and_format(results, max_tokens_per_source=50)
    assert text.count("<source") == 2
    assert "Source: Page\nURL: https://x.org/p?utm_source=a" in text
    assert "[truncated]" in text and len(text) < 1200
    words = cut_to_tokens("one two three four five six", 3, count=lambda t: len(t.split()))
    assert words == "one two three [truncated]"


def test_fetch_extracts_html_pdf_and_survives_failures(tmp_path: Any) -> None:
    html = ("<html><head><title>T</title></head><body><nav>menu</nav><article><h1>Heading"
            "</h1><p>" + "The main article text about canonical URLs. " * 20 +
            "</p></article></body></html>")
    pdf = make_pdf(tmp_path / "doc.pdf", ["First page about egress", "Second page"])
    with respx.mock:
        respx.get("https://site.example/a").mock(return_value=httpx.Response(
            200, text=html, headers={"content-type": "text/html; charset=utf-8"}))
        respx.get("https://site.example/b.pdf").mock(return_value=httpx.Response(
            200, content=pdf.read_bytes(), headers={"content-type": "application/pdf"}))
        respx.get("https://site.example/bad.pdf").mock(return_value=httpx.Response(
            200, content=b"%PDF-1.4 garbage", headers={"content-type": "application/pdf"}))
        respx.get("https://site.example/gone").mock(return_value=httpx.Response(404))
        respx.get("https://site.example/slow").mock(side_effect=httpx.ConnectTimeout("t"))
        respx.get("https://site.example/img").mock(return_value=httpx.Response(
            200, content=io.BytesIO(b"\x89PNG").getvalue(), headers={"content-type": "image/png"}))
        text = fetch_full_text("https://site.example/a")
        assert text is not None and "main article text" in text and "menu" not in text
        pdf_text = fetch_full_text("https://site.example/b.pdf")
        assert pdf_text is not None and "First page about egress" in pdf_text
        for url in ("bad.pdf", "gone", "slow", "img"):
            assert fetch_full_text(f"https://site.example/{url}") is None
    assert fetch_full_text("file:///etc/passwd") is None
