"""The admin area (``/admin``, ``/admin/audit``): users, approval of sign-ups, ending
sessions, removing users, the audit log - through the whole app on a real store."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepcite.collections import Collection
from deepcite.collections.collection import collection_path, upload_folder
from deepcite.errors import UnknownUserError
from deepcite.store import HistoryStore, users_ops
from deepcite.store.user_rights import access_of
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
                                      "password": "eve-password-1", "fate": "delete"})
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


def test_removing_a_user_hands_over_what_they_own(made: App, make_settings: Any) -> None:
    bob = made.store.user("bob")
    kept = made.store.begin("Bob's question", mode="quick", settings=make_settings(),
                            owner_id=bob.id)
    client = made.browser()
    log_in(client, "root", ADMIN_PASSWORD)
    confirm = client.get("/admin/users/bob/remove")
    assert confirm.status_code == 200 and "Remove bob?" in confirm.text
    assert "bob owns 1 run." in confirm.text
    assert 'value="transfer"' in confirm.text and 'value="delete"' in confirm.text
    token = csrf(client, "/admin")
    unsure = client.post("/admin/users/bob/remove", data={"csrf_token": token})
    assert unsure.status_code == 400 and "Say whether to delete what bob owns" in unsure.text
    nobody = client.post("/admin/users/bob/remove", data={"csrf_token": token,
                                                          "fate": "transfer"})
    assert nobody.status_code == 400
    unknown = client.post("/admin/users/bob/remove", data={
        "csrf_token": token, "fate": "transfer", "to": "nobody"})
    assert unknown.status_code == 400 and "No user &#39;nobody&#39;" in unknown.text
    neither = client.post("/admin/users/bob/remove", data={"csrf_token": token,
                                                           "fate": "none"})
    assert neither.status_code == 400 and "owns 1 run" in neither.text
    assert made.store.user("bob")  # none of these removed him
    done = client.post("/admin/users/bob/remove", data={
        "csrf_token": token, "fate": "transfer", "to": "root"})
    assert done.status_code == 303
    assert "root now owns their runs" in client.get(done.headers["location"]).text
    with pytest.raises(UnknownUserError):
        made.store.user("bob")
    root = made.store.user("root")
    assert made.store.get(kept, access_of(root)).result.question == "Bob's question"
    assert made.store.user_belongings("root").runs == 1
    [entry] = made.store.audit_log(action="admin.remove")
    assert entry.target == "bob" and entry.detail == {
        "runs": 1, "watches": 0, "collections": 0, "fate": "transfer", "to": "root"}
    # nor can the admin remove or disable themselves here
    me = client.post("/admin/users/root/remove", data={"csrf_token": token, "fate": "none"})
    assert me.status_code == 400 and "your own account" in me.text
    assert client.post("/admin/users/root/disable", data={"csrf_token": token}
                       ).status_code == 400
    assert made.store.user("root") and not made.store.user("root").disabled


def test_removing_a_user_with_their_data_deletes_their_collection_files(
        made: App, make_settings: Any, tmp_path: Path) -> None:
    settings = make_settings()
    folder = tmp_path / "secrets"
    folder.mkdir()
    (folder / "secret.txt").write_text("The vault code is 4711.", encoding="utf-8")
    Collection.create("bobs", settings=settings).add(folder)
    made.store.set_collection_owner("bobs", made.store.user("bob").id)
    uploads = upload_folder(settings, "bobs")
    uploads.mkdir(parents=True)
    (uploads / "secret.txt").write_text("The vault code is 4711.", encoding="utf-8")
    client = made.browser()
    log_in(client, "root", ADMIN_PASSWORD)
    assert "(collections: bobs)" in client.get("/admin/users/bob/remove").text
    done = client.post("/admin/users/bob/remove", data={
        "csrf_token": csrf(client, "/admin"), "fate": "delete"})
    assert done.status_code == 303
    assert "deleted their runs, watches and collections" in client.get(
        done.headers["location"]).text
    assert not collection_path("bobs", settings).exists() and not uploads.exists()
    # a later user of any id cannot reach a collection of that name
    made.store.add_user("newbie", BOB_PASSWORD)
    assert made.store.readable_collections(access_of(made.store.user("newbie")),
                                           ["bobs"]) == set()
    [entry] = made.store.audit_log(action="admin.remove")
    assert entry.detail == {"runs": 0, "watches": 0, "collections": 1, "fate": "delete"}


def test_removing_a_user_who_owns_nothing_needs_no_choice(made: App) -> None:
    client = made.browser()
    log_in(client, "root", ADMIN_PASSWORD)
    page = client.get("/admin/users/bob/remove").text
    assert "bob owns nothing." in page and 'value="delete"' not in page
    done = client.post("/admin/users/bob/remove", data={
        "csrf_token": csrf(client, "/admin"), "fate": "none"})
    assert done.status_code == 303
    assert "they owned nothing" in client.get(done.headers["location"]).text


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


def _sign_up(app: App, name: str, password: str = BOB_PASSWORD) -> tuple[Any, Any]:
    newcomer = app.browser()
    answer = newcomer.post("/register", data={"csrf_token": csrf(newcomer, "/register"),
                                              "name": name, "password": password,
                                              "again": password})
    return newcomer, answer


def _seen(answer: Any, name: str) -> tuple[int, str, bool]:
    """What a sign-up's answer shows, the name typed and the form tokens aside."""
    text = re.sub(r'value="[^"]*"', 'value=""', answer.text).replace(name, "NAME")
    return answer.status_code, text, "set-cookie" in answer.headers


@pytest.mark.parametrize("approval", [True, False])
def test_sign_up_answers_a_taken_name_as_a_free_one(
        store: HistoryStore, make_settings: Any, monkeypatch: pytest.MonkeyPatch,
        approval: bool) -> None:
    store.add_user("root", ADMIN_PASSWORD, admin=True)
    store.add_user("alice", "alice-password-1")
    app = App(store, make_settings(**{"web.registration": True,
                                      "web.registration_approval": approval}))
    hashed: list[str] = []
    real_hash = users_ops.hash_password
    monkeypatch.setattr(users_ops, "hash_password",
                        lambda password: hashed.append(password) or real_hash(password))
    free_browser, free = _sign_up(app, "carol")
    taken_browser, taken = _sign_up(app, "ALICE", "not-alices-password")
    assert _seen(free, "carol") == _seen(taken, "ALICE")
    assert free.status_code == 202 and "log in as carol" in free.text
    assert hashed == [BOB_PASSWORD, "not-alices-password"]  # the same work either way
    assert not logged_in(free_browser) and not logged_in(taken_browser)
    assert store.check_password("alice", "alice-password-1") is not None  # untouched
    assert store.user("carol").disabled is approval
    [entry] = store.audit_log(action="user.register.taken")
    assert (entry.actor, entry.target) == (None, "ALICE")
    # bad input is still said at once: it does not depend on who exists
    _, short = _sign_up(app, "dave", "short")
    assert short.status_code == 400 and "too short" in short.text
    if not approval:  # the account is made: its owner logs in with it
        log_in(free_browser, "carol", BOB_PASSWORD)
        assert logged_in(free_browser)


def test_the_login_says_the_same_for_an_unknown_name_and_a_wrong_password(
        made: App) -> None:
    answers = []
    for name in ("bob", "nobody-at-all"):
        client = made.browser()
        answer = client.post("/login", data={"csrf_token": csrf(client, "/login"),
                                             "name": name, "password": "wrong-password-1"})
        answers.append(_seen(answer, name))
    assert answers[0] == answers[1] and answers[0][0] == 401


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
