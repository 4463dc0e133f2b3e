"""User accounts, API tokens and the audit log in the history store (SQLite, PostgreSQL)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from deepcite.errors import DuplicateUserError, InputError, UnknownUserError
from deepcite.security.passwords import hash_password, needs_rehash, verify_password
from deepcite.store import HistoryStore
from deepcite.store.engine import create_store_engine
from deepcite.store.migrate import HEAD_REVISION, upgrade
from deepcite.store.models import Run
from deepcite.store.user_rights import access_of
from deepcite.store.users_ops import token_hash
from tests.unit.test_store import scalar

PASSWORD = "correct horse"


def insert_run(store: HistoryStore, owner_id: int | None) -> str:
    run_id = uuid.uuid4().hex
    with store._engine.begin() as connection:
        connection.execute(sa.insert(Run).values(
            id=run_id, question="q", mode="quick", status="completed",
            created_at=datetime.now(UTC), settings={}, cancelled=False, warnings=[],
            warning_codes=[], unsupported_sentences=[], outline=[],
            questions_by_iteration={}, findings=[], search_text="q", owner_id=owner_id))
    return run_id


def run_ids(store: HistoryStore) -> set[str]:
    with store._engine.connect() as connection:
        return set(connection.execute(sa.select(Run.id)).scalars())


def test_hashes_are_argon2id_and_checks_never_raise() -> None:
    hashed = hash_password(PASSWORD)
    assert hashed.startswith("$argon2id$")
    assert hashed != hash_password(PASSWORD)  # salted
    assert verify_password(hashed, PASSWORD)
    assert not verify_password(hashed, "wrong password")
    for bad in ("", "not a hash", "$argon2id$v=19$m=1$broken", "$2b$12$abcdefghij"):
        assert not verify_password(bad, PASSWORD)
        assert needs_rehash(bad)
    assert not needs_rehash(hashed)


def test_users_and_passwords(store: HistoryStore) -> None:
    bob = store.add_user("Bob", PASSWORD, admin=True)
    assert (bob.name, bob.is_admin, bob.disabled) == ("Bob", True, False)
    with pytest.raises(DuplicateUserError, match="already a user 'bob'"):
        store.add_user("bob", PASSWORD)
    with pytest.raises(InputError, match="too short"):
        store.add_user("alice", "short")
    with pytest.raises(InputError, match="cannot be used"):
        store.add_user("a b", PASSWORD)
    store.add_user("alice", "alice's password")
    assert [user.name for user in store.users()] == ["alice", "Bob"]
    assert store.user("BOB").id == bob.id

    assert store.check_password("bob", PASSWORD) == store.user("bob")
    assert store.check_password("bob", "wrong password") is None
    assert store.check_password("nobody", PASSWORD) is None
    store.set_password("bob", "a new password")
    assert store.check_password("bob", PASSWORD) is None
    assert store.check_password("bob", "a new password") is not None

    assert store.set_disabled("bob", True)
    assert not store.set_disabled("bob", True)
    assert store.check_password("bob", "a new password") is None
    assert store.set_disabled("bob", False)
    assert store.check_password("bob", "a new password") is not None
    with store._engine.connect() as connection:
        hashes = list(connection.execute(sa.text("SELECT password_hash FROM users")).scalars())
    assert all(h.startswith("$argon2id$") for h in hashes)

    for call in (lambda: store.user("carol"), lambda: store.set_password("carol", PASSWORD),
                 lambda: store.set_disabled("carol", True),
                 lambda: store.remove_user("carol", delete_data=True),
                 lambda: store.create_token("carol")):
        with pytest.raises(UnknownUserError, match="No user 'carol' - `deepcite users list`"):
            call()


def test_tokens_are_stored_hashed_and_revoked_at_once(store: HistoryStore,
                                                     store_url: str) -> None:
    store.add_user("bob", PASSWORD)
    token = store.create_token("bob", "laptop")
    assert token.startswith("dc_") and len(token) > 40
    assert store.token_owner(token).name == "bob"  # type: ignore[union-attr]
    [info] = store.tokens("bob")
    assert (info.label, info.revoked_at) == ("laptop", None)
    assert info.last_used_at is not None
    assert store.user("bob").tokens == 1
    assert scalar(store_url, "SELECT token_hash FROM api_tokens") == token_hash(token)
    if store_url.startswith("sqlite"):
        path = Path(store_url.removeprefix("sqlite:///"))
        assert token.encode() not in path.read_bytes()
        assert PASSWORD.encode() not in path.read_bytes()
    assert store.token_owner("dc_unknown") is None
    assert store.token_owner(token[3:]) is None

    store.set_disabled("bob", True)
    assert store.token_owner(token) is None
    store.set_disabled("bob", False)
    assert store.revoke_token("bob", info.id)
    assert store.token_owner(token) is None
    assert not store.revoke_token("bob", info.id)
    assert store.user("bob").tokens == 0
    with pytest.raises(UnknownUserError, match="has no token 999"):
        store.revoke_token("bob", 999)


def test_removing_a_user_hands_over_or_deletes_their_runs(store: HistoryStore) -> None:
    bob = store.add_user("bob", PASSWORD)
    alice = store.add_user("alice", PASSWORD)
    store.create_token("bob")
    unowned = insert_run(store, None)
    bobs = {insert_run(store, bob.id), insert_run(store, bob.id)}
    alices = insert_run(store, alice.id)
    removal = store.remove_user("bob", transfer_to="alice")
    assert (removal.owned.runs, removal.transferred_to) == (2, "alice")
    assert run_ids(store) == {unowned, alices, *bobs}
    assert {run.id for run in store.list(access=access_of(store.user("alice")))} == {
        alices, *bobs}
    with pytest.raises(UnknownUserError):
        store.user("bob")
    assert store.remove_user("alice", delete_data=True).owned.runs == 3
    assert run_ids(store) == {unowned}
    assert store.users() == []


def test_audit_log(store: HistoryStore) -> None:
    store.audit("user.add", actor="cli", target="bob", detail={"admin": True})
    store.audit("token.create", actor="cli", target="bob", address="127.0.0.1")
    store.audit("login", actor="bob", target=None)
    entries = store.audit_log()
    assert [entry.action for entry in entries] == ["login", "token.create", "user.add"]
    assert entries[2].detail == {"admin": True}
    assert entries[1].address == "127.0.0.1"
    assert [entry.action for entry in store.audit_log(actor="cli")] == [
        "token.create", "user.add"]
    assert [entry.target for entry in store.audit_log(action="login")] == [None]
    assert len(store.audit_log(1)) == 1


def test_upgrade_from_0004_keeps_the_runs(store_url: str) -> None:
    engine = create_store_engine(store_url)
    upgrade(engine, "0004")
    run_id = uuid.uuid4().hex
    runs = sa.table("runs", sa.column("created_at", sa.DateTime(timezone=True)),
                    *(sa.column(name, sa.JSON) for name in (
                        "settings", "warnings", "warning_codes", "unsupported_sentences",
                        "outline", "questions_by_iteration", "findings")),
                    *(sa.column(name) for name in ("id", "question", "mode", "status",
                                                   "body", "cancelled", "search_text")))
    with engine.begin() as connection:
        connection.execute(sa.insert(runs).values(
            id=run_id, question="Old question", mode="quick", status="completed",
            created_at=datetime(2026, 1, 2, tzinfo=UTC), settings={}, body="Old answer.",
            cancelled=False, warnings=[], warning_codes=[], unsupported_sentences=[],
            outline=[], questions_by_iteration={}, findings=[], search_text="old question"))
    engine.dispose()
    with HistoryStore.from_url(store_url) as store:
        assert store.get(run_id).result.answer == "Old answer."
        assert store.users() == []
        store.add_user("bob", PASSWORD)
    assert scalar(store_url, "SELECT version_num FROM alembic_version") == HEAD_REVISION == "0010"
    assert scalar(store_url, f"SELECT owner_id FROM runs WHERE id = '{run_id}'") is None


def test_without_argon2_cffi_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepcite.errors import ConfigError
    from deepcite.security import passwords

    monkeypatch.setitem(__import__("sys").modules, "argon2", None)
    passwords._hasher.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"pip install 'deepcite\[web\]'"):
            hash_password(PASSWORD)
    finally:
        passwords._hasher.cache_clear()
