"""Server-side web sessions (logging out ends every copy of the cookie, in every web
process sharing the store) and the throttling of wrong passwords.

The store tests run on SQLite and on a real PostgreSQL server (see postgres_fixture);
the web tests run two apps - two web processes - on one store, with real requests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from deepcite.config import Settings
from deepcite.errors import UnknownRunError
from deepcite.runs import EventBatch, RunInfo, RunRequest
from deepcite.store import HistoryStore
from deepcite.store.engine import create_store_engine
from deepcite.store.migrate import HEAD_REVISION, current_revision, upgrade
from deepcite.web.app import _add_error_handlers
from deepcite.web.contracts import WebState
from deepcite.web.login_throttle import LoginThrottle, client_key
from deepcite.web.pages import pages_router
from deepcite.web.rest import api_router
from deepcite.web.sessions import COOKIE, SESSION_SECONDS, Session, Sessions
from deepcite.web.who_is_asking import Gate
from tests.unit.web_forms import csrf_token

TOKEN = "the-access-token-4567"
OTHER_TOKEN = "a-new-access-token-8901"
T0 = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)


def _rows(url: str) -> list[dict[str, Any]]:
    engine = create_store_engine(url)
    try:
        with engine.connect() as connection:
            found = connection.execute(sa.text("SELECT * FROM web_sessions")).mappings()
            return [dict(row) for row in found]
    finally:
        engine.dispose()


# ----------------------------------------------------------------------- the store


def test_a_session_is_live_until_revoked(store: HistoryStore, store_url: str) -> None:
    store.open_web_session("sid-one", token_tag="tag", expires_at=T0 + timedelta(days=7),
                           now=T0)
    assert store.web_session_live("sid-one", token_tag="tag", now=T0 + timedelta(hours=1))
    assert not store.web_session_live("sid-two", token_tag="tag", now=T0)
    assert store.revoke_web_session("sid-one", now=T0 + timedelta(hours=2))
    assert not store.web_session_live("sid-one", token_tag="tag", now=T0 + timedelta(hours=3))
    assert not store.revoke_web_session("sid-one")  # already ended
    # the database holds the id's SHA-256, never the id
    [row] = _rows(store_url)
    assert row["id_hash"] == hashlib.sha256(b"sid-one").hexdigest()
    assert not any("sid-one" in str(value) for value in row.values())
    assert row["user_name"] is None


def test_a_session_expires_and_is_cleaned_up(store: HistoryStore, store_url: str) -> None:
    store.open_web_session("old", token_tag="tag", expires_at=T0 + timedelta(days=7), now=T0)
    assert store.web_session_live("old", token_tag="tag", now=T0 + timedelta(days=6))
    later = T0 + timedelta(days=7, seconds=1)
    assert not store.web_session_live("old", token_tag="tag", now=later)
    store.open_web_session("new", token_tag="tag", expires_at=later + timedelta(days=7),
                           now=later)
    assert [row["id_hash"] for row in _rows(store_url)] == [
        hashlib.sha256(b"new").hexdigest()]


def test_a_login_under_another_token_revokes_the_old_tokens_sessions(
        store: HistoryStore) -> None:
    week = T0 + timedelta(days=7)
    store.open_web_session("under-a", token_tag="a", expires_at=week, now=T0)
    assert not store.web_session_live("under-a", token_tag="b", now=T0)
    store.open_web_session("under-b", token_tag="b", expires_at=week, now=T0)
    assert store.web_session_live("under-b", token_tag="b", now=T0)
    # even with token "a" set again, its old sessions stay ended
    assert not store.web_session_live("under-a", token_tag="a", now=T0)


def test_upgrade_from_0003_adds_the_table_and_keeps_the_runs(store_url: str,
                                                            make_settings: Any) -> None:
    engine = create_store_engine(store_url)
    upgrade(engine, "0003")
    engine.dispose()
    from deepcite.store.history import HistoryStore as Store

    with Store.from_url(store_url) as store:  # upgrades to the head
        run_id = store.begin("Kept?", mode="quick", settings=make_settings())
        store.open_web_session("s", token_tag="t", expires_at=T0 + timedelta(days=1), now=T0)
    engine = create_store_engine(store_url)
    try:
        with engine.connect() as connection:
            assert current_revision(connection) == HEAD_REVISION
            assert sa.inspect(connection).has_table("web_sessions")
    finally:
        engine.dispose()
    with HistoryStore.from_url(store_url) as store:
        assert store.get(run_id).result.question == "Kept?"


# ----------------------------------------------------------------------- the web


class Executor:
    """Just enough of a RunExecutor; ``store`` is what the API and pages use."""

    def __init__(self, store: HistoryStore) -> None:
        self.store = store
        self.requests: list[RunRequest] = []

    def submit(self, request: RunRequest) -> str:
        self.requests.append(request)
        return "0" * 32

    def cancel(self, run_id: str) -> bool:
        raise UnknownRunError(run_id)

    def status(self, run_id: str) -> RunInfo:
        raise UnknownRunError(run_id)

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        raise UnknownRunError(run_id)

    def shutdown(self) -> None:
        pass


class Clock:
    """A clock tests move by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Server:
    """One web process: its own store object (engine) on the shared database."""

    def __init__(self, url: str, settings: Settings, token: str | None, *,
                 clock: Clock | None = None, throttle: LoginThrottle | None = None) -> None:
        self.store = HistoryStore.from_url(url)
        self.executor = Executor(self.store)
        state = WebState(settings=settings, executor=self.executor, token=token)
        clock = clock or Clock(T0.timestamp())
        self.sessions = Sessions(token, lambda: self.store, clock)
        gate = Gate(state, sessions=self.sessions, clock=clock)  # the API's clock too
        app = FastAPI()
        app.include_router(api_router(state, gate))
        app.include_router(pages_router(state, gate=gate, login_throttle=throttle))
        _add_error_handlers(app)
        self.app = app

    def client(self, address: str = "testclient") -> TestClient:
        return TestClient(self.app, follow_redirects=False, client=(address, 50000))


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    made: list[Server] = []
    yield made
    for server in made:
        server.store.close()


