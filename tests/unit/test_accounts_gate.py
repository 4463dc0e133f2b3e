"""The gate of a server with accounts: the user a trusted reverse proxy names is
believed from the proxy's addresses only (from anywhere else the header is refused,
never ignored), and wrong passwords lock an account - from any number of addresses -
as well as an address, without locking anyone else out.

Real stores on SQLite and PostgreSQL (``store_url``), the real app over TestClient with
the client address of each request set; runs are recorded straight in the store.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from deepcite.config import Settings, load_settings
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.recording_executor import RecordingExecutor
from tests.unit.test_store import quick_result

PASSWORD = "correct horse battery"
HEADER = "X-Forwarded-User"
PROXY = ("10.1.2.3", 5000)
STRANGER = ("203.0.113.9", 5000)


class StoreExecutor(RecordingExecutor):
    """Runs nothing; its history is the test's store."""

    def __init__(self, store: HistoryStore) -> None:
        super().__init__("completed")
        self._store = store


def _settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **web: Any) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    return load_settings({f"web.{key}": value for key, value in web.items()},
                         config_files=[])


@pytest.fixture
def users(store: HistoryStore) -> dict[str, str]:
    """alice, bob and admin root, with a stored run of alice's and one of bob's:
    name -> their run's question."""
    questions = {"alice": "Why is alice's sky blue?", "bob": "Why is bob's grass green?"}
    store.add_user("root", PASSWORD, admin=True)
    for name, question in questions.items():
        user = store.add_user(name, PASSWORD)
        settings = load_settings(config_files=[])
        run_id = store.begin(question, mode="quick", settings=settings, owner_id=user.id)
        store.finish(run_id, quick_result(question))
    return questions


def _app(settings: Settings, store: HistoryStore) -> FastAPI:
    return create_app(WebState(settings=settings, executor=StoreExecutor(store)))


@pytest.fixture
def proxied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            store: HistoryStore) -> Iterator[FastAPI]:
    settings = _settings(tmp_path, monkeypatch, trusted_user_header=HEADER,
                         trusted_proxies=["10.0.0.0/8"])
    yield _app(settings, store)


def _questions(text: str, users: dict[str, str]) -> set[str]:
    """Whose runs a reply shows (the questions appear HTML-escaped in pages)."""
    plain = text.replace("&#39;", "'").replace("&#x27;", "'")
    return {name for name, question in users.items() if question in plain}


# ------------------------------------------------------------------------ trusted header


def test_the_proxys_user_sees_their_own_runs_in_the_api_and_the_pages(
        proxied: FastAPI, users: dict[str, str]) -> None:
    proxy = TestClient(proxied, client=PROXY)
    api = proxy.get("/api/v1/history", headers={HEADER: "alice"})
    assert api.status_code == 200, api.text
    assert [run["question"] for run in api.json()] == [users["alice"]]
    page = proxy.get("/history", headers={HEADER: "alice"}, follow_redirects=False)
    assert page.status_code == 200, page.text
    assert _questions(page.text, users) == {"alice"}
    # the name is matched case aside, and an admin sees everyone's
    assert len(proxy.get("/api/v1/history", headers={HEADER: "ALICE"}).json()) == 1
    admin = proxy.get("/api/v1/history", headers={HEADER: "root"}).json()
    assert {run["owner"] for run in admin} == {"alice", "bob"}
    # without the header, the proxy's own address is nobody
    assert proxy.get("/api/v1/history").status_code == 401
    assert proxy.get("/history", follow_redirects=False).status_code == 303


