"""The account page (``/account``): changing the password, making and revoking API
tokens - through the whole app (``create_app``) on a real store, SQLite and PostgreSQL.

A browser is a TestClient with its own cookies; two clients logged in as one user are
two browsers of theirs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.errors import UnknownRunError
from deepcite.runs import EventBatch, RunInfo, RunRequest
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState

PASSWORD = "alice-password-1"
NEW_PASSWORD = "alice-new-password-2"


class Executor:
    """Just enough of a RunExecutor: the pages and the API only read its ``store``."""

    def __init__(self, store: HistoryStore) -> None:
        self._store = store

    @property
    def store(self) -> HistoryStore:
        return self._store

    def submit(self, request: RunRequest) -> str:
        raise AssertionError("no run is started here")

    def use_settings(self, settings: Any) -> None:
        self.settings = settings

    def cancel(self, run_id: str) -> bool:
        raise UnknownRunError(run_id)

    def status(self, run_id: str) -> RunInfo:
        raise UnknownRunError(run_id)

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        raise UnknownRunError(run_id)

    def drain(self) -> None:
        pass

    def shutdown(self) -> None:
        pass


class App:
    """The whole app on ``store``; :meth:`browser` is a new browser."""

    def __init__(self, store: HistoryStore, settings: Any) -> None:
        self.store = store
        self.app = create_app(WebState(settings=settings, executor=Executor(store)))

    def browser(self) -> TestClient:
        return TestClient(self.app, follow_redirects=False, client=("127.0.0.1", 50000))


@pytest.fixture
def app(store: HistoryStore, make_settings: Any) -> Iterator[App]:
    store.add_user("alice", PASSWORD)
    yield App(store, make_settings())


def csrf(client: TestClient, path: str) -> str:
    page = client.get(path)
    assert page.status_code == 200, page.text
    match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert match, f"{path} has no CSRF field"
    return match.group(1)


def log_in(client: TestClient, name: str, password: str) -> None:
    answer = client.post("/login", data={"csrf_token": csrf(client, "/login"), "name": name,
                                         "password": password, "next": "/"})
    assert answer.status_code == 303, answer.text


def logged_in(client: TestClient) -> bool:
    """Whether the browser's session still opens a page."""
    answer = client.get("/history")
    assert answer.status_code in (200, 303)
    return answer.status_code == 200


def change_password(client: TestClient, current: str, new: str, again: str | None = None
                    ) -> Any:
    return client.post("/account/password", data={
        "csrf_token": csrf(client, "/account"), "current": current, "password": new,
        "again": new if again is None else again})


def test_changing_the_password_ends_the_other_browsers_session_and_keeps_this_one(
        app: App) -> None:
    here, there = app.browser(), app.browser()
    log_in(here, "alice", PASSWORD)
    log_in(there, "alice", PASSWORD)
    assert logged_in(here) and logged_in(there)

    changed = change_password(here, PASSWORD, NEW_PASSWORD)

    assert changed.status_code == 303
    assert changed.headers["location"] == "/account?done=password"
    assert not logged_in(there)  # at once
    assert logged_in(here)
    page = here.get("/account?done=password")
    assert "Password changed" in page.text and "alice" in page.text
    # the new password is the one that works now
    late = app.browser()
    refused = late.post("/login", data={"csrf_token": csrf(late, "/login"), "name": "alice",
                                        "password": PASSWORD})
    assert refused.status_code == 401
    log_in(late, "alice", NEW_PASSWORD)
    assert [e.action for e in app.store.audit_log(actor="alice", action="user.passwd")] == [
        "user.passwd"]


def test_changing_the_password_ends_the_api_tokens_and_says_so(app: App) -> None:
    tokens = [app.store.create_token("alice", label) for label in ("laptop", "ci")]
    api = TestClient(app.app, client=("127.0.0.1", 50001))  # no cookies: a script
    for token in tokens:
        assert api.get("/api/v1/history",
                       headers={"Authorization": f"Bearer {token}"}).status_code == 200
    here = app.browser()
    log_in(here, "alice", PASSWORD)
    changed = change_password(here, PASSWORD, NEW_PASSWORD)
    assert changed.status_code == 303
    page = here.get(changed.headers["location"])
    assert "Your 2 API tokens were revoked; create new ones below." in page.text
    for token in tokens:  # whoever made them with the old password is out too
        assert api.get("/api/v1/history",
                       headers={"Authorization": f"Bearer {token}"}).status_code == 401
    [entry] = app.store.audit_log(action="user.passwd")
    assert entry.detail == {"via": "web", "tokens_revoked": 2}
    assert here.get("/account?done=password&revoked=junk").status_code == 200