def _server(servers: list[Server], url: str, settings: Any, token: str | None = TOKEN,
            **options: Any) -> Server:
    server = Server(url, settings, token, **options)
    servers.append(server)
    return server


def _csrf(client: TestClient, path: str = "/login") -> str:
    return csrf_token(client, path)


def _log_in(client: TestClient, password: str = TOKEN) -> Any:
    return client.post("/login", data={"csrf_token": _csrf(client), "password": password,
                                       "next": "/history"})


def _opens(client: TestClient) -> tuple[bool, bool]:
    """Whether the session opens the history page, and the API's history."""
    page = client.get("/history")
    api = client.get("/api/v1/history")
    assert page.status_code in (200, 303) and api.status_code in (200, 401)
    return page.status_code == 200, api.status_code == 200


def test_log_out_ends_every_copy_of_the_cookie_in_every_process(
        store_url: str, make_settings: Any, servers: list[Server]) -> None:
    one, two = (_server(servers, store_url, make_settings()) for _ in range(2))
    browser = one.client()
    assert _log_in(browser).status_code == 303
    stolen = two.client()  # the same cookie, used against another web process
    stolen.cookies.set(COOKIE, browser.cookies[COOKIE])
    assert _opens(browser) == (True, True) and _opens(stolen) == (True, True)

    logout = browser.post("/logout", data={"csrf_token": _csrf(browser, "/history")})
    assert logout.status_code == 303 and logout.headers["location"] == "/login"

    assert _opens(stolen) == (False, False)
    replay = one.client()
    replay.cookies.set(COOKIE, stolen.cookies[COOKIE])
    assert _opens(replay) == (False, False)
    page = replay.get("/history")
    assert page.headers["location"].startswith("/login")
    # nor can the old cookie's forms do anything
    old = two.client()
    old.cookies.set(COOKIE, stolen.cookies[COOKIE])
    claimed = two.sessions.claimed(old.cookies[COOKIE])
    assert claimed is not None and claimed.authed  # the cookie itself is still valid
    posted = old.post("/", data={"csrf_token": two.sessions.csrf_token(claimed),
                                 "question": "q"})
    assert posted.status_code == 303 and posted.headers["location"].startswith("/login")
    assert one.executor.requests == [] and two.executor.requests == []
    # logging in again works, with a new session
    assert _log_in(browser).status_code == 303 and _opens(browser) == (True, True)


