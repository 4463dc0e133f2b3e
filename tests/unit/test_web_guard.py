"""The web tier's front door (deepcite.web.front_door), driven over real HTTP on loopback.

Each server is the whole app (``create_app``) under uvicorn on 127.0.0.1. The requests
are written on raw sockets, so a test controls every header byte - ``Host``, ``Origin``,
a ``Content-Length`` for a body it never sends, chunked bodies sent piece by piece -
and can see that a reply came before any body byte was sent.
"""

from __future__ import annotations

import json
import re
import select
import socket
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from deepcite.config import Settings
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.front_door import (
    API_RESEARCH_BODY,
    BODY_CAPS,
    RESEARCH_FORM_BODY,
    SMALL_BODY,
    allowed_hosts_for,
    bad_allowed_host,
    body_cap,
    host_allowed,
    split_host,
)
from tests.recording_executor import RecordingExecutor
from tests.servers import PATIENCE, serving

pytestmark = pytest.mark.enable_socket  # real servers on loopback

TOKEN = "front-door-token-8841"
#: Far more than any cap: sent only as a declared length, never as bytes.
HUGE = 300 * 1024 * 1024


@dataclass
class Served:
    """A running server: its port, its executor, and what its requests look like."""

    port: int
    executor: RecordingExecutor
    requests: list[bytes] = field(default_factory=list)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"


@pytest.fixture
def serve(make_settings: Callable[..., Settings]) -> Iterator[Callable[..., Served]]:
    """Starts ``create_app`` under uvicorn on 127.0.0.1 (a free port) in a thread."""
    servers = ExitStack()

    def start(*, token: str | None = None, bind: str = "127.0.0.1",
              extra: tuple[str, ...] = (), hosts: tuple[str, ...] | None = None) -> Served:
        executor = RecordingExecutor()
        allowed = allowed_hosts_for(bind, extra) if hosts is None else hosts
        state = WebState(settings=make_settings(), executor=executor, token=token,
                         allowed_hosts=allowed)
        port = servers.enter_context(serving(create_app(state)))
        return Served(port, executor)

    with servers:
        yield start


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def _read_reply(sock: socket.socket) -> Reply:
    """Everything the server sends until it closes the connection, parsed."""
    data = b""
    sock.settimeout(PATIENCE)
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
        head, sep, rest = data.partition(b"\r\n\r\n")
        if sep:
            match = re.search(rb"(?im)^content-length:\s*(\d+)", head)
            if match and len(rest) >= int(match.group(1)):
                break
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith("HTTP/1.1 "), data[:200]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return Reply(int(lines[0].split()[1]), headers, body)