def test_a_wrong_current_password_or_a_mismatch_changes_nothing(app: App) -> None:
    here = app.browser()
    log_in(here, "alice", PASSWORD)
    wrong = change_password(here, "not-my-password", NEW_PASSWORD)
    assert wrong.status_code == 400 and "The current password is wrong" in wrong.text
    differ = change_password(here, PASSWORD, NEW_PASSWORD, again="something-else-3")
    assert differ.status_code == 400 and "The two new passwords differ" in differ.text
    short = change_password(here, PASSWORD, "short")
    assert short.status_code == 400 and "too short" in short.text
    assert logged_in(here)
    assert app.store.check_password("alice", PASSWORD) is not None
    # and without the CSRF token nothing is even looked at
    forged = here.post("/account/password", data={"current": PASSWORD,
                                                  "password": NEW_PASSWORD,
                                                  "again": NEW_PASSWORD})
    assert forged.status_code == 403
    assert app.store.check_password("alice", PASSWORD) is not None


def test_a_token_made_on_the_page_opens_the_api_until_it_is_revoked(app: App) -> None:
    here = app.browser()
    log_in(here, "alice", PASSWORD)
    made = here.post("/account/tokens", data={"csrf_token": csrf(here, "/account"),
                                              "label": "laptop <b>1</b>"})
    assert made.status_code == 201
    match = re.search(r'id="new-token" class="token" value="(dc_[^"]+)"', made.text)
    assert match, made.text
    token = match.group(1)
    assert "laptop &lt;b&gt;1&lt;/b&gt;" in made.text and "<b>1</b>" not in made.text
    assert "shown this once" in made.text

    api = TestClient(here.app, client=("127.0.0.1", 50001))  # no cookies: a script
    bearer = {"Authorization": f"Bearer {token}"}
    assert api.get("/api/v1/history", headers=bearer).status_code == 200
    # the account page lists it (used now) and never shows the token again
    page = here.get("/account")
    assert "laptop &lt;b&gt;1&lt;/b&gt;" in page.text and token not in page.text
    assert "live" in page.text

    [listed] = app.store.tokens("alice")
    revoked = here.post(f"/account/tokens/{listed.id}/revoke",
                        data={"csrf_token": csrf(here, "/account")})
    assert revoked.status_code == 303

    assert api.get("/api/v1/history", headers=bearer).status_code == 401  # at once
    assert "revoked" in here.get("/account").text
    actions = [e.action for e in app.store.audit_log(actor="alice")
               if e.action.startswith("token.") and e.action != "token.use"]
    assert actions == ["token.revoke", "token.create"]


def test_no_one_revokes_another_users_token(app: App) -> None:
    app.store.add_user("bob", "bob-password-1")
    app.store.create_token("bob", "bob's")
    [bobs] = app.store.tokens("bob")
    here = app.browser()
    log_in(here, "alice", PASSWORD)
    answer = here.post(f"/account/tokens/{bobs.id}/revoke",
                       data={"csrf_token": csrf(here, "/account")})
    assert answer.status_code == 404
    assert app.store.tokens("bob")[0].revoked_at is None


def test_the_account_page_needs_accounts(make_settings: Any, tmp_path: Any) -> None:
    with HistoryStore.from_url(f"sqlite:///{tmp_path / 'open.db'}") as store:
        open_app = App(store, make_settings())
        client = open_app.browser()
        assert client.get("/account").status_code == 404
        assert client.get("/settings").status_code == 200
        assert "Your account" not in client.get("/settings").text


def test_the_settings_page_links_to_the_account(app: App) -> None:
    here = app.browser()
    assert here.get("/account").status_code == 303  # logged out: to the login page
    log_in(here, "alice", PASSWORD)
    page = here.get("/settings")
    assert page.status_code == 200
    assert 'href="/account"' in page.text and "Logged in as <strong>alice</strong>" in page.text