def test_a_session_ends_server_side_after_its_lifetime(
        tmp_path: Path, make_settings: Any, servers: list[Server],
        monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    clock = Clock(T0.timestamp())

    server = _server(servers, url, make_settings(), clock=clock)
    browser = server.client()
    _log_in(browser)
    logged = server.sessions.claimed(browser.cookies[COOKIE])
    assert logged is not None and logged.authed
    clock.now += SESSION_SECONDS - 60
    assert _opens(browser) == (True, True)
    clock.now += 120
    assert _opens(browser) == (False, False)
    # a cookie kept looking fresh (re-signed now) names a session the store has ended
    browser.cookies.set(COOKIE, server.sessions.encode(Session(logged.sid, authed=True)))
    assert _opens(browser) == (False, False)


def test_a_token_change_ends_the_old_tokens_sessions(
        tmp_path: Path, make_settings: Any, servers: list[Server]) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    settings = make_settings()
    before = _server(servers, url, settings)
    browser = before.client()
    _log_in(browser)
    cookie = browser.cookies[COOKIE]
    after = _server(servers, url, settings, token=OTHER_TOKEN)  # restarted, new token
    old = after.client()
    old.cookies.set(COOKIE, cookie)
    assert _opens(old) == (False, False)
    assert _log_in(after.client(), OTHER_TOKEN).status_code == 303
    back = _server(servers, url, settings)  # and the old token set again
    again = back.client()
    again.cookies.set(COOKIE, cookie)
    assert _opens(again) == (False, False)


def test_anonymous_visitors_write_no_session_rows(
        tmp_path: Path, make_settings: Any, servers: list[Server]) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    loopback = _server(servers, url, make_settings(), token=None).client()
    for path in ("/", "/history", "/settings"):
        assert loopback.get(path).status_code == 200
    assert loopback.post("/logout", data={"csrf_token": _csrf(loopback, "/")}
                         ).status_code == 303
    networked = _server(servers, url, make_settings()).client()
    for _ in range(3):
        assert networked.get("/login").status_code == 200
    assert _rows(url) == []
    _log_in(networked)
    assert len(_rows(url)) == 1


# ----------------------------------------------------------------------- throttling


def _guess(client: TestClient, password: str) -> Any:
    return client.post("/login", data={"csrf_token": _csrf(client), "password": password})


def test_wrong_passwords_are_throttled_even_before_the_right_one(
        tmp_path: Path, make_settings: Any, servers: list[Server]) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    clock = Clock(1000.0)
    throttle = LoginThrottle(client_failures=5, global_failures=100, window_s=300, clock=clock)
    server = _server(servers, url, make_settings(), throttle=throttle)
    guesser = server.client("203.0.113.7")
    for _ in range(5):
        assert _guess(guesser, "wrong").status_code == 401
    refused = _guess(guesser, TOKEN)  # the right password, but too late
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "300"
    assert "Too many wrong passwords - try again in 300 s" in refused.text
    assert _opens(guesser) == (False, False)
    # another address is not held up by this one
    assert _guess(server.client("198.51.100.2"), TOKEN).status_code == 303
    clock.now += 299
    assert _guess(guesser, TOKEN).headers["retry-after"] == "1"
    clock.now += 1
    assert _guess(guesser, TOKEN).status_code == 303
    assert _opens(guesser) == (True, True)


def test_a_good_login_resets_the_clients_count(
        tmp_path: Path, make_settings: Any, servers: list[Server]) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    throttle = LoginThrottle(client_failures=3, global_failures=100, clock=Clock(0.0))
    server = _server(servers, url, make_settings(), throttle=throttle)
    person = server.client("192.0.2.10")
    for _ in range(2):
        assert _guess(person, "typo").status_code == 401
    assert _guess(person, TOKEN).status_code == 303
    person.cookies.clear()
    for _ in range(3):
        assert _guess(person, "typo").status_code == 401
    assert _guess(person, "typo").status_code == 429


def test_guesses_from_many_addresses_are_throttled_together(
        tmp_path: Path, make_settings: Any, servers: list[Server]) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    clock = Clock(0.0)
    throttle = LoginThrottle(client_failures=3, global_failures=6, window_s=60, clock=clock)
    server = _server(servers, url, make_settings(), throttle=throttle)
    for n in range(6):
        assert _guess(server.client(f"10.0.0.{n}"), "wrong").status_code == 401
    refused = _guess(server.client("10.0.9.9"), TOKEN)
    assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
    clock.now += 60
    assert _guess(server.client("10.0.9.9"), TOKEN).status_code == 303


def test_an_ipv6_host_cannot_dodge_the_limit_by_changing_address(
        tmp_path: Path, make_settings: Any, servers: list[Server]) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    throttle = LoginThrottle(client_failures=3, global_failures=100, clock=Clock(0.0))
    server = _server(servers, url, make_settings(), throttle=throttle)
    for n in range(3):
        assert _guess(server.client(f"2001:db8:1:2::{n + 1:x}"), "wrong").status_code == 401
    assert _guess(server.client("2001:db8:1:2:ffff::9"), TOKEN).status_code == 429
    assert _guess(server.client("2001:db8:1:3::1"), TOKEN).status_code == 303
    assert client_key("::ffff:192.0.2.1") == "192.0.2.1"


def test_wrong_api_tokens_are_throttled_too(
        tmp_path: Path, make_settings: Any, servers: list[Server],
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(0.0)

    def throttle() -> LoginThrottle:
        return LoginThrottle(clock=clock)

    monkeypatch.setattr("deepcite.web.who_is_asking.LoginThrottle", throttle)
    url = f"sqlite:///{tmp_path / 'history.db'}"
    client = _server(servers, url, make_settings()).client("203.0.113.50")
    for _ in range(5):
        assert client.get("/api/v1/history", headers={
            "Authorization": "Bearer guess"}).status_code == 401
    right = {"Authorization": f"Bearer {TOKEN}"}
    refused = client.get("/api/v1/history", headers=right)
    assert refused.status_code == 429 and refused.headers["retry-after"] == "300"
    assert refused.json()["error"]["code"] == "too_many_attempts"
    # requests without a token (a browser's logged-out stream) are not guesses
    assert client.get("/api/v1/history").status_code == 401
    clock.now += 300
    assert client.get("/api/v1/history", headers=right).status_code == 200
