"""Ownership in the store: who sees which runs, the first admin taking over the runs from
before accounts, sessions ended with a password change, and the 0006 upgrade."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from deepcite.errors import UnknownRunError
from deepcite.store import HistoryStore
from deepcite.store.engine import create_store_engine
from deepcite.store.migrate import upgrade
from deepcite.store.models import Run
from deepcite.store.user_rights import EVERYTHING, Access
from tests.unit.test_store import scalar
from tests.unit.test_users_store import PASSWORD, insert_run

T0 = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)


def access(store: HistoryStore, name: str) -> Access:
    user = store.user(name)
    return Access(user_id=user.id, admin=user.is_admin, name=user.name)


def test_each_user_sees_only_their_runs_and_admins_see_all(store_url: str) -> None:
    with HistoryStore.from_url(store_url) as store:
        root = store.add_user("root", PASSWORD, admin=True)
        alice, bob = store.add_user("alice", PASSWORD), store.add_user("bob", PASSWORD)
        hers, his = insert_run(store, alice.id), insert_run(store, bob.id)
        as_alice, as_bob = access(store, "alice"), access(store, "bob")
        assert [run.id for run in store.list(access=as_alice)] == [hers]
        assert [run.id for run in store.list(access=as_bob)] == [his]
        everyone = {run.id: run.owner for run in store.list(access=access(store, "root"))}
        assert everyone == {hers: "alice", his: "bob"}
        # another user's run is not there: by id, by prefix, to read or delete
        for ref in (hers, hers[:8]):
            with pytest.raises(UnknownRunError) as missing:
                store.get(ref, as_bob)
            with pytest.raises(UnknownRunError) as absent:
                store.get("ffff" + ref[4:], as_bob)
            assert str(missing.value).replace(ref, "X") == \
                str(absent.value).replace("ffff" + ref[4:], "X")
            with pytest.raises(UnknownRunError):
                store.delete(ref, as_bob)
            with pytest.raises(UnknownRunError):
                store.visible(ref, as_bob)
        assert store.get(hers, as_alice).id == hers and store.visible(hers, EVERYTHING) == hers
        assert root.is_admin and store.delete(his, access(store, "root")) == his


def test_the_first_admin_takes_over_the_runs_from_before_accounts(store_url: str) -> None:
    with HistoryStore.from_url(store_url) as store:
        old = insert_run(store, None)
        store.add_user("alice", PASSWORD)  # not an admin: the old runs stay unowned
        assert store.list(access=access(store, "alice")) == []
        admin = store.add_user("root", PASSWORD, admin=True)
        assert [run.owner for run in store.list()] == ["root"]
        store.add_user("second", PASSWORD, admin=True)
        later = insert_run(store, None)  # e.g. recorded by the command line
        assert {run.id: run.owner for run in store.list()} == {old: "root", later: None}
        assert admin.id == store.user("root").id


def test_upgrading_to_0006_gives_unowned_runs_to_the_first_admin(store_url: str) -> None:
    engine = create_store_engine(store_url)
    upgrade(engine, "0005")
    with engine.begin() as connection:
        for name, admin in (("alice", False), ("Root", True), ("Later", True)):
            connection.execute(sa.text(
                "INSERT INTO users (name, name_key, password_hash, is_admin, disabled, "
                "created_at) VALUES (:name, :key, 'x', :admin, :no, :at)"),
                {"name": name, "key": name.casefold(), "admin": admin, "no": False,
                 "at": T0})
        connection.execute(sa.insert(Run).values(
            id="a" * 32, question="q", mode="quick", status="completed", created_at=T0,
            settings={}, cancelled=False, warnings=[], warning_codes=[],
            unsupported_sentences=[], outline=[], questions_by_iteration={}, findings=[],
            search_text="q", owner_id=None))
    engine.dispose()
    with HistoryStore.from_url(store_url) as store:  # opening upgrades to 0006
        assert [run.owner for run in store.list()] == ["Root"]
        assert store.list(access=access(store, "alice")) == []
    assert scalar(store_url, "SELECT COUNT(*) FROM collection_access") == 0


def test_a_password_change_disable_or_admin_ends_every_session(store_url: str) -> None:
    with HistoryStore.from_url(store_url) as store:
        store.add_user("alice", PASSWORD)
        live = {}
        for number, end in enumerate(("passwd", "disable", "admin", "remove")):
            sid = f"session-{number}"
            store.open_web_session(sid, token_tag="t", user_name="alice",
                                   expires_at=T0 + timedelta(days=1), now=T0)
            live[end] = sid
        def user_of(sid: str) -> str | None:
            found = store.web_session_user(sid, token_tag="t", idle_s=3600,
                                           now=T0 + timedelta(minutes=1))
            return found.name if found else None
        assert all(user_of(sid) == "alice" for sid in live.values())
        store.set_password("alice", "another password")
        assert [user_of(sid) for sid in live.values()] == [None] * 4
        sid = "fresh"
        store.open_web_session(sid, token_tag="t", user_name="alice",
                               expires_at=T0 + timedelta(days=1), now=T0)
        assert user_of(sid) == "alice"
        assert store.end_sessions("alice") == 1 and user_of(sid) is None
        store.open_web_session("again", token_tag="t", user_name="alice",
                               expires_at=T0 + timedelta(days=1), now=T0)
        store.set_disabled("alice", True)
        assert user_of("again") is None
        store.set_disabled("alice", False)
        assert user_of("again") is None  # enabling does not bring a session back


def test_an_idle_session_ends_before_its_expiry(store_url: str) -> None:
    with HistoryStore.from_url(store_url) as store:
        store.add_user("alice", PASSWORD)
        store.open_web_session("s", token_tag="t", user_name="alice",
                               expires_at=T0 + timedelta(days=7), now=T0)
        seen = store.web_session_user("s", token_tag="t", idle_s=600,
                                      now=T0 + timedelta(minutes=9))
        assert seen is not None  # use moves the idle limit on
        assert store.web_session_user("s", token_tag="t", idle_s=600,
                                      now=T0 + timedelta(minutes=18)) is not None
        assert store.web_session_user("s", token_tag="t", idle_s=600,
                                      now=T0 + timedelta(minutes=29)) is None
        assert store.web_session_user("s", token_tag="other", idle_s=600,
                                      now=T0 + timedelta(minutes=1)) is None


def test_the_server_secret_is_one_for_every_process(store_url: str) -> None:
    with HistoryStore.from_url(store_url) as one, HistoryStore.from_url(store_url) as two:
        first = one.server_secret("web-session-key")
        assert len(first) == 64 and two.server_secret("web-session-key") == first
        assert one.server_secret("other") != first