def request(served: Served, method: str, path: str, *, host: str | None = None,
            headers: dict[str, str] | None = None, body: bytes | None = None,
            declared: int | None = None) -> Reply:
    """One request on a fresh connection. ``declared`` sends a ``Content-Length`` and
    *no body at all*: a reply then proves the server decided without reading one."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host or served.host}",
             "Connection: close"]
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    elif declared is not None:
        lines.append(f"Content-Length: {declared}")
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    with socket.create_connection(("127.0.0.1", served.port), timeout=PATIENCE) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
        return _read_reply(sock)


def chunked(served: Served, path: str, *, size: int, headers: dict[str, str] | None = None,
            piece: int = 16 * 1024) -> tuple[Reply, int]:
    """POST ``size`` bytes as a chunked body (no Content-Length), a piece at a time,
    stopping as soon as the server has answered; returns the reply and bytes sent."""
    lines = [f"POST {path} HTTP/1.1", f"Host: {served.host}", "Connection: close",
             "Transfer-Encoding: chunked"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    sent = 0
    with socket.create_connection(("127.0.0.1", served.port), timeout=PATIENCE) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        try:
            while sent < size:
                if select.select([sock], [], [], 0)[0]:
                    break  # the server answered: stop sending
                block = b"x" * min(piece, size - sent)
                sock.sendall(b"%x\r\n%s\r\n" % (len(block), block))
                sent += len(block)
            else:
                sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # it closed on the rest of the body
        select.select([sock], [], [], PATIENCE)
        return _read_reply(sock), sent


def _one_line_error(reply: Reply, status: int, code: str) -> str:
    assert reply.status == status, (reply.status, reply.body[:300])
    assert reply.headers["content-type"].startswith("application/json")
    error = reply.json()["error"]
    assert error["code"] == code and "\n" not in error["message"]
    message: str = error["message"]
    return message


def _session_cookie(served: Served) -> str:
    """The session cookie (and the form's CSRF token) a visitor gets with the form."""
    with httpx.Client(base_url=f"http://{served.host}", timeout=PATIENCE) as browser:
        page = browser.get("/")
        assert page.status_code == 200
        return f"deepcite_session={browser.cookies['deepcite_session']}"


# ------------------------------------------------------------------ item 1: hosts


def test_a_rebound_host_cannot_read_the_history(serve: Callable[..., Served]) -> None:
    served = serve()  # as `deepcite serve` starts by default: loopback, no token
    refused = request(served, "GET", "/api/v1/history", host=f"evil.example:{served.port}")
    message = _one_line_error(refused, 421, "misdirected_request")
    assert "evil.example" in message and "--allowed-host" in message
    page = request(served, "GET", "/", host="evil.example")
    assert page.status == 421 and page.headers["content-type"].startswith("text/plain")
    assert "--allowed-host" in page.text and "\n" not in page.text.strip()
    for name in (f"127.0.0.1:{served.port}", "127.0.0.1", f"localhost:{served.port}",
                 "LOCALHOST", f"[::1]:{served.port}"):
        assert request(served, "GET", "/api/v1/history", host=name).status == 200, name


def test_a_rebound_host_cannot_start_a_run(serve: Callable[..., Served]) -> None:
    served = serve()
    body = json.dumps({"question": "q"}).encode()
    reply = request(served, "POST", "/api/v1/research", host="attacker.test", body=body,
                    headers={"Content-Type": "application/json"})
    assert reply.status == 421
    assert served.executor.requests == []
    ok = request(served, "POST", "/api/v1/research", body=body,
                 headers={"Content-Type": "application/json"})
    assert ok.status == 202 and len(served.executor.requests) == 1


def test_allowed_host_names_a_proxy_and_wildcards(serve: Callable[..., Served]) -> None:
    served = serve(extra=("research.example.com", "*.corp.example"))
    for name in ("research.example.com", "Research.Example.Com:443", "a.corp.example",
                 "b.a.corp.example"):
        assert request(served, "GET", "/api/v1/history", host=name).status == 200, name
    for name in ("example.com", "corp.example", "evil-corp.example", "corp.example.evil"):
        assert request(served, "GET", "/api/v1/history", host=name).status == 421, name


def test_all_interfaces_answers_addresses_not_names(serve: Callable[..., Served]) -> None:
    served = serve(token=TOKEN, bind="0.0.0.0")
    auth = {"Authorization": f"Bearer {TOKEN}"}
    for name in ("192.168.7.9:8765", "10.0.0.5", "127.0.0.1", "localhost"):
        assert request(served, "GET", "/api/v1/history", host=name,
                       headers=auth).status == 200, name
    assert request(served, "GET", "/api/v1/history", host="rebind.example",
                   headers=auth).status == 421
    anything = serve(token=TOKEN, bind="0.0.0.0", extra=("*",))
    assert request(anything, "GET", "/api/v1/history", host="rebind.example",
                   headers=auth).status == 200


def test_host_rules() -> None:
    assert split_host("[::1]:8765") == "::1" and split_host("Example.COM.:80") == "example.com"
    assert split_host("evil.example:80:90") is None and split_host("a b") is None
    assert split_host("*.x.example") is None  # a Host header is never a pattern
    loopback = allowed_hosts_for("127.0.0.1")
    assert host_allowed("::1", loopback) and not host_allowed("10.0.0.1", loopback)
    assert host_allowed("0:0:0:0:0:0:0:1", loopback)  # addresses compare by value
    assert allowed_hosts_for("::1")[:1] == ("::1",)
    assert host_allowed("fe80::1", allowed_hosts_for("::"))
    only = allowed_hosts_for("192.168.1.5")
    assert host_allowed("192.168.1.5", only) and not host_allowed("localhost", only)
    assert bad_allowed_host("*.example.com") is None and bad_allowed_host("*") is None
    assert bad_allowed_host("example.com:8443") is None
    for bad in ("exa mple.com", "*example.com", "a.*.example.com", "http://x/"):
        problem = bad_allowed_host(bad)
        assert problem and "--allowed-host" in problem and "\n" not in problem


def test_serve_always_checks_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepcite.cli import app

    states: list[WebState] = []
    monkeypatch.setattr("deepcite.web.app.create_app", lambda state: states.append(state))
    monkeypatch.setattr("deepcite.web.serving.serve_app", lambda *args, **kwargs: None)
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 0, result.output
    allowed = states[-1].allowed_hosts
    assert allowed and not host_allowed("evil.example", allowed)
    assert all(host_allowed(name, allowed) for name in ("127.0.0.1", "localhost", "::1"))
    result = CliRunner().invoke(app, ["serve", "--allowed-host", "proxy.example",
                                      "--allowed-host", "*.lan"])
    assert result.exit_code == 0, result.output
    assert host_allowed("proxy.example", states[-1].allowed_hosts)
    assert host_allowed("box.lan", states[-1].allowed_hosts)
    bad = CliRunner().invoke(app, ["serve", "--allowed-host", "not a host"])
    assert bad.exit_code == 2 and "--allowed-host" in bad.output


# ------------------------------------------------------------------ item 1: origins


def test_cross_site_posts_are_refused(serve: Callable[..., Served]) -> None:
    served = serve()
    body = json.dumps({"question": "q"}).encode()
    json_type = {"Content-Type": "application/json"}
    for origin in ("http://evil.example", "https://evil.example:8765", "null", "http://[::1",
                   f"http://127.0.0.1.evil.example:{served.port}"):
        reply = request(served, "POST", "/api/v1/research", body=body,
                        headers={**json_type, "Origin": origin})
        assert "Origin" in _one_line_error(reply, 403, "cross_site"), origin
    no_origin = request(served, "POST", "/api/v1/research", body=body,
                        headers={**json_type, "Sec-Fetch-Site": "cross-site"})
    assert no_origin.status == 403
    cookie = _session_cookie(served)
    form = request(served, "POST", "/history/run1/delete", body=b"csrf_token=x",
                   headers={"Origin": "http://evil.example", "Cookie": cookie,
                            "Content-Type": "application/x-www-form-urlencoded"})
    assert form.status == 403 and form.headers["content-type"].startswith("text/plain")
    assert served.executor.requests == [] and served.executor.cancelled == []
    for name in ("127.0.0.1", "localhost"):  # the page's own origin, by either name
        origin = f"http://{name}:{served.port}"
        same = request(served, "POST", "/api/v1/research", body=body,
                       host=f"{name}:{served.port}",
                       headers={**json_type, "Origin": origin,
                                "Sec-Fetch-Site": "same-origin"})
        assert same.status == 202, origin
    # another program on this machine, or the same name by another scheme, user or path
    for origin in (f"http://localhost:{served.port + 1}", f"https://127.0.0.1:{served.port}",
                   f"http://127.0.0.1:{served.port}/path", f"ftp://127.0.0.1:{served.port}",
                   f"http://evil.example@127.0.0.1:{served.port}", "http://127.0.0.1",
                   f"chrome-extension://127.0.0.1:{served.port}"):
        other = request(served, "POST", "/api/v1/research", body=body,
                        headers={**json_type, "Origin": origin})
        assert other.status == 403, origin
    assert len(served.executor.requests) == 2
    # an opaque origin passes only when the browser itself says the post is same-origin
    for fetch_site, status in (("same-origin", 202), ("cross-site", 403), ("same-site", 403),
                               (None, 403)):
        sent = {**json_type, "Origin": "null"}
        if fetch_site:
            sent["Sec-Fetch-Site"] = fetch_site
        reply = request(served, "POST", "/api/v1/research", body=body, headers=sent)
        assert reply.status == status, fetch_site
    assert len(served.executor.requests) == 3


# ---------------------------------------------------- item 3: credentials before bodies


@pytest.mark.parametrize("path", ["/api/v1/research", "/api/v1/collections",
                                  "/api/v1/research/run1/cancel", "/api/v1/nowhere"])
def test_api_without_a_token_is_refused_before_its_body(serve: Callable[..., Served],
                                                        path: str) -> None:
    served = serve(token=TOKEN)
    reply = request(served, "POST", path, declared=HUGE,
                    headers={"Content-Type": "application/json"})
    assert "Authorization: Bearer" in _one_line_error(reply, 401, "unauthorized")
    assert reply.headers["www-authenticate"] == "Bearer"
    streamed, sent = chunked(served, path, size=HUGE,
                             headers={"Content-Type": "application/json"})
    assert streamed.status == 401 and sent < HUGE


def test_a_wrong_token_reaches_the_api_check_but_not_its_body(
        serve: Callable[..., Served]) -> None:
    served = serve(token=TOKEN)
    reply = request(served, "POST", "/api/v1/research", declared=HUGE,
                    headers={"Content-Type": "application/json",
                             "Authorization": "Bearer wrong"})
    assert reply.status in (401, 429) and reply.json()["error"]["code"] in (
        "unauthorized", "too_many_attempts")
    assert served.executor.requests == []


def test_a_logged_in_cookie_is_not_a_credential_for_posts(
        serve: Callable[..., Served]) -> None:
    served = serve(token=TOKEN)
    with httpx.Client(base_url=f"http://{served.host}", timeout=PATIENCE,
                      follow_redirects=False) as browser:
        page = browser.get("/login")
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert csrf
        login = browser.post("/login", data={"csrf_token": csrf.group(1),
                                             "password": TOKEN, "next": "/"})
        assert login.status_code == 303
        cookie = f"deepcite_session={browser.cookies['deepcite_session']}"
    history = request(served, "GET", "/api/v1/history", headers={"Cookie": cookie})
    assert history.status == 200
    post = request(served, "POST", "/api/v1/research", declared=HUGE,
                   headers={"Cookie": cookie, "Content-Type": "application/json"})
    assert post.status == 401


@pytest.mark.parametrize("path", ["/", "/collections", "/runs/run1/cancel",
                                  "/history/run1/delete", "/logout"])
@pytest.mark.parametrize("token", [TOKEN, None])
def test_page_posts_without_a_session_are_refused_before_their_body(
        serve: Callable[..., Served], path: str, token: str | None) -> None:
    served = serve(token=token)
    form_type = {"Content-Type": "multipart/form-data; boundary=xyz"}
    forged = {"Cookie": "deepcite_session=eyJzaWQiOiJ4IiwiYXV0aCI6dHJ1ZX0.deadbeef"}
    for cookie in ([{}, forged] if token else [{}]):
        reply = request(served, "POST", path, declared=HUGE, headers={**form_type,
                                                                       **cookie})
        assert reply.status == 403, (cookie, reply.body[:200])
        assert "reload the page" in reply.text and "\n" not in reply.text.strip()
    assert served.executor.requests == [] and served.executor.cancelled == []


def test_a_session_not_logged_in_goes_to_login_before_its_body(
        serve: Callable[..., Served]) -> None:
    served = serve(token=TOKEN)
    with httpx.Client(base_url=f"http://{served.host}", timeout=PATIENCE) as browser:
        browser.get("/login")  # an anonymous session: the login form's
        cookie = f"deepcite_session={browser.cookies['deepcite_session']}"
    reply = request(served, "POST", "/", declared=HUGE,
                    headers={"Cookie": cookie,
                             "Content-Type": "multipart/form-data; boundary=xyz"})
    assert reply.status == 303 and reply.headers["location"] == "/login"


def test_login_gets_only_the_small_cap(serve: Callable[..., Served]) -> None:
    served = serve(token=TOKEN)
    reply = request(served, "POST", "/login", declared=HUGE,
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert reply.status == 413 and "64 KiB" in reply.text
    streamed, sent = chunked(served, "/login", size=HUGE,
                             headers={"Content-Type": "application/x-www-form-urlencoded"})
    # what the socket buffers took before the server closed it, not what it read
    assert streamed.status == 413 and sent < HUGE // 10


# ------------------------------------------------------------------ item 3: body caps


def test_a_declared_length_over_the_cap_is_413_at_once(serve: Callable[..., Served]) -> None:
    served = serve(token=TOKEN)
    auth = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    reply = request(served, "POST", "/api/v1/research", declared=API_RESEARCH_BODY + 1,
                    headers=auth)
    message = _one_line_error(reply, 413, "body_too_large")
    assert "/api/v1/research" in message and "MiB" in message
    small = request(served, "POST", "/api/v1/collections", declared=SMALL_BODY + 1,
                    headers=auth)
    assert "64 KiB" in _one_line_error(small, 413, "body_too_large")
    assert served.executor.requests == []
    open_server = serve()
    cookie = _session_cookie(open_server)
    form = request(open_server, "POST", "/", declared=RESEARCH_FORM_BODY + 1,
                   headers={"Cookie": cookie,
                            "Content-Type": "multipart/form-data; boundary=xyz"})
    assert form.status == 413 and "files" in form.text
    assert form.headers["content-type"].startswith("text/plain")


def test_a_chunked_body_is_cut_off_once_over_the_cap(serve: Callable[..., Served]) -> None:
    served = serve(token=TOKEN)
    auth = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    reply, sent = chunked(served, "/api/v1/collections", size=HUGE, headers=auth)
    assert "64 KiB" in _one_line_error(reply, 413, "body_too_large")
    assert sent < HUGE // 10
    # The server is still up and answers the next request normally.
    assert request(served, "GET", "/api/v1/health").status == 200


def test_bodies_within_their_cap_still_work(serve: Callable[..., Served]) -> None:
    served = serve(token=TOKEN)
    auth = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    content = "数据" * 200_000  # 400k characters, 2.4 MB as json.dumps writes them
    body = json.dumps({"question": "q", "materials": [
        {"url": "https://example.org/a", "content": content}]}).encode()
    assert len(body) > 2 * 1024 * 1024
    reply = request(served, "POST", "/api/v1/research", body=body, headers=auth)
    assert reply.status == 202, reply.body[:300]
    assert served.executor.requests[0].materials[0].content == content


def test_every_cap_fits_what_its_route_accepts() -> None:
    from deepcite.materials.limits import MAX_TOTAL_CHARS
    from deepcite.web.page_forms import MAX_UPLOAD_BYTES, MAX_UPLOAD_TOTAL_BYTES
    from deepcite.web.pages import MAX_FIELD_BYTES

    assert body_cap("POST", "/api/v1/research").limit >= 6 * MAX_TOTAL_CHARS
    assert body_cap("POST", "/api/v1/research/").limit == API_RESEARCH_BODY
    form = body_cap("POST", "/").limit
    assert form >= MAX_UPLOAD_TOTAL_BYTES + MAX_FIELD_BYTES and form >= MAX_UPLOAD_BYTES
    assert body_cap("POST", "/history/abc/delete").limit == SMALL_BODY
    assert body_cap("POST", "/somewhere/new").limit == SMALL_BODY
    assert len({(cap.method, cap.path) for cap in BODY_CAPS}) == len(BODY_CAPS)


def test_in_process_clients_keep_working(make_settings: Callable[..., Settings]) -> None:
    """A WebState without allowed_hosts (TestClient's Host is ``testserver``)."""
    state = WebState(settings=make_settings(), executor=RecordingExecutor())
    client = TestClient(create_app(state))
    assert client.get("/api/v1/history").status_code == 200
    assert client.post("/api/v1/research", json={"question": "q"}).status_code == 202
    assert client.post("/api/v1/research", json={"question": "q"},
                       headers={"Origin": "http://evil.example"}).status_code == 403


def test_odd_host_spellings_are_no_host() -> None:
    from deepcite.web.front_door import split_host

    assert split_host("localhost.") == "localhost"  # the one root dot DNS allows
    for odd in ("localhost..", "localhost:²", "localhost:８０", "[::1]:x", "a..b"):
        assert split_host(odd) is None, odd


@pytest.mark.parametrize(("method", "path"), [("GET", "/api/v1/health"), ("GET", "/"),
                                              ("POST", "/api/v1/health")])
def test_a_chunked_body_a_route_never_reads_is_not_drained(
        serve: Callable[..., Served], method: str, path: str) -> None:
    served = serve(token=TOKEN)
    head = (f"{method} {path} HTTP/1.1\r\nHost: {served.host}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n").encode("latin-1")
    block = b"x" * (64 * 1024)
    sent = 0
    with socket.create_connection(("127.0.0.1", served.port), timeout=PATIENCE) as sock:
        sock.sendall(head)
        try:  # keep sending whatever the server says, as a careless client would
            while sent < HUGE:
                sock.sendall(b"%x\r\n%s\r\n" % (len(block), block))
                sent += len(block)
        except (BrokenPipeError, ConnectionResetError):
            pass
    assert sent < HUGE, "the server read the whole unread body"
