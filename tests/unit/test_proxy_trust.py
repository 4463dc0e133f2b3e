"""Whom a request stands for, through real servers on loopback configured exactly as
``deepcite serve`` (:func:`deepcite.web.serving.uvicorn_config`) and ``deepcite mcp
--transport http`` (:func:`deepcite.mcp_server.http_config`) configure uvicorn.

Every request here comes from 127.0.0.1. Where loopback is not a named proxy, an
``X-Forwarded-For`` header must change nothing: not the trusted-header login (the
attack of issue 43: loopback + ``X-Forwarded-For: <the proxy>`` + the user header was
an admin), not the throttles (a new address per request), not the audit log. Where
loopback *is* the named proxy, its ``X-Forwarded-For`` says whom each request stands
for. uvicorn's own ``FORWARDED_ALLOW_IPS`` must not turn trust back on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from deepcite.config import Settings, load_settings
from deepcite.mcp_server import build_server, http_app, http_config
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.front_door import allowed_hosts_for
from deepcite.web.login_throttle import CLIENT_FAILURES, LoginThrottle
from deepcite.web.serving import uvicorn_config
from tests.recording_executor import RecordingExecutor
from tests.servers import PATIENCE, free_port, running
from tests.unit.test_store import quick_result

pytestmark = pytest.mark.enable_socket

PASSWORD = "correct horse battery"
HEADER = "X-Forwarded-User"
ELSEWHERE = "10.9.8.7"  # the named proxy, when it is not loopback
MCP_FAILURES = 3


class StoreExecutor(RecordingExecutor):
    """Runs nothing; its history is the test's store."""

    def __init__(self, store: HistoryStore) -> None:
        super().__init__("completed")
        self._store = store


def _settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **web: Any) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    return load_settings({f"web.{key}": value for key, value in web.items()},
                         config_files=[])


@contextmanager
def _serve(settings: Settings, store: HistoryStore) -> Iterator[httpx.Client]:
    """The app as ``deepcite serve --host 127.0.0.1`` serves it; a client of it (one
    cookie jar: one browser)."""
    port = free_port()
    state = WebState(settings=settings, executor=StoreExecutor(store),
                     allowed_hosts=allowed_hosts_for("127.0.0.1", []))
    with running(uvicorn_config(create_app(state), host="127.0.0.1", port=port)) as url, \
            httpx.Client(base_url=url, timeout=PATIENCE) as client:
        yield client


@pytest.fixture
def users(store: HistoryStore) -> dict[str, str]:
    """root (an admin), alice and bob, each with a stored run: name -> its question."""
    store.add_user("root", PASSWORD, admin=True)
    store.add_user("alice", PASSWORD)
    store.add_user("bob", PASSWORD)
    questions = {}
    for name in ("root", "alice", "bob"):
        question = f"What did {name} ask?"
        run_id = store.begin(question, mode="quick", settings=load_settings(config_files=[]),
                             owner_id=store.user(name).id)
        store.finish(run_id, quick_result(question))
        questions[name] = question
    return questions


def _csrf(client: httpx.Client, path: str, **headers: str) -> str:
    page = client.get(path, headers=headers)
    assert page.status_code == 200, page.text
    match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert match, page.text
    return match.group(1)


def _log_in(client: httpx.Client, name: str, password: str, **headers: str) -> httpx.Response:
    return client.post("/login", headers=headers, data={
        "csrf_token": _csrf(client, "/login", **headers), "name": name,
        "password": password, "next": "/history"})


# ------------------------------------------------------------------ the attack


