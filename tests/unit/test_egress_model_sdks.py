"""The Ollama and Anthropic SDKs' own HTTP obeys the egress policy at connect time.

Like ``test_egress_connect.py``: a real HTTP server on loopback stands in for the model
server and counts what reaches it; names resolve only in the test's DNS table
(``tests/conftest.py``), so a connection that reaches the stand-in went to the address
the policy approved, through the pinned client - the SDK's own client would ask the
real DNS, which knows no ``*.test`` name.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpcore
import httpx
import pytest
from langchain_core.messages import HumanMessage

from deepcite.errors import EgressDenied
from deepcite.llm.providers import get_chat_model
from tests.conftest import PUBLIC_IP

pytestmark = pytest.mark.enable_socket  # the stand-in server is on loopback

OLLAMA_REPLY = {"model": "m", "created_at": "2026-01-01T00:00:00Z", "done": True,
                "done_reason": "stop", "message": {"role": "assistant", "content": "pinned"}}
ANTHROPIC_REPLY = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                   "content": [{"type": "text", "text": "pinned"}], "stop_reason": "end_turn",
                   "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


class _Server:
    """Answers every POST with ``reply``, or a redirect to ``redirect_to`` when set."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.paths: list[str] = []
        self.redirect_to: str | None = None
        served = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                served.paths.append(self.path)
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if served.redirect_to is not None:
                    self.send_response(307)
                    self.send_header("Location", served.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port: int = self.httpd.server_address[1]


def _serve(reply: dict[str, Any]) -> Iterator[_Server]:
    stand_in = _Server(reply)
    threading.Thread(target=stand_in.httpd.serve_forever, daemon=True).start()
    try:
        yield stand_in
    finally:
        stand_in.httpd.shutdown()
        stand_in.httpd.server_close()


@pytest.fixture
def ollama(_fake_dns: dict[str, list[str]]) -> Iterator[_Server]:
    """An Ollama stand-in at ``ollama.test``, which resolves to loopback."""
    _fake_dns["ollama.test"] = ["127.0.0.1"]
    yield from _serve(OLLAMA_REPLY)


@pytest.fixture
def claude(monkeypatch: pytest.MonkeyPatch, _fake_dns: dict[str, list[str]]
           ) -> Iterator[_Server]:
    """An Anthropic Messages API stand-in at ``claude.test`` (``ANTHROPIC_BASE_URL``)."""
    _fake_dns["claude.test"] = ["127.0.0.1"]
    for name in ("ANTHROPIC_API_URL", "LANGSMITH_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    for stand_in in _serve(ANTHROPIC_REPLY):
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://claude.test:{stand_in.port}")
        yield stand_in


def _cores() -> list[Any]:
    """The httpcore packages present: the SDKs use ``httpcore`` or its fork."""
    cores = [httpcore]
    try:
        import httpcore2
    except ImportError:
        return cores
    return [*cores, httpcore2]


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every TCP connect httpx (or httpx2) makes, recorded, then made as usual."""
    made: list[tuple[str, int]] = []
    for core in _cores():
        real = core.SyncBackend.connect_tcp

        def connect_tcp(self: Any, host: str, port: int, *args: Any,
                        _real: Callable[..., Any] = real, **kwargs: Any) -> Any:
            made.append((host, port))
            return _real(self, host, port, *args, **kwargs)

        monkeypatch.setattr(core.SyncBackend, "connect_tcp", connect_tcp)
    return made


def _refusal(exc: BaseException | None) -> str:
    """The egress refusal the SDK wrapped (it re-raises as its connection error)."""
    while exc is not None and not isinstance(exc, EgressDenied):
        exc = exc.__cause__ or exc.__context__
    return str(exc) if exc is not None else "no EgressDenied in the chain"


def _ollama_settings(make_settings: Any, port: int, **more: Any) -> Any:
    return make_settings(**{"llm.provider": "ollama", "llm.model": "m",
                            "llm.context_size": 4096,
                            "llm.ollama_url": f"http://ollama.test:{port}", **more})


def _anthropic_settings(make_settings: Any, **more: Any) -> Any:
    return make_settings(**{"llm.provider": "anthropic", "llm.model": "m",
                            "llm.api_key": "sk-test", **more})


def test_an_ollama_server_is_reached_through_the_pinned_client(
        ollama: _Server, make_settings: Any, connects: list[tuple[str, int]]) -> None:
    model = get_chat_model(_ollama_settings(make_settings, ollama.port))
    assert model.invoke([HumanMessage(content="q?")]).content == "pinned"
    assert ollama.paths == ["/api/chat"] and connects == [("127.0.0.1", ollama.port)]


def test_an_ollama_redirect_to_a_loopback_host_is_not_followed(
        ollama: _Server, make_settings: Any, connects: list[tuple[str, int]],
        _fake_dns: dict[str, list[str]]) -> None:
    """The configured server is allowed; where it redirects is vetted like any host, and
    a loopback address nobody allowed gets no connection."""
    _fake_dns["inside.test"] = ["127.0.0.1"]
    ollama.redirect_to = f"http://inside.test:{ollama.port}/api/chat"
    model = get_chat_model(_ollama_settings(make_settings, ollama.port))
    with pytest.raises(Exception, match=r"Refused .*inside\.test is a loopback address"):
        model.invoke([HumanMessage(content="q?")])
    assert ollama.paths == ["/api/chat"] and connects == [("127.0.0.1", ollama.port)]


def test_an_ollama_dns_answer_that_changes_after_the_check_is_not_followed(
        ollama: _Server, make_settings: Any, connects: list[tuple[str, int]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Public for the check, loopback afterwards: the connection goes to the approved
    address only, and the loopback server never hears of it."""
    model = get_chat_model(_ollama_settings(make_settings, ollama.port))
    answers = iter([[PUBLIC_IP]])
    monkeypatch.setattr("deepcite.security.egress.resolve_host",
                        lambda host: next(answers, ["127.0.0.1"]))

    def refuse(self: httpcore.SyncBackend, host: str, port: int,
               *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        connects.append((host, port))  # no real internet in tests
        raise httpcore.ConnectError("unreachable in tests")

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", refuse)
    with pytest.raises((httpx.ConnectError, ConnectionError)):
        model.invoke([HumanMessage(content="q?")])
    assert connects == [(PUBLIC_IP, ollama.port)] and ollama.paths == []


def test_an_ollama_async_call_connects_nowhere(
        ollama: _Server, make_settings: Any, connects: list[tuple[str, int]]) -> None:
    """deepcite calls models synchronously; the SDK's async client refuses instead of
    connecting past the policy."""
    model = get_chat_model(_ollama_settings(make_settings, ollama.port))
    with pytest.raises(Exception, match="not made through the egress policy"):
        asyncio.run(model.ainvoke([HumanMessage(content="q?")]))
    assert ollama.paths == [] and connects == []


def test_an_anthropic_endpoint_is_reached_through_the_pinned_client(
        claude: _Server, make_settings: Any, connects: list[tuple[str, int]]) -> None:
    model = get_chat_model(_anthropic_settings(make_settings))
    assert model.invoke([HumanMessage(content="q?")]).content == "pinned"
    assert claude.paths == ["/v1/messages"] and connects == [("127.0.0.1", claude.port)]


def test_anthropics_own_endpoint_resolving_to_loopback_gets_no_connection(
        claude: _Server, make_settings: Any, connects: list[tuple[str, int]],
        monkeypatch: pytest.MonkeyPatch, _fake_dns: dict[str, list[str]]) -> None:
    """Anthropic's endpoint is an internet host, not a configured service: a DNS
    answer pointing it at loopback is refused before any connection."""
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    _fake_dns["api.anthropic.com"] = ["127.0.0.1"]
    model = get_chat_model(_anthropic_settings(make_settings))
    with pytest.raises(Exception, match="Connection error") as raised:
        model.invoke([HumanMessage(content="q?")])
    assert "api.anthropic.com is a loopback address" in _refusal(raised.value)
    assert connects == [] and claude.paths == []


def test_an_anthropic_redirect_to_a_loopback_host_is_not_followed(
        claude: _Server, make_settings: Any, connects: list[tuple[str, int]],
        _fake_dns: dict[str, list[str]]) -> None:
    _fake_dns["inside.test"] = ["127.0.0.1"]
    claude.redirect_to = f"http://inside.test:{claude.port}/v1/messages"
    model = get_chat_model(_anthropic_settings(make_settings))
    with pytest.raises(Exception, match="Connection error") as raised:
        model.invoke([HumanMessage(content="q?")])
    assert "inside.test is a loopback address" in _refusal(raised.value)
    assert set(claude.paths) == {"/v1/messages"}
    assert set(connects) == {("127.0.0.1", claude.port)}


def test_a_langchain_ollama_without_separate_client_kwargs_is_refused_with_the_fix(
        make_settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Releases before ``async_client_kwargs`` could not be given the pinned transport
    for the sync client alone; the build says to upgrade instead of connecting unpinned."""
    import types

    from pydantic import BaseModel

    from deepcite.errors import ModelError

    class ChatOllama(BaseModel):
        model: str = ""
        client_kwargs: dict[str, Any] = {}

    old = types.ModuleType("langchain_ollama")
    old.ChatOllama = ChatOllama  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain_ollama", old)
    with pytest.raises(ModelError, match=r"too old .* `pip install -U 'deepcite\[ollama\]'`"):
        get_chat_model(_ollama_settings(make_settings, 11434))


def test_an_anthropic_dns_answer_that_changes_after_the_check_is_not_followed(
        claude: _Server, make_settings: Any, connects: list[tuple[str, int]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """api.anthropic.com: public for the first check, loopback afterwards. The one
    connection goes to the approved public address (the SDK's own client would have
    dialled the name); the SDK's retries are vetted again and refused."""
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    model = get_chat_model(_anthropic_settings(make_settings))
    answers = iter([[PUBLIC_IP]])
    monkeypatch.setattr("deepcite.security.egress.resolve_host",
                        lambda host: next(answers, ["127.0.0.1"]))
    for core in _cores():
        def refuse(self: Any, host: str, port: int, *args: Any,
                   _error: type[Exception] = core.ConnectError, **kwargs: Any) -> Any:
            connects.append((host, port))  # no real internet in tests
            raise _error("unreachable in tests")

        monkeypatch.setattr(core.SyncBackend, "connect_tcp", refuse)
    with pytest.raises(Exception, match="Connection error") as raised:
        model.invoke([HumanMessage(content="q?")])
    assert "api.anthropic.com is a loopback address" in _refusal(raised.value)
    assert connects == [(PUBLIC_IP, 443)] and claude.paths == []


def test_an_anthropic_async_call_connects_nowhere(
        claude: _Server, make_settings: Any, connects: list[tuple[str, int]]) -> None:
    model = get_chat_model(_anthropic_settings(make_settings, **{"llm.max_tokens": 16}))
    with pytest.raises(Exception, match="Connection error") as raised:
        asyncio.run(model.ainvoke([HumanMessage(content="q?")]))
    assert "not made through the egress policy" in _refusal(raised.value)
    assert claude.paths == [] and connects == []
