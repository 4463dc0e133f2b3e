"""A user's whole life in the store, on SQLite and on a real PostgreSQL: ids never reused
(after removing the newest user, after reopening, after upgrading an old store whose
rows still name removed ids), removal that deletes or hands over everything the user
owns - and refuses without that choice -, a disabled owner's watches neither due nor
fed, and a password change that ends the user's API tokens."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from deepcite.errors import InputError, UnknownUserError, UserOwnsDataError
from deepcite.store import HistoryStore
from deepcite.store.engine import create_store_engine
from deepcite.store.migrate import upgrade
from deepcite.store.models import Run
from deepcite.store.user_rights import access_of
from deepcite.store.watch_records import WatchInfo
from deepcite.watches.schedule import parse_schedule
from tests.unit.postgres_fixture import postgres_server, postgres_url  # noqa: F401
from tests.unit.test_store import scalar

PASSWORD = "correct horse"
NOW = datetime(2026, 3, 2, 6, 0, tzinfo=UTC)
WATCH_ID = "a" * 32


def insert_run(store: HistoryStore, owner: int | None, request: Any = None) -> str:
    run_id = uuid.uuid4().hex
    with store._engine.begin() as connection:
        connection.execute(sa.insert(Run).values(
            id=run_id, question="q", mode="quick", status="completed",
            created_at=datetime.now(UTC), settings={}, cancelled=False, warnings=[],
            warning_codes=[], unsupported_sentences=[], outline=[],
            questions_by_iteration={}, findings=[], search_text="q", owner_id=owner,
            request=request))
    return run_id


def add_watch(store: HistoryStore, owner: int | None, *, name: str = "w",
              due: datetime | None = NOW) -> tuple[WatchInfo, str]:
    request: dict[str, Any] = {"question": "Why?"}
    if owner is not None:
        request["owner"] = {"id": owner, "name": "someone"}
    return store.add_watch(name=name, request=request, schedule="every 1h",
                           targets=[{"kind": "webhook", "url": "https://hooks.example/a"}],
                           next_run_at=due, owner_id=owner)


def hourly(watch: WatchInfo, now: datetime) -> datetime | None:
    return parse_schedule(watch.schedule).next_after(now, anchor=watch.next_run_at)


def watch_run_with_delivery(store: HistoryStore, watch: WatchInfo) -> tuple[int, int]:
    """A finished watch run of ``watch`` with one pending delivery; their ids."""
    run_id = insert_run(store, watch.owner_id)
    made = store.record_watch_run(watch.id, run_id, trigger="manual", now=NOW)
    store.finish_watch_run(made.id, status="done", summary="s", now=NOW, deliveries=[
        ("webhook", {"kind": "webhook", "url": "https://hooks.example/a"}, {"n": 1})])
    newest = store.deliveries(watch.id)[0]
    return made.id, newest.id


def owning_everything(store: HistoryStore) -> dict[str, Any]:
    """bob owns three runs (one his watch's), a watch (with a delivery), a private and a
    shared collection, a token and a session; alice shared her collection with him."""
    bob = store.add_user("bob", PASSWORD)
    alice = store.add_user("alice", PASSWORD)
    runs = {insert_run(store, bob.id), insert_run(store, bob.id, {"question": "q",
                                                                  "owner": {"id": bob.id,
                                                                            "name": "bob"}})}
    watch, feed = add_watch(store, bob.id)
    watch_run_with_delivery(store, watch)
    store.set_collection_owner("bobs-secrets", bob.id)
    store.register_collection("bobs-secrets", backend="sqlite", location="/x",
                              documents=1, chunks=1, settings={})
    store.set_collection_owner("bobs-shared", bob.id)
    store.share_collection("bobs-shared", add_users=["alice"])
    store.set_collection_owner("alices", alice.id)
    store.share_collection("alices", add_users=["bob"])
    token = store.create_token("bob", "laptop")
    store.open_web_session("bob-session", token_tag="t", user_name="bob",
                           expires_at=datetime.now(UTC) + timedelta(days=1))
    return {"bob": bob, "alice": alice, "runs": runs, "watch": watch, "feed": feed,
            "token": token}


# --------------------------------------------------------------------------- ids


def test_the_newest_users_id_is_never_given_again(store_url: str) -> None:
    with HistoryStore.from_url(store_url) as store:
        store.add_user("alice", PASSWORD)
        bob = store.add_user("bob", PASSWORD)
        store.remove_user("bob")
        carol = store.add_user("carol", PASSWORD)
        assert carol.id > bob.id
        store.remove_user("carol")
    with HistoryStore.from_url(store_url) as reopened:  # a restart changes nothing
        dave = reopened.add_user("dave", PASSWORD)
        assert dave.id > carol.id


def test_token_watch_run_and_delivery_ids_are_never_given_again(store: HistoryStore) -> None:
    store.add_user("bob", PASSWORD)
    store.create_token("bob", "one")
    store.create_token("bob", "two")
    newest = store.tokens("bob")[-1].id
    store.remove_user("bob")
    store.add_user("carol", PASSWORD)
    store.create_token("carol")
    assert store.tokens("carol")[0].id > newest

    watch, _ = add_watch(store, None)
    run_id, delivery_id = watch_run_with_delivery(store, watch)
    store.remove_watch(watch.id)
    again, _ = add_watch(store, None)
    later_run, later_delivery = watch_run_with_delivery(store, again)
    # a sender still holding the old delivery's id cannot mark the new one
    assert later_run > run_id and later_delivery > delivery_id


def test_upgrading_an_old_store_keeps_its_rows_and_skips_every_named_id(store_url: str) -> None:
    engine = create_store_engine(store_url)
    upgrade(engine, "0007")
    rows = {
        "users": [{"id": i, "name": n, "name_key": n, "password_hash": "x", "is_admin": False,
                   "disabled": False, "created_at": NOW} for i, n in ((1, "ann"), (2, "ben"))],
        "api_tokens": [{"id": i, "user_id": i, "name": "t", "token_hash": c * 64,
                        "created_at": NOW} for i, c in ((1, "a"), (2, "b"))],
        # users 7 and 9 were removed long ago and are still named: shared with, owning a run
        "collection_access": [{"name": "old", "owner_id": 2, "shared_all": False,
                               "shared_with": [1, 7], "updated_at": NOW}],
        "watches": [{"id": WATCH_ID, "name": "w", "owner_id": 1, "request": {"q": 1},
                     "schedule": "every 1h", "targets": [], "status": "active",
                     "created_at": NOW, "updated_at": NOW}],
        "watch_runs": [{"id": 4, "watch_id": WATCH_ID, "trigger": "manual", "status": "done",
                        "created_at": NOW, "nothing_new": False}],
        "watch_deliveries": [{"id": 5, "watch_run_id": 4, "watch_id": WATCH_ID,
                              "kind": "webhook", "target": {}, "notice": {},
                              "status": "pending", "attempts": 0, "created_at": NOW}],
    }
    json_columns = {"shared_with", "request", "targets", "target", "notice"}
    with engine.begin() as connection:
        for table, values in rows.items():
            columns = [sa.column(c, sa.JSON if c in json_columns else
                                 sa.DateTime(timezone=True) if c.endswith("_at") else None)
                       for c in values[0]]
            connection.execute(sa.insert(sa.table(table, *columns)), values)
    engine.dispose()
    with HistoryStore.from_url(store_url) as store:
        insert_run(store, 9)  # stands for a run kept from before: see below
    _back_to_0007(store_url)  # so that the upgrade sees the run naming user 9 too
    with HistoryStore.from_url(store_url) as store:
        # the rebuild kept every child row (dropping a parent cascades on SQLite)
        assert [t.id for t in store.tokens("ann")] == [1]
        assert [t.id for t in store.tokens("ben")] == [2]
        assert [d.id for d in store.deliveries(WATCH_ID)] == [5]
        assert store.collection_sharing("old").users == ["ann"]
        newcomer = store.add_user("newcomer", PASSWORD)
        assert newcomer.id == 10  # above user 9, whom a run still names
        store.remove_user("newcomer")
        assert store.add_user("later", PASSWORD).id == 11
        store.create_token("ann")
        assert store.tokens("ann")[-1].id == 3
        watch = store.watch(WATCH_ID)
        assert watch_run_with_delivery(store, watch) == (5, 6)
    if store_url.startswith("sqlite"):
        sql = scalar(store_url, "SELECT sql FROM sqlite_master WHERE name = 'users'")
        assert "AUTOINCREMENT" in sql


def _back_to_0007(store_url: str) -> None:
    """Put the store back at 0007 - 0008 changes no column, 0009's three holder columns
    and 0010's claims are dropped - so that the next open runs 0008 (and those after it)
    over the rows as they are now."""
    engine = create_store_engine(store_url)
    with engine.begin() as connection:
        for column in ("claims", "holder_started", "holder_pid", "holder_host"):
            connection.execute(sa.text(f"ALTER TABLE runs DROP COLUMN {column}"))
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '0007'"))
    engine.dispose()


# --------------------------------------------------------------------------- removal


def test_removing_a_user_who_owns_something_needs_a_choice(store: HistoryStore) -> None:
    made = owning_everything(store)
    with pytest.raises(UserOwnsDataError, match=(
            r"User 'bob' owns 3 runs, 1 watch and 2 collections - say whether to delete")):
        store.remove_user("bob")
    assert store.user("bob").id == made["bob"].id  # nothing was done
    assert store.watch_for_feed_token(made["feed"]) is not None
    owned = store.user_belongings("bob")
    assert (owned.runs, owned.watches, owned.collections, owned.tokens) == (
        3, 1, ["bobs-secrets", "bobs-shared"], 1)
    with pytest.raises(InputError, match="not both"):
        store.remove_user("bob", delete_data=True, transfer_to="alice")
    with pytest.raises(InputError, match="name another user"):
        store.remove_user("bob", transfer_to="BOB")
    with pytest.raises(UnknownUserError, match="No user 'nobody'"):
        store.remove_user("bob", transfer_to="nobody")
    store.add_user("idle", PASSWORD)
    assert store.remove_user("idle").owned.summary() == "nothing"  # owns nothing: no choice


def test_delete_data_leaves_nothing_a_later_user_could_reach(store: HistoryStore,
                                                             store_url: str) -> None:
    made = owning_everything(store)
    removal = store.remove_user("bob", delete_data=True)
    assert removal.delete_collections == ["bobs-secrets", "bobs-shared"]
    assert removal.transferred_to is None
    carol = store.add_user("carol", PASSWORD)
    assert carol.id != made["bob"].id
    carols = access_of(carol)
    assert store.readable_collections(carols, ["bobs-secrets", "bobs-shared"]) == set()
    assert not store.may_change_collection(carols, "bobs-secrets")
    assert store.collection_sharing("bobs-secrets").owner is None
    assert "bobs-secrets" not in {entry.name for entry in store.collections()}
    assert store.collection_sharing("alices").users == []  # his share is gone too
    everything = {run.id for run in store.list()}
    assert everything.isdisjoint(made["runs"])
    assert store.watches() == []
    assert store.watch_for_feed_token(made["feed"]) is None
    assert store.claim_due_watches(NOW + timedelta(days=1), hourly) == []
    assert store.claim_due_deliveries(NOW + timedelta(days=1)) == []
    assert store.token_owner(made["token"]) is None
    assert scalar(store_url, "SELECT count(*) FROM web_sessions WHERE user_name = 'bob'") == 0
    assert scalar(store_url, "SELECT count(*) FROM api_tokens") == 0


def test_transfer_to_hands_everything_to_the_named_user(store: HistoryStore) -> None:
    made = owning_everything(store)
    alice = made["alice"]
    removal = store.remove_user("bob", transfer_to="ALICE")
    assert (removal.transferred_to, removal.delete_collections) == ("alice", [])
    alices = access_of(store.user("alice"))
    assert made["runs"] <= {run.id for run in store.list(access=alices)}
    queued = [store.get(run_id) for run_id in made["runs"]]
    assert [r.request["owner"] for r in queued if r.request] == [
        {"id": alice.id, "name": "alice"}]
    [watch] = store.watches(alices)
    assert (watch.id, watch.owner_id, watch.status) == (made["watch"].id, alice.id, "paused")
    assert watch.request["owner"] == {"id": alice.id, "name": "alice"}
    assert not watch.has_feed_token  # bob's feed address is closed
    assert store.watch_for_feed_token(made["feed"]) is None
    assert len(store.watch_runs(watch.id)) == 1
    assert store.collection_sharing("bobs-secrets").owner == "alice"
    assert store.may_change_collection(alices, "bobs-secrets")
    shared = store.collection_sharing("bobs-shared")
    assert (shared.owner, shared.users) == ("alice", [])  # her own now, not shared with her
    assert store.collection_sharing("alices").users == []
    assert store.token_owner(made["token"]) is None
    assert store.user_belongings("alice").runs == 3  # all of his


# --------------------------------------------------------------------------- disabled


def test_a_disabled_owners_watches_are_not_due_have_no_feed_and_send_nothing(
        store: HistoryStore) -> None:
    bob = store.add_user("bob", PASSWORD)
    watch, feed = add_watch(store, bob.id)
    unowned, _ = add_watch(store, None, name="unowned")
    _, delivery = watch_run_with_delivery(store, watch)
    store.set_disabled("bob", True)
    later = NOW + timedelta(minutes=1)
    assert [w.id for w in store.claim_due_watches(later, hourly)] == [unowned.id]
    assert store.watch_for_feed_token(feed) is None
    assert store.claim_due_deliveries(later) == []
    store.set_disabled("bob", False)  # enabled again: the missed slot runs once
    assert [w.id for w in store.claim_due_watches(later, hourly)] == [watch.id]
    assert store.claim_due_watches(later, hourly) == []
    assert store.watch_for_feed_token(feed) is not None
    assert [d.id for d in store.claim_due_deliveries(later)] == [delivery]


# --------------------------------------------------------------------------- passwords


def test_a_password_change_revokes_the_users_tokens(store: HistoryStore) -> None:
    store.add_user("bob", PASSWORD)
    store.add_user("alice", PASSWORD)
    tokens = [store.create_token("bob", label) for label in ("laptop", "ci")]
    alices = store.create_token("alice")
    store.revoke_token("bob", store.tokens("bob")[0].id)
    assert store.set_password("bob", "a new password") == 1  # the one still live
    assert all(store.token_owner(token) is None for token in tokens)
    assert store.user("bob").tokens == 0
    assert store.token_owner(alices) is not None
    assert store.set_password("bob", "another password") == 0
    fresh = store.create_token("bob")
    assert store.token_owner(fresh) is not None