def test_the_header_from_an_untrusted_address_is_refused_everywhere(
        proxied: FastAPI, users: dict[str, str], store: HistoryStore) -> None:
    stranger = TestClient(proxied, client=STRANGER)
    token = store.create_token("bob")
    for path in ("/api/v1/history", "/history", "/", "/login"):
        reply = stranger.get(path, headers={HEADER: "alice"}, follow_redirects=False)
        assert reply.status_code == 403, (path, reply.status_code, reply.text)
        assert "trusted proxies" in reply.text
        assert users["alice"] not in reply.text
    # not even with a valid token of someone else: the header is never ignored
    reply = stranger.get("/api/v1/history", headers={HEADER: "alice",
                                                     "Authorization": f"Bearer {token}"})
    assert reply.status_code == 403
    posted = stranger.post("/api/v1/research", headers={HEADER: "alice"},
                           json={"question": "q"})
    assert posted.status_code == 403
    # the same address without the header is an ordinary client
    assert stranger.get("/api/v1/history",
                        headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert stranger.get("/api/v1/health", headers={HEADER: "alice"}).status_code == 200


def test_an_unknown_or_disabled_name_is_refused(proxied: FastAPI, users: dict[str, str],
                                                store: HistoryStore) -> None:
    proxy = TestClient(proxied, client=PROXY)
    for path in ("/api/v1/history", "/history"):
        reply = proxy.get(path, headers={HEADER: "mallory"}, follow_redirects=False)
        assert reply.status_code == 403, (path, reply.text)
        assert "ask an admin to add it" in reply.text
        empty = proxy.get(path, headers={HEADER: "  "}, follow_redirects=False)
        assert empty.status_code == 403, (path, empty.text)
    assert "mallory" not in {user.name for user in store.users()}
    store.set_disabled("alice", True)
    for path in ("/api/v1/history", "/history"):
        reply = proxy.get(path, headers={HEADER: "alice"}, follow_redirects=False)
        assert reply.status_code == 403 and "disabled" in reply.text, (path, reply.text)


def test_the_proxy_may_create_accounts_when_allowed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: HistoryStore,
        users: dict[str, str]) -> None:
    settings = _settings(tmp_path, monkeypatch, trusted_user_header=HEADER,
                         trusted_proxies=["10.0.0.0/8"], trusted_header_creates_users=True)
    proxy = TestClient(_app(settings, store), client=PROXY)
    reply = proxy.get("/api/v1/history", headers={HEADER: "carol"})
    assert reply.status_code == 200 and reply.json() == []  # a new user sees nobody's runs
    assert store.user("carol").is_admin is False
    page = proxy.get("/history", headers={HEADER: "dave"}, follow_redirects=False)
    assert page.status_code == 200 and _questions(page.text, users) == set()
    assert [e.target for e in store.audit_log(action="user.create")] == ["dave", "carol"]
    bad = proxy.get("/api/v1/history", headers={HEADER: "not a name!"})
    assert bad.status_code == 403, bad.text
    # still never from a stranger
    stranger = TestClient(_app(settings, store), client=STRANGER)
    assert stranger.get("/api/v1/history", headers={HEADER: "erin"}).status_code == 403
    assert "erin" not in {user.name for user in store.users()}


# ------------------------------------------------------------------------ login throttle


def _log_in(client: TestClient, name: str, password: str) -> Any:
    form = client.get("/login")
    match = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
    assert match, form.text
    return client.post("/login", data={"csrf_token": match.group(1), "name": name,
                                       "password": password, "next": "/history"},
                       follow_redirects=False)


@pytest.fixture
def login_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: HistoryStore,
              users: dict[str, str]) -> FastAPI:
    return _app(_settings(tmp_path, monkeypatch), store)


def test_wrong_passwords_from_many_addresses_lock_only_that_account(
        login_app: FastAPI, store: HistoryStore) -> None:
    for n in range(10):
        guesser = TestClient(login_app, client=(f"198.51.100.{n + 1}", 5000))
        assert _log_in(guesser, "alice", f"wrong guess {n}").status_code == 401
    fresh = TestClient(login_app, client=("198.51.100.200", 5000))
    locked = _log_in(fresh, "alice", PASSWORD)  # even the right password waits
    assert locked.status_code == 429
    wait = int(locked.headers["retry-after"])
    assert wait > 0 and f"try again in {wait} s" in locked.text
    bob = _log_in(fresh, "bob", PASSWORD)
    assert bob.status_code == 303 and bob.headers["location"] == "/history"
    assert len(store.audit_log(action="login.failed")) == 10
    assert [e.actor for e in store.audit_log(action="login")] == ["bob"]


def test_wrong_passwords_from_one_address_lock_that_address(login_app: FastAPI) -> None:
    guesser = TestClient(login_app, client=("198.51.100.7", 5000))
    for n in range(5):
        assert _log_in(guesser, "nobody", f"wrong guess {n}").status_code == 401
    assert _log_in(guesser, "bob", PASSWORD).status_code == 429
    elsewhere = TestClient(login_app, client=("198.51.100.8", 5000))
    assert _log_in(elsewhere, "bob", PASSWORD).status_code == 303


def test_a_page_login_reads_only_its_own_runs_and_changes_nothing_through_the_api(
        login_app: FastAPI, store: HistoryStore, users: dict[str, str]) -> None:
    browser = TestClient(login_app, client=("198.51.100.9", 5000))
    assert _log_in(browser, "alice", PASSWORD).status_code == 303
    listed = browser.get("/api/v1/history")
    assert [run["question"] for run in listed.json()] == [users["alice"]]
    mine, theirs = ({run.owner: run.id for run in store.list()}[name]
                    for name in ("alice", "bob"))
    assert browser.get(f"/api/v1/research/{theirs}").status_code == 404
    assert browser.get(f"/api/v1/research/{mine}").status_code == 200
    # a state change needs a token: the cookie alone is what a cross-site form sends
    assert browser.delete(f"/api/v1/runs/{mine}").status_code == 401
    assert store.get(mine).status == "completed"
    # disabling alice ends her session at once
    store.set_disabled("alice", True)
    assert browser.get("/api/v1/history").status_code == 401
    assert browser.get("/history", follow_redirects=False).status_code == 303
