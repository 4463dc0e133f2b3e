"""The admin area (``/admin``, ``/admin/audit``): users, approval of sign-ups, ending
sessions, removing users, the audit log - through the whole app on a real store."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from deepcite.errors import UnknownUserError
from deepcite.store import HistoryStore
from tests.unit.test_web_account_pages import App, csrf, log_in, logged_in

ADMIN_PASSWORD = "admin-password-1"
BOB_PASSWORD = "bob-password-1"


@pytest.fixture
def made(store: HistoryStore, make_settings: Any) -> Iterator[App]:
    store.add_user("root", ADMIN_PASSWORD, admin=True)
    store.add_user("bob", BOB_PASSWORD)
    yield App(store, make_settings())


def admin_post(app: App, path: str, **data: str) -> Any:
    client = app.browser()
    log_in(client, "root", ADMIN_PASSWORD)
    return client.post(path, data={"csrf_token": csrf(client, "/admin"), **data})


def test_a_non_admin_meets_the_same_404_as_an_unknown_page(made: App) -> None:
    bob = made.browser()
    log_in(bob, "bob", BOB_PASSWORD)
    unknown = bob.get("/no-such-page")
    for path in ("/admin", "/admin/audit", "/admin/users/bob/remove"):
        answer = bob.get(path)
        assert (answer.status_code, answer.text) == (unknown.status_code, unknown.text)
        assert answer.status_code == 404
    token = csrf(bob, "/account")
    for path in ("/admin/users", "/admin/users/root/disable", "/admin/users/root/remove"):
        answer = bob.post(path, data={"csrf_token": token, "name": "eve",
                                      "password": "eve-password-1", "runs": "delete"})
        assert answer.status_code == 404
    assert [u.name for u in made.store.users()] == ["bob", "root"]
    assert not made.store.user("root").disabled
    assert "/admin" not in bob.get("/settings").text


def test_the_admin_page_lists_the_users(made: App) -> None:
    made.store.create_token("bob", "ci")
    client = made.browser()
    log_in(client, "root", ADMIN_PASSWORD)
    page = client.get("/admin")
    assert page.status_code == 200
    assert "bob" in page.text and "root (you)" in page.text
    assert 'href="/admin/audit"' in page.text


def test_disabling_bob_ends_his_session_at_once(made: App) -> None:
    bob = made.browser()
    log_in(bob, "bob", BOB_PASSWORD)
    assert logged_in(bob)
    done = admin_post(made, "/admin/users/bob/disable")
    assert done.status_code == 303
    assert not logged_in(bob)
    refused = made.browser()
    answer = refused.post("/login", data={"csrf_token": csrf(refused, "/login"),
                                          "name": "bob", "password": BOB_PASSWORD})
    assert answer.status_code == 401
    [entry] = made.store.audit_log(action="admin.disable")
    assert (entry.actor, entry.target) == ("root", "bob")


def test_ending_sessions_logs_bob_out_but_he_can_log_in_again(made: App) -> None:
    bob = made.browser()
    log_in(bob, "bob", BOB_PASSWORD)
    assert admin_post(made, "/admin/users/bob/end_sessions").status_code == 303
    assert not logged_in(bob)
    log_in(bob, "bob", BOB_PASSWORD)
    assert logged_in(bob)
    [entry] = made.store.audit_log(action="admin.end_sessions")
    assert (entry.actor, entry.target, entry.detail) == ("root", "bob", {"ended": 1})


def test_adding_a_user_from_the_page(made: App) -> None:
    added = admin_post(made, "/admin/users", name="carol", password="carol-password-1",
                       admin="1")
    assert added.status_code == 303
    assert made.store.user("carol").is_admin
    carol = made.browser()
    log_in(carol, "carol", "carol-password-1")
    assert carol.get("/admin").status_code == 200
    again = admin_post(made, "/admin/users", name="Carol", password="carol-password-1")
    assert again.status_code == 400 and "There is already a user" in again.text
    bad = admin_post(made, "/admin/users", name="<script>", password="carol-password-1")
    assert bad.status_code == 400 and "<script>" not in bad.text
    [entry] = made.store.audit_log(action="admin.add")
    assert (entry.actor, entry.target, entry.detail) == ("root", "carol", {"admin": True})


def test_removing_a_user_keeps_or_deletes_their_runs(made: App, make_settings: Any) -> None:
    bob = made.store.user("bob")
    kept = made.store.begin("Bob's question", mode="quick", settings=make_settings(),
                            owner_id=bob.id)
    client = made.browser()
    log_in(client, "root", ADMIN_PASSWORD)
    confirm = client.get("/admin/users/bob/remove")
    assert confirm.status_code == 200 and "Remove bob?" in confirm.text
    token = csrf(client, "/admin")
    unsure = client.post("/admin/users/bob/remove", data={"csrf_token": token})
    assert unsure.status_code == 400
    done = client.post("/admin/users/bob/remove", data={"csrf_token": token, "runs": "keep"})
    assert done.status_code == 303
    with pytest.raises(UnknownUserError):
        made.store.user("bob")
    assert made.store.get(kept).result.question == "Bob's question"
    [entry] = made.store.audit_log(action="admin.remove")
    assert entry.detail == {"runs": 1, "kept": True} and entry.target == "bob"
    # nor can the admin remove or disable themselves here
    me = client.post("/admin/users/root/remove", data={"csrf_token": token, "runs": "keep"})
    assert me.status_code == 400 and "your own account" in me.text
    assert client.post("/admin/users/root/disable", data={"csrf_token": token}
                       ).status_code == 400
    assert made.store.user("root") and not made.store.user("root").disabled


def test_sign_up_waits_for_approval(store: HistoryStore, make_settings: Any) -> None:
    store.add_user("root", ADMIN_PASSWORD, admin=True)
    app = App(store, make_settings(**{"web.registration": True}))
    newcomer = app.browser()
    asked = newcomer.post("/register", data={"csrf_token": csrf(newcomer, "/register"),
                                             "name": "bob", "password": BOB_PASSWORD,
                                             "again": BOB_PASSWORD})
    assert asked.status_code == 202
    assert store.user("bob").disabled
    refused = newcomer.post("/login", data={"csrf_token": csrf(newcomer, "/login"),
                                            "name": "bob", "password": BOB_PASSWORD})
    assert refused.status_code == 401

    admin = app.browser()
    log_in(admin, "root", ADMIN_PASSWORD)
    page = admin.get("/admin").text
    assert page.index("bob") < page.index("root (you)")  # waiting accounts come first
    assert 'action="/admin/users/bob/enable"' in page and "Approve" in page
    approved = admin.post("/admin/users/bob/enable",
                          data={"csrf_token": csrf(admin, "/admin")})
    assert approved.status_code == 303
    assert "bob is enabled" in admin.get(approved.headers["location"]).text

    log_in(newcomer, "bob", BOB_PASSWORD)
    assert logged_in(newcomer)
    [entry] = store.audit_log(action="admin.enable")
    assert (entry.actor, entry.target) == ("root", "bob")


def test_the_audit_log_filters_by_user_and_action(made: App) -> None:
    made.store.audit("token.create", actor="bob", target="bob")
    made.store.audit("login", actor="bob")
    made.store.audit("user.add", actor="cli", target="<b>x</b>")
    client = made.browser()
    log_in(client, "root", ADMIN_PASSWORD)
    everything = client.get("/admin/audit")
    assert everything.status_code == 200
    text = everything.text
    assert text.index("<code>user.add</code>") < text.index("<code>token.create</code>")
    assert "&lt;b&gt;x&lt;/b&gt;" in text and "<b>x</b>" not in text
    bobs = client.get("/admin/audit", params={"user": "bob"}).text
    assert "<code>token.create</code>" in bobs and "<code>user.add</code>" not in bobs
    logins = client.get("/admin/audit", params={"user": "bob", "action": "login"}).text
    assert "<code>login</code>" in logins and "<code>token.create</code>" not in logins
    none = client.get("/admin/audit", params={"action": "nothing.like.this"}).text
    assert "No entries match these filters" in none
