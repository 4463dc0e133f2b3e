"""Connections made by code that has its own HTTP - the DuckDuckGo engine, a model
SDK - obey the egress policy at connect time, like every engine's.

A real HTTP server on loopback stands in for the service and counts what reaches it;
names resolve from the test's DNS table (``tests/conftest.py``). What is checked is the
connection itself: where the engine's socket goes, not only what a check said before.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpcore
import pytest

from deepcite.errors import SearchError
from deepcite.search.engines import duckduckgo
from deepcite.search.engines.duckduckgo import DuckDuckGoEngine
from tests.conftest import PUBLIC_IP

pytestmark = pytest.mark.enable_socket  # the stand-in server is on loopback

PAGE = ('<html><body><div class="result__body"><h2><a class="result__a" '
        'href="https://www.rust-lang.org/">Rust</a></h2><a class="result__snippet" '
        'href="https://www.rust-lang.org/">A language</a></div></body></html>')


class _Server:
    def __init__(self) -> None:
        self.requests: list[str] = []
        served = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                served.requests.append(self.rfile.read(length).decode())
                body = PAGE.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port: int = self.httpd.server_address[1]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, _fake_dns: dict[str, list[str]]
           ) -> Iterator[_Server]:
    """DuckDuckGo's endpoint as ``http://ddg.test:PORT/html/``, served on loopback."""
    stand_in = _Server()
    thread = threading.Thread(target=stand_in.httpd.serve_forever, daemon=True)
    thread.start()
    _fake_dns["ddg.test"] = ["127.0.0.1"]
    monkeypatch.setattr(duckduckgo, "SEARCH_URL", f"http://ddg.test:{stand_in.port}/html/")
    try:
        yield stand_in
    finally:
        stand_in.httpd.shutdown()
        stand_in.httpd.server_close()


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every TCP connect httpx makes, recorded, then made as usual."""
    made: list[tuple[str, int]] = []
    real = httpcore.SyncBackend.connect_tcp

    def connect_tcp(self: httpcore.SyncBackend, host: str, port: int,
                    *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        made.append((host, port))
        return real(self, host, port, *args, **kwargs)

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", connect_tcp)
    return made


def test_a_search_whose_host_resolves_to_loopback_makes_no_connection(
        server: _Server, make_settings: Any, connects: list[tuple[str, int]]) -> None:
    engine = DuckDuckGoEngine(make_settings())
    with pytest.raises(SearchError, match=r"^duckduckgo: Refused .*loopback"):
        engine.search("rust", max_results=5)
    assert server.requests == [] and connects == []


def test_the_real_endpoint_resolving_to_loopback_is_refused_too(
        make_settings: Any, connects: list[tuple[str, int]],
        _fake_dns: dict[str, list[str]]) -> None:
    _fake_dns["html.duckduckgo.com"] = ["127.0.0.1"]
    with pytest.raises(SearchError, match=r"^duckduckgo: Refused .*html\.duckduckgo\.com "
                                          r"is a loopback address"):
        DuckDuckGoEngine(make_settings()).search("rust", max_results=5)
    assert connects == []


def test_the_search_connects_where_the_policy_approved_through_the_pinned_client(
        server: _Server, make_settings: Any, connects: list[tuple[str, int]]) -> None:
    """Allowed by name, the search reaches the stand-in: the engine's connection is the
    pinned client's, to the address the policy approved (``ddgs`` went its own way)."""
    engine = DuckDuckGoEngine(make_settings(**{
        "security.allow_private_hosts": [f"ddg.test:{server.port}"]}))
    results = engine.search("rust", max_results=1)
    assert [(r.title, r.url) for r in results] == [("Rust", "https://www.rust-lang.org/")]
    assert len(server.requests) == 1 and "q=rust" in server.requests[0]
    assert connects == [("127.0.0.1", server.port)]


def test_a_dns_answer_that_changes_after_the_check_is_not_followed(
        server: _Server, make_settings: Any, connects: list[tuple[str, int]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Rebinding: public for the check, loopback afterwards. The connection goes to the
    approved (public) address only; the loopback server never hears of it."""
    answers = iter([[PUBLIC_IP]])
    monkeypatch.setattr("deepcite.security.egress.resolve_host",
                        lambda host: next(answers, ["127.0.0.1"]))

    def refuse(self: httpcore.SyncBackend, host: str, port: int,
               *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        connects.append((host, port))  # no real internet in tests
        raise httpcore.ConnectError("unreachable in tests")

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", refuse)
    engine = DuckDuckGoEngine(make_settings(**{"engines.max_retries": 0}))
    with pytest.raises(SearchError, match="connection failed"):
        engine.search("rust", max_results=1)
    assert connects == [(PUBLIC_IP, server.port)] and server.requests == []


def test_an_openai_compatible_model_server_is_reached_through_the_pinned_client(
        make_settings: Any, connects: list[tuple[str, int]],
        _fake_dns: dict[str, list[str]]) -> None:
    """The model SDK's own HTTP goes through the pinned client too: ``llm.test`` resolves
    only in the policy's DNS (the test table), and the connection goes where it said."""
    from langchain_core.messages import HumanMessage

    from deepcite.llm.providers import get_chat_model

    served: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            served.append(self.path)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = (b'{"id": "c1", "object": "chat.completion", "created": 1, "model": "m",'
                    b' "choices": [{"index": 0, "finish_reason": "stop", "message": '
                    b'{"role": "assistant", "content": "pinned"}}]}')
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        _fake_dns["llm.test"] = ["127.0.0.1"]
        port = httpd.server_address[1]
        model = get_chat_model(make_settings(**{
            "llm.provider": "openai", "llm.model": "m", "llm.context_size": 4096,
            "llm.base_url": f"http://llm.test:{port}/v1"}))
        assert model.invoke([HumanMessage(content="q?")]).content == "pinned"
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert served == ["/v1/chat/completions"] and connects == [("127.0.0.1", port)]
