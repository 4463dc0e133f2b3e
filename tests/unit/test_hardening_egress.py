"""Hardening of egress and of what search engines hand back, tried as a hostile user.

The loopback tests start real HTTP servers: a SearXNG-shaped one returning hostile
results, and a logging server on another port that must receive nothing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
import respx
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app
from deepcite.errors import ConfigError, EgressDenied, InputError, ModelError, SearchError
from deepcite.search.circuit_breaker import GuardedEngine
from deepcite.search.engines.searxng import SearxngEngine
from deepcite.search.fetch import fetch_page
from deepcite.security import EgressPolicy, check_url
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

runner = CliRunner()
SECRET = "internal-secret-7d1f"


class _Server:
    """A loopback HTTP server recording every path it is asked for."""

    def __init__(self, answer: Any) -> None:
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append(self.path)
                status, content_type, body = answer(self.path)
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _secret_page(path: str) -> tuple[int, str, str]:
    return 200, "text/html", f"<html><body><p>{SECRET} keys and tokens</p></body></html>"


@pytest.fixture
def internal() -> Iterator[_Server]:
    server = _Server(_secret_page)
    yield server
    server.close()


@pytest.fixture
def hostile_searxng(internal: _Server) -> Iterator[_Server]:
    """SearXNG-shaped: every search returns results aimed at the internal server."""
    hits = [
        {"title": "Internal loopback", "url": f"http://127.0.0.1:{internal.port}/internal",
         "content": "cache ttl internal page"},
        {"title": "Internal localhost", "url": f"http://localhost:{internal.port}/x",
         "content": "cache ttl localhost page"},
        {"title": "Broken IPv6", "url": "http://[::1/x", "content": "cache ttl broken"},
        {"title": "Huge port", "url": "http://example.org:99999/a", "content": "cache ttl"},
        {"title": "Script", "url": "javascript:alert(1)", "content": "cache ttl script"},
        {"title": "Data", "url": "data:text/html,<b>x</b>", "content": "cache ttl data"},
        {"title": "Good page", "url": "https://docs.example.org/cache",
         "content": "The cache ttl is 300 seconds."},
    ]

    def answer(path: str) -> tuple[int, str, str]:
        if path.startswith("/search"):
            return 200, "application/json", json.dumps({"results": hits})
        return 200, "text/html", f"<html><body><p>{SECRET} from searxng itself</p></body></html>"

    server = _Server(answer)
    yield server
    server.close()


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    model = ScriptedChatModel(script={"questions": ["cache ttl"], "followups": ["ttl"],
                                      "synthesis": ["The cache ttl is 300 seconds [1]."]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    return model


# ---------------------------------------------------------------- 1. --offline tightens


def test_offline_metadata_searxng_is_refused_before_any_connection(
        monkeypatch: pytest.MonkeyPatch, fake_model: ScriptedChatModel, tmp_path: Any) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SEARXNG_URL", "http://169.254.169.254/")
    with respx.mock(assert_all_called=False) as mock:
        metadata = mock.route(host="169.254.169.254").mock(return_value=httpx.Response(200))
        result = runner.invoke(app, ["ask", "cache ttl", "-e", "searxng", "--offline",
                                     "--provider", "local", "-q"])
    assert result.exit_code != 0
    assert "never contacted" in result.output and "link-local" in result.output
    assert not metadata.called and "Traceback" not in result.output


@pytest.mark.enable_socket
@pytest.mark.parametrize("offline", [True, False])
def test_loopback_searxng_results_on_other_ports_are_never_fetched(
        hostile_searxng: _Server, internal: _Server, fake_model: ScriptedChatModel,
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any, offline: bool) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SEARXNG_URL", f"http://127.0.0.1:{hostile_searxng.port}")
    args = ["ask", "cache ttl", "-e", "searxng", "--fetch", "--json", "-q",
            "--provider", "local", "--iterations", "1"]
    result = runner.invoke(app, args + (["--offline"] if offline else []))
    assert result.exit_code == 0, result.output
    assert hostile_searxng.requests and all(p.startswith("/search")
                                            for p in hostile_searxng.requests)
    assert internal.requests == []
    data = json.loads(result.stdout)
    assert SECRET not in result.stdout
    messages = [w["message"] for w in data["warnings"]]
    assert any("Refused" in m and str(internal.port) in m for m in messages)


@pytest.mark.enable_socket
def test_allow_list_entry_with_a_port_opens_that_port_only(internal: _Server,
                                                           make_settings: Any) -> None:
    other = _Server(_secret_page)
    try:
        settings = make_settings(**{"security.allow_private_hosts": [
            f"127.0.0.1:{internal.port}"]})
        allowed = fetch_page(f"http://127.0.0.1:{internal.port}/ok", settings)
        refused = fetch_page(f"http://127.0.0.1:{other.port}/no", settings)
    finally:
        other.close()
    assert allowed.text is not None and SECRET in allowed.text
    assert refused.text is None and refused.error is not None and "loopback" in refused.error
    assert other.requests == []


def test_redirect_from_a_public_page_to_another_port_is_refused(make_settings: Any) -> None:
    settings = make_settings(**{"security.allow_private_hosts": ["127.0.0.1:8888"]})
    with respx.mock:
        respx.get("https://public.example/start").mock(return_value=httpx.Response(
            302, headers={"Location": "http://127.0.0.1:9999/admin"}))
        admin = respx.get("http://127.0.0.1:9999/admin").mock(
            return_value=httpx.Response(200, text="admin"))
        outcome = fetch_page("https://public.example/start", settings)
    assert outcome.text is None and not admin.called


def test_service_origin_is_allowed_exactly(make_settings: Any) -> None:
    settings = make_settings()
    policy = EgressPolicy.from_settings(settings, ["http://127.0.0.1:8888"])
    assert policy.check("http://127.0.0.1:8888/search?q=x")
    for url in ("http://127.0.0.1:8889/", "https://127.0.0.1:8888/", "http://localhost:8888/"):
        with pytest.raises(EgressDenied):
            policy.check(url)
    with pytest.raises(EgressDenied):  # a plain policy treats the same URL as a fetch
        EgressPolicy.from_settings(settings).check("http://127.0.0.1:8888/search")


def test_offline_refuses_a_public_service_and_cloud_urls(make_settings: Any) -> None:
    offline = make_settings(**{"security.offline": True})
    policy = EgressPolicy.from_settings(offline, ["https://searx.example.org"])
    with pytest.raises(EgressDenied, match="offline"):
        policy.check("https://searx.example.org/search")
    lan = EgressPolicy.from_settings(offline, ["http://searx.lan:8080"])
    assert lan.check("http://searx.lan:8080/search")


@pytest.mark.parametrize("allow", [["169.254.0.0/16"], ["169.254.169.254"],
                                   ["metadata.google.internal"]])
def test_link_local_and_metadata_are_refused_whatever_is_allowed(make_settings: Any,
                                                                 allow: list[str]) -> None:
    settings = make_settings(**{"security.allow_private_hosts": allow,
                                "security.allow_private_networks": True})
    for url in ("http://169.254.169.254/latest/meta-data",
                "http://metadata.google.internal/computeMetadata/v1/",
                "http://[fe80::1]/"):
        with pytest.raises(EgressDenied):
            check_url(url, settings)
        with pytest.raises(EgressDenied):
            EgressPolicy.from_settings(settings, [url]).check(url)


def test_configured_model_server_on_a_metadata_address_is_refused(make_settings: Any) -> None:
    settings = make_settings(**{"llm.provider": "openai", "llm.model": "m",
                                "llm.base_url": "http://169.254.169.254/v1"})
    with pytest.raises(ModelError, match="never contacted"):
        deepcite.runs.build.check_model_egress(settings)


def test_searxng_on_a_metadata_address_fails_to_build(make_settings: Any) -> None:
    settings = make_settings(**{"engines.searxng_url": "http://169.254.169.254/"})
    with pytest.raises(ConfigError, match="never contacted"):
        SearxngEngine(settings)


# ---------------------------------------------------------------- 3. DNS and spellings


def test_offline_refuses_without_any_dns_lookup(make_settings: Any,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    monkeypatch.setattr("deepcite.security.egress.resolve_host",
                        lambda host: asked.append(host) or ["93.184.216.34"])
    offline = make_settings(**{"security.offline": True})
    for url in ("https://en.wikipedia.org/", "http://evil.example/x", "http://10.0.0.1/"):
        with pytest.raises(EgressDenied, match="offline"):
            check_url(url, offline)
    assert asked == []


@pytest.mark.parametrize("url", [
    "http://[::127.0.0.1]:8080/",          # IPv4-compatible IPv6
    "http://[::7f00:1]/",
    "http://[2002:7f00:1::]/",             # 6to4 around 127.0.0.1
    "http://[64:ff9b::7f00:1]/",           # NAT64 around 127.0.0.1
    "http://[::ffff:10.0.0.1]/",
])
def test_ipv4_inside_ipv6_is_judged_as_ipv4(url: str) -> None:
    with pytest.raises(EgressDenied, match=r"loopback|private"):
        check_url(url)


@pytest.mark.parametrize("url", ["http://[::ffff:169.254.169.254]/",
                                 "http://[::169.254.169.254]/"])
def test_metadata_inside_ipv6_is_never_contacted(url: str) -> None:
    with pytest.raises(EgressDenied, match="never contacted"):
        check_url(url)


def test_unresolvable_host_is_refused(_fake_dns: dict[str, list[str]]) -> None:
    _fake_dns["nxdomain.test"] = []
    with pytest.raises(EgressDenied, match="does not resolve"):
        check_url("http://nxdomain.test/")


@pytest.mark.enable_socket
def test_connection_uses_the_address_the_check_approved(internal: _Server,
                                                        _fake_dns: dict[str, list[str]],
                                                        make_settings: Any) -> None:
    """``pinned.test`` exists only in the policy's DNS; the real resolver has never heard
    of it, so the page arrives only if the connection used the approved address."""
    _fake_dns["pinned.test"] = ["127.0.0.1"]
    settings = make_settings(**{"security.allow_private_hosts": [f"127.0.0.1:{internal.port}"]})
    outcome = fetch_page(f"http://pinned.test:{internal.port}/page", settings)
    assert outcome.text is not None and SECRET in outcome.text
    assert internal.requests == ["/page"]


def test_bad_allow_list_entry_is_a_one_line_config_error(make_settings: Any) -> None:
    with pytest.raises(ConfigError, match="allow_private_hosts"):
        check_url("https://example.org/", make_settings(
            **{"security.allow_private_hosts": ["127.0.0.1:notaport"]}))


# ---------------------------------------------------------------- 4, 5. results


def test_malformed_and_non_web_result_urls_are_dropped_not_fatal(make_settings: Any) -> None:
    settings = make_settings(**{"engines.searxng_url": "http://searx.lan:8080",
                                "security.allow_private_hosts": []})
    urls = ["http://[::1/x", "http://example.org:99999/a", "javascript:alert(1)",
            "data:text/html,<b>x</b>", "vbscript:msgbox", "https://ok.example.org/a"]
    with respx.mock:
        respx.get("http://searx.lan:8080/search").mock(return_value=httpx.Response(
            200, json={"results": [{"title": f"t{i}", "url": url, "content": "snippet"}
                                   for i, url in enumerate(urls)]}))
        results = GuardedEngine(SearxngEngine(settings)).search("q", max_results=10)
    assert [r.url for r in results] == ["https://ok.example.org/a"]


def test_engine_results_are_checked_even_without_make_result() -> None:
    engine = MemoryEngine([passage("bad", "text one", url="javascript:alert(1)"),
                           passage("good", "text two", url="https://ok.example.org/")])
    results = GuardedEngine(engine).search("text", max_results=5)
    assert [r.title for r in results] == ["good"]


def test_an_engine_bug_is_one_failure_not_the_end_of_the_run() -> None:
    class Broken:
        name = "broken"

        def search(self, query: str, *, max_results: int) -> list[Any]:
            raise ValueError("Invalid IPv6 URL")

    guarded = GuardedEngine(Broken(), failures=2)  # type: ignore[arg-type]
    with pytest.raises(SearchError, match="broken: unexpected ValueError"):
        guarded.search("q", max_results=3)


@pytest.mark.parametrize("url", [None, 42, b"http://example.org/"])
def test_check_url_refuses_what_is_not_text(url: Any) -> None:
    with pytest.raises(InputError, match="takes the URL as text"):
        check_url(url)