@pytest.mark.parametrize("allow_ips", [None, "*", "127.0.0.1"])
def test_loopback_naming_the_proxy_in_x_forwarded_for_is_no_proxy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: HistoryStore,
        users: dict[str, str], allow_ips: str | None) -> None:
    if allow_ips is not None:  # uvicorn's own switch must not bring its trust back
        monkeypatch.setenv("FORWARDED_ALLOW_IPS", allow_ips)
    settings = _settings(tmp_path, monkeypatch, trusted_user_header=HEADER,
                         trusted_proxies=[ELSEWHERE], trusted_header_creates_users=True)
    attack = {HEADER: "root", "X-Forwarded-For": ELSEWHERE}
    with _serve(settings, store) as client:
        for path in ("/api/v1/history", "/history", "/admin"):
            reply = client.get(path, headers=attack)
            assert reply.status_code == 403, (path, reply.text)
            assert "trusted proxies" in reply.text
            assert not any(q in reply.text for q in users.values())
        made = client.post("/api/v1/research", headers={**attack, HEADER: "mallory"},
                           json={"question": "Who am I?"})
        assert made.status_code == 403
        for forwarded in (f"{ELSEWHERE}, {ELSEWHERE}", f"1.2.3.4, {ELSEWHERE}"):
            assert client.get("/api/v1/history", headers={
                **attack, "X-Forwarded-For": forwarded}).status_code == 403
    assert [user.name for user in store.users()] == ["alice", "bob", "root"]


def test_a_named_proxy_on_loopback_logs_its_user_in_and_forwards_the_address(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: HistoryStore,
        users: dict[str, str]) -> None:
    settings = _settings(tmp_path, monkeypatch, trusted_user_header=HEADER,
                         trusted_proxies=["127.0.0.1"], trusted_header_creates_users=True)
    with _serve(settings, store) as client:
        listed = client.get("/api/v1/history", headers={HEADER: "alice"})
        assert listed.status_code == 200
        assert [run["question"] for run in listed.json()] == [users["alice"]]
        made = client.get("/history", headers={
            HEADER: "carol", "X-Forwarded-For": "198.51.100.1, 203.0.113.50"})
        assert made.status_code == 200
    [created] = store.audit_log(action="user.create")
    assert (created.target, created.address) == ("carol", "203.0.113.50")


# ------------------------------------------------------------------ throttles and audit


@pytest.fixture
def plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: HistoryStore,
          users: dict[str, str]) -> Iterator[httpx.Client]:
    """A server with accounts and sign-up, whose proxy is not loopback."""
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    settings = _settings(tmp_path, monkeypatch, trusted_proxies=[ELSEWHERE],
                         registration=True)
    with _serve(settings, store) as client:
        yield client


def _rotating(n: int) -> dict[str, str]:
    return {"X-Forwarded-For": f"198.51.100.{n + 1}"}


def test_a_new_forwarded_address_per_wrong_password_does_not_escape_the_throttle(
        plain: httpx.Client, store: HistoryStore) -> None:
    for n in range(CLIENT_FAILURES):  # a new account each time: only the address counts
        assert _log_in(plain, f"nobody{n}", "wrong", **_rotating(n)).status_code == 401
    locked = _log_in(plain, "bob", PASSWORD, **_rotating(99))
    assert locked.status_code == 429 and int(locked.headers["retry-after"]) > 0
    failed = store.audit_log(action="login.failed")
    assert len(failed) == CLIENT_FAILURES
    assert {entry.address for entry in failed} == {"127.0.0.1"}  # never the header's


def test_a_new_forwarded_address_per_sign_up_does_not_escape_the_throttle(
        plain: httpx.Client, store: HistoryStore) -> None:
    answers = []
    for n in range(CLIENT_FAILURES + 3):
        headers = _rotating(n)
        answers.append(plain.post("/register", headers=headers, data={
            "csrf_token": _csrf(plain, "/register", **headers), "name": f"newcomer{n}",
            "password": PASSWORD, "again": PASSWORD}).status_code)
    assert answers[:CLIENT_FAILURES] == [202] * CLIENT_FAILURES
    assert set(answers[CLIENT_FAILURES:]) == {429}
    assert len(store.users()) == 3 + CLIENT_FAILURES
    assert {e.address for e in store.audit_log(action="user.register")} == {"127.0.0.1"}


