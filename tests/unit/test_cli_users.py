"""``deepcite users ...`` and ``deepcite audit`` on the default SQLite history."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepcite.cli import app
from deepcite.store import HistoryStore

runner = CliRunner()
PASSWORD = "correct horse"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(folder))
    return folder


def invoke(*args: str, input: str | None = None, code: int = 0) -> str:
    result = runner.invoke(app, list(args), input=input)
    assert result.exit_code == code, result.output
    return " ".join((result.stdout if code == 0 else result.stderr).split())


def store(data_dir: Path) -> HistoryStore:
    return HistoryStore.from_url(f"sqlite:///{data_dir / 'history.db'}")


def test_users_lifecycle_is_audited(data_dir: Path) -> None:
    assert invoke("users", "list") == "No users yet - `deepcite users add NAME` adds one"
    assert invoke("users", "add", "bob", "--admin", "--password-stdin",
                  input=PASSWORD + "\n") == "Added user bob (admin)"
    assert invoke("users", "add", "alice", input=f"{PASSWORD}\n{PASSWORD}\n").endswith(
        "Added user alice")
    listing = invoke("users", "list")
    assert "alice" in listing and "bob" in listing and "yes" in listing
    with store(data_dir) as opened:
        assert opened.check_password("bob", PASSWORD) is not None
        assert opened.user("bob").is_admin

    first = re.search(r"dc_[A-Za-z0-9_-]+", invoke("users", "token", "bob", "--label", "old"))
    assert first is not None
    assert invoke("users", "passwd", "bob", "--password-stdin",
                  input="another password\n") == (
        "Password of bob changed Their 1 API token was revoked; make new ones with "
        "`deepcite users token bob` (or on the Account page)")
    made = invoke("users", "token", "bob", "--label", "laptop")
    token = re.search(r"dc_[A-Za-z0-9_-]+", made)
    assert token is not None and "will not be shown again" in made
    assert token.group() not in invoke("audit")
    assert invoke("users", "disable", "bob") == "User bob disabled"
    assert invoke("users", "disable", "bob") == "User bob was already disabled"
    assert invoke("users", "enable", "bob") == "User bob enabled"
    with store(data_dir) as opened:
        assert opened.check_password("bob", "another password") is not None
        assert opened.token_owner(first.group()) is None
        assert opened.token_owner(token.group()) is not None
    token_id = made.split()[1]
    assert invoke("users", "revoke", "bob", token_id) == f"Token {token_id} of bob revoked"
    with store(data_dir) as opened:
        assert opened.token_owner(token.group()) is None
    assert invoke("users", "rm", "alice") == "Removed user alice (they owned nothing)"

    with store(data_dir) as opened:
        entries = opened.audit_log()
    assert [entry.action for entry in reversed(entries)] == [
        "user.add", "user.add", "token.create", "user.passwd", "token.create",
        "user.disable", "user.enable", "token.use", "token.revoke", "user.remove"]
    assert {entry.actor for entry in entries} == {"cli", "bob"}  # bob used his token
    assert all("another password" not in str(entry.detail) for entry in entries)
    assert "token.revoke" in invoke("audit", "--action", "token.revoke")
    assert "user.add" not in invoke("audit", "--action", "token.revoke")
    assert invoke("audit", "--user", "nobody") == "No audit entries"
    assert len(invoke("audit", "--limit", "1").split("cli")) == 2


def test_errors_are_one_line(data_dir: Path) -> None:
    assert invoke("users", "add", "bob", "--password-stdin", input="short\n", code=2) == (
        "Error: The password is too short - use at least 8 characters")
    invoke("users", "add", "bob", "--password-stdin", input=PASSWORD + "\n")
    assert invoke("users", "add", "BOB", "--password-stdin", input=PASSWORD + "\n",
                  code=1) == ("Error: There is already a user 'BOB' - `deepcite users list` "
                              "shows the users")
    assert invoke("users", "passwd", "carol", "--password-stdin", input=PASSWORD + "\n",
                  code=1) == "Error: No user 'carol' - `deepcite users list` shows the users"
    assert invoke("users", "revoke", "bob", "7", code=1).startswith(
        "Error: User 'bob' has no token 7")
    assert invoke("users", "rm", "bob", "--keep-runs", code=2) == (
        "Error: --keep-runs and --delete-runs are gone - use --delete-data to delete what "
        "the user owns, or --transfer-to OTHER to hand it to another user")
    assert invoke("users", "rm", "bob", "--delete-data", "--transfer-to", "bob", code=2) == (
        "Error: Either delete the user's data or transfer it to another user, not both")
    assert invoke("users", "rm", "nobody", code=1) == (
        "Error: No user 'nobody' - `deepcite users list` shows the users")
    assert invoke("users", "rm", "bob") == "Removed user bob (they owned nothing)"


def test_logout_ends_every_session_of_the_user(data_dir: Path) -> None:
    from datetime import UTC, datetime, timedelta

    invoke("users", "add", "bob", "--password-stdin", input=PASSWORD + "\n")
    now = datetime.now(UTC)
    with store(data_dir) as opened:
        for sid in ("one", "two"):
            opened.open_web_session(sid, token_tag="t", user_name="bob",
                                    expires_at=now + timedelta(days=1), now=now)
    assert invoke("users", "logout", "bob") == "Ended 2 sessions of bob"
    with store(data_dir) as opened:
        assert opened.web_session_user("one", token_tag="t", idle_s=3600) is None
        assert [entry.action for entry in opened.audit_log(1)] == ["user.logout"]
    assert invoke("users", "logout", "BOB") == "Ended 0 sessions of bob"


def test_serve_on_the_network_needs_a_token_or_accounts(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[str] = []
    monkeypatch.setattr("deepcite.web.serving.serve_app",
                        lambda app, executor, **kw: served.append(kw["host"]) or [])
    refused = runner.invoke(app, ["serve", "--host", "0.0.0.0"])
    said = " ".join(refused.output.split())  # whatever the terminal's width
    assert refused.exit_code == 2 and "deepcite users add NAME --admin" in said
    assert served == []
    invoke("users", "add", "alice", "--admin", "--password-stdin", input=PASSWORD + "\n")
    started = runner.invoke(app, ["serve", "--host", "0.0.0.0"])
    assert started.exit_code == 0, started.output
    assert served == ["0.0.0.0"]


def test_rm_says_what_the_user_owns_then_hands_it_over_or_deletes_it(
        data_dir: Path, tmp_path: Path) -> None:
    from deepcite.collections import Collection
    from deepcite.collections.collection import collection_path
    from deepcite.config import load_settings
    from deepcite.store.user_rights import access_of

    for name in ("bob", "alice"):
        invoke("users", "add", name, "--password-stdin", input=PASSWORD + "\n")
    settings = load_settings({})
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "secret.txt").write_text("The vault code is 4711.", encoding="utf-8")
    Collection.create("bobs", settings=settings).add(folder)
    with store(data_dir) as opened:
        bob = opened.user("bob")
        run_id = opened.begin("Bob's question", mode="quick", settings=settings,
                              owner_id=bob.id)
        opened.set_collection_owner("bobs", bob.id)
        opened.add_watch(name="w", request={"question": "Why?"}, schedule="every 1h",
                         targets=[], next_run_at=None, owner_id=bob.id)
    assert invoke("users", "rm", "bob", code=2) == (
        "Error: User bob owns 1 run, 1 watch and 1 collection - add --delete-data to delete "
        "them with the account, or --transfer-to OTHER to hand them to another user")
    assert invoke("users", "rm", "bob", "--transfer-to", "alice") == (
        "Removed user bob; alice now owns their 1 run, 1 watch and 1 collection (watches "
        "paused)")
    with store(data_dir) as opened:
        alice = access_of(opened.user("alice"))
        assert opened.get(run_id, alice).result.question == "Bob's question"
        assert opened.readable_collections(alice, ["bobs"]) == {"bobs"}
        [watch] = opened.watches(alice)
        assert watch.status == "paused"
    assert collection_path("bobs", settings).exists()
    assert invoke("users", "rm", "alice", "--delete-data") == (
        "Removed user alice (1 run, 1 watch and 1 collection deleted)")
    assert not collection_path("bobs", settings).exists()
    with store(data_dir) as opened:
        assert opened.list() == [] and opened.watches() == []
        [removed] = opened.audit_log(1, action="user.remove")
    assert removed.detail == {"runs": 1, "watches": 1, "collections": 1, "fate": "delete"}