def test_a_new_forwarded_address_per_wrong_api_token_does_not_escape_the_throttle(
        plain: httpx.Client, store: HistoryStore) -> None:
    right = store.create_token("alice", "test")
    for n in range(CLIENT_FAILURES):
        wrong = plain.get("/api/v1/history", headers={
            **_rotating(n), "Authorization": f"Bearer dc_guess{n}"})
        assert wrong.status_code == 401
    locked = plain.get("/api/v1/history", headers={
        **_rotating(99), "Authorization": f"Bearer {right}"})
    assert locked.status_code == 429 and int(locked.headers["retry-after"]) > 0


def test_behind_a_named_proxy_each_forwarded_client_is_counted_and_logged_apart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: HistoryStore,
        users: dict[str, str]) -> None:
    settings = _settings(tmp_path, monkeypatch, trusted_proxies=["127.0.0.1"])
    guesser = {"X-Forwarded-For": "203.0.113.66"}
    with _serve(settings, store) as client:
        for n in range(CLIENT_FAILURES):
            # what the guesser writes left of the proxy's entry is not whom it stands for
            spoofed = {"X-Forwarded-For": f"192.0.2.{n}, 203.0.113.66"}
            assert _log_in(client, f"nobody{n}", "wrong", **spoofed).status_code == 401
        assert _log_in(client, "bob", PASSWORD, **guesser).status_code == 429
        other = _log_in(client, "bob", PASSWORD, **{"X-Forwarded-For": "203.0.113.77"})
        assert other.status_code == 303
    assert {e.address for e in store.audit_log(action="login.failed")} == {"203.0.113.66"}
    [login] = store.audit_log(action="login")
    assert login.address == "203.0.113.77"


# ------------------------------------------------------------------ MCP over HTTP


@contextmanager
def _mcp(store_url: str, monkeypatch: pytest.MonkeyPatch,
         proxies: str | None) -> Iterator[str]:
    """``deepcite mcp --transport http`` on loopback; yields the /mcp URL."""
    monkeypatch.setenv("DEEPCITE_STORE_URL", store_url)
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    if proxies is not None:
        monkeypatch.setenv("DEEPCITE_WEB_TRUSTED_PROXIES", proxies)
    port = free_port()
    gate = http_app(build_server(), host="127.0.0.1", port=port,
                    throttle=LoginThrottle(client_failures=MCP_FAILURES))
    try:
        with running(http_config(gate, host="127.0.0.1", port=port)) as url:
            yield url + "/mcp"
    finally:
        gate.close()


def _mcp_post(url: str, token: str, forwarded: str) -> httpx.Response:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"}}}
    return httpx.post(url, content=json.dumps(initialize), timeout=PATIENCE, headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {token}", "X-Forwarded-For": forwarded})


def test_mcp_wrong_tokens_from_loopback_are_throttled_whatever_it_forwards(
        store_url: str, store: HistoryStore, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    store.add_user("alice", PASSWORD)
    right = store.create_token("alice", "test")
    with _mcp(store_url, monkeypatch, proxies=ELSEWHERE) as url:
        for n in range(MCP_FAILURES):
            assert _mcp_post(url, f"dc_guess{n}", f"198.51.100.{n}").status_code == 401
        # naming the proxy itself makes loopback no proxy either
        locked = _mcp_post(url, right, ELSEWHERE)
        assert locked.status_code == 429 and int(locked.headers["retry-after"]) > 0


def test_mcp_behind_a_named_proxy_counts_each_forwarded_client_apart(
        store_url: str, store: HistoryStore, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    store.add_user("alice", PASSWORD)
    right = store.create_token("alice", "test")
    with _mcp(store_url, monkeypatch, proxies="127.0.0.1,::1") as url:
        for n in range(MCP_FAILURES):
            assert _mcp_post(url, f"dc_guess{n}", f"192.0.2.{n}, 203.0.113.66"
                             ).status_code == 401
        assert _mcp_post(url, right, "203.0.113.66").status_code == 429
        assert _mcp_post(url, right, "203.0.113.77").status_code == 200
