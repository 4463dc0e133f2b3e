"""Watches in the store, on SQLite and on a real PostgreSQL: schedules, exactly-once
claims of due watches (threads, two processes), a missed slot run once after a restart,
the outbox's leases and retries, feed tokens, who sees which watch, the 0006 upgrade."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from deepcite.config import Settings, load_settings
from deepcite.errors import BudgetError, InputError, UnknownWatchError
from deepcite.store import HistoryStore
from deepcite.store.engine import create_store_engine
from deepcite.store.migrate import upgrade
from deepcite.store.user_rights import Access
from deepcite.store.watch_records import WatchInfo
from deepcite.watches.schedule import parse_schedule
from tests.unit.postgres_fixture import postgres_server, postgres_url  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
HOUR = timedelta(hours=1)
T0 = datetime(2026, 3, 2, 6, 0, tzinfo=UTC)  # a Monday


def hourly(watch: WatchInfo, now: datetime) -> datetime | None:
    return parse_schedule(watch.schedule).next_after(now, anchor=watch.next_run_at)


def add(store: HistoryStore, due: datetime | None, *, schedule: str = "every 1h",
        owner: int | None = None) -> WatchInfo:
    watch, _ = store.add_watch(name="w", request={"question": "Why?"}, schedule=schedule,
                               targets=[], next_run_at=due, owner_id=owner)
    return watch


# ---------------------------------------------------------------------------- schedules


@pytest.mark.parametrize(("text", "normal", "after"), [
    ("every 30m", "every 30m", T0 + timedelta(minutes=30)),
    ("Every  6H", "every 6h", T0 + 6 * HOUR),
    ("every 1d", "every 1d", T0 + timedelta(days=1)),
    ("every 2w", "every 2w", T0 + timedelta(weeks=2)),
    ("0 6 * * 1-5", "0 6 * * 1-5", T0 + timedelta(days=1)),  # crontab's Monday-Friday
    ("0 6 * * 0", "0 6 * * 0", T0 + timedelta(days=6)),  # Sunday, as in crontab
    ("*/15 * * * *", "*/15 * * * *", T0 + timedelta(minutes=15)),
    ("30 7 1 * *", "30 7 1 * *", datetime(2026, 4, 1, 7, 30, tzinfo=UTC)),
])
def test_schedules_parse_and_give_the_next_slot(text: str, normal: str,
                                                after: datetime) -> None:
    schedule = parse_schedule(text)
    assert schedule.text == normal
    assert schedule.next_after(T0) == after


def test_interval_slots_keep_their_rhythm_and_skip_missed_ones() -> None:
    every = parse_schedule("every 6h")
    anchor = T0 - timedelta(days=3)  # due three days ago: 12 slots missed
    assert every.next_after(T0 + timedelta(minutes=5), anchor=anchor) == T0 + 6 * HOUR


def test_on_demand_has_no_slot() -> None:
    for text in ("on demand", "manual", "On-Demand"):
        assert parse_schedule(text).manual
        assert parse_schedule(text).next_after(T0) is None


@pytest.mark.parametrize("text", ["", "hourly", "every 30s", "every 0m", "every 5y",
                                  "61 * * * *", "* * * *", "0 6 * * 8", "every 9999999w"])
def test_a_bad_schedule_is_one_line_naming_the_forms(text: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_schedule(text)
    message = str(refused.value)
    assert "\n" not in message and "every 30m" in message and "on demand" in message


# ------------------------------------------------------------------------- exactly once


def test_due_watches_are_claimed_once_by_many_threads(store: HistoryStore,
                                                      store_url: str) -> None:
    now = datetime.now(UTC)
    ids = {add(store, now - timedelta(minutes=n)).id for n in range(20)}
    add(store, now + HOUR)  # not due
    claimed: list[list[str]] = [[] for _ in range(6)]
    with HistoryStore.from_url(store_url) as other:
        stores = [store, other] * 3
        start = threading.Barrier(6)

        def claim(index: int) -> None:
            start.wait()
            claimed[index] = [w.id for w in stores[index].claim_due_watches(now, hourly)]

        threads = [threading.Thread(target=claim, args=(i,)) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    every = [watch_id for batch in claimed for watch_id in batch]
    assert sorted(every) == sorted(ids)  # each due watch once, by one thread
    assert store.claim_due_watches(now, hourly) == []


_CLAIMER = """
import json, sys, time
from datetime import UTC, datetime
from deepcite.store import HistoryStore
from deepcite.watches.schedule import parse_schedule
now = datetime.fromisoformat(sys.argv[2])
while time.time() < float(sys.argv[3]):
    time.sleep(0.001)
got = []
with HistoryStore.from_url(sys.argv[1]) as store:
    for _ in range(3):
        got += [w.id for w in store.claim_due_watches(
            now, lambda w, n: parse_schedule(w.schedule).next_after(n, anchor=w.next_run_at))]
print(json.dumps(got))
"""


def test_due_watches_are_claimed_once_by_two_processes(store: HistoryStore,
                                                       store_url: str) -> None:
    import time

    now = datetime.now(UTC)
    ids = {add(store, now - timedelta(seconds=n)).id for n in range(40)}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    start = str(time.time() + 3.0)  # both begin together, once Python is up
    processes = [subprocess.Popen([sys.executable, "-c", _CLAIMER, store_url,
                                   now.isoformat(), start], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [process.communicate(timeout=120) for process in processes]
    for process, (_, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err
    batches = [json.loads(out) for out, _ in outputs]
    every = [watch_id for batch in batches for watch_id in batch]
    assert sorted(every) == sorted(ids)


def test_a_missed_watch_runs_once_after_a_restart(store_url: str) -> None:
    with HistoryStore.from_url(store_url) as store:
        now = datetime.now(UTC)
        watch = add(store, now - timedelta(days=2))  # 48 hourly slots missed while down
    with HistoryStore.from_url(store_url) as restarted:  # everything comes back
        [claimed] = restarted.claim_due_watches(now, hourly)
        assert claimed.id == watch.id
        assert restarted.claim_due_watches(now + timedelta(minutes=1), hourly) == []
        following = restarted.watch(watch.id).next_run_at
        assert following is not None and now < following <= now + HOUR


def test_paused_and_on_demand_watches_are_never_due(store: HistoryStore) -> None:
    now = datetime.now(UTC)
    paused = add(store, now - HOUR)
    store.update_watch(paused.id, status="paused")
    add(store, None, schedule="on demand")
    assert store.claim_due_watches(now, hourly) == []
    store.update_watch(paused.id, status="active")
    assert [w.id for w in store.claim_due_watches(now, hourly)] == [paused.id]


# ------------------------------------------------------------------------------ outbox


def _finished_run(store: HistoryStore, watch: WatchInfo, targets: int = 1) -> int:
    run_id = store.begin("Why?", mode="quick", settings=_settings())
    store.fail(run_id, "test")
    watch_run = store.record_watch_run(watch.id, run_id, trigger="manual")
    notice = {"summary": "x"}
    assert store.finish_watch_run(
        watch_run.id, status="done", summary="x",
        deliveries=[("webhook", {"kind": "webhook", "url": f"https://h.example/{n}"}, notice)
                    for n in range(targets)])
    assert not store.finish_watch_run(watch_run.id, status="done", summary="again",
                                      deliveries=[("webhook", {}, notice)])
    return watch_run.id


def _settings() -> Settings:
    return load_settings({}, config_files=[], environ={})


def test_a_watch_run_is_finished_once_and_its_deliveries_leased_once(
        store: HistoryStore, store_url: str) -> None:
    watch = add(store, None)
    _finished_run(store, watch, targets=12)
    assert len(store.deliveries(watch.id)) == 12  # the second finish queued nothing
    now = datetime.now(UTC)
    leased: list[list[int]] = [[] for _ in range(4)]
    with HistoryStore.from_url(store_url) as other:
        stores = [store, other, store, other]
        start = threading.Barrier(4)

        def lease(index: int) -> None:
            start.wait()
            leased[index] = [d.id for d in stores[index].claim_due_deliveries(now)]

        threads = [threading.Thread(target=lease, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    every = sorted(d for batch in leased for d in batch)
    assert every == sorted(d.id for d in store.deliveries(watch.id))
    assert store.claim_due_deliveries(now) == []
    # a sender that died mid-send: the lease runs out and it is tried again
    later = store.claim_due_deliveries(now + timedelta(minutes=6))
    assert len(later) == 12 and {d.attempts for d in later} == {2}


def test_retries_back_off_then_fail(store: HistoryStore) -> None:
    watch = add(store, None)
    _finished_run(store, watch)
    now = datetime.now(UTC)
    [delivery] = store.claim_due_deliveries(now)
    assert store.mark_delivery(delivery.id, "retry", error="503", max_attempts=2,
                               now=now) == "pending"
    assert store.claim_due_deliveries(now + timedelta(seconds=30)) == []  # backing off
    [again] = store.claim_due_deliveries(now + timedelta(minutes=2))
    assert store.mark_delivery(again.id, "retry", error="503 again", max_attempts=2) == "failed"
    [gone] = store.deliveries(watch.id)
    assert (gone.status, gone.attempts, gone.last_error) == ("failed", 2, "503 again")


# ---------------------------------------------------------------------- tokens, access


def test_feed_tokens_are_kept_as_hashes_and_rotate(store: HistoryStore,
                                                   store_url: str) -> None:
    watch, token = store.add_watch(name="w", request={"question": "Why?"},
                                   schedule="on demand", targets=[], next_run_at=None)
    engine = create_store_engine(store_url)
    try:
        with engine.connect() as connection:
            kept = connection.execute(sa.text("SELECT feed_token_hash FROM watches")).scalar()
    finally:
        engine.dispose()
    assert kept and token not in kept and len(kept) == 64
    assert store.watch_for_feed_token(token) == watch
    fresh = store.rotate_feed_token(watch.id)
    assert store.watch_for_feed_token(token) is None
    assert store.watch_for_feed_token(fresh) is not None
    assert store.watch_for_feed_token("not a token") is None


def test_each_user_sees_only_their_watches(store: HistoryStore) -> None:
    ann = store.add_user("ann", "correct horse battery")
    bob = store.add_user("bob", "correct horse battery")
    mine = add(store, None, owner=ann.id)
    theirs = add(store, None, owner=bob.id)
    as_ann = Access(user_id=ann.id, name="ann")
    assert [w.id for w in store.watches(as_ann)] == [mine.id]
    assert store.watch(mine.id[:6], as_ann).id == mine.id
    for attempt in (lambda: store.watch(theirs.id, as_ann),
                    lambda: store.remove_watch(theirs.id, as_ann),
                    lambda: store.update_watch(theirs.id, as_ann, status="paused")):
        with pytest.raises(UnknownWatchError):
            attempt()
    admin = Access(user_id=99, admin=True)
    assert {w.id for w in store.watches(admin)} == {mine.id, theirs.id}
    with pytest.raises(UnknownWatchError, match="too short"):
        store.watch("ab")


def test_an_owner_may_have_so_many_watches(store: HistoryStore) -> None:
    def more() -> WatchInfo:
        watch, _ = store.add_watch(name="w", request={"question": "Why?"},
                                   schedule="on demand", targets=[], next_run_at=None,
                                   owner_id=7, max_per_owner=2)
        return watch

    more()
    more()
    with pytest.raises(BudgetError, match="max_watches_per_owner = 2"):
        more()


def test_removing_a_watch_keeps_its_runs(store: HistoryStore) -> None:
    watch = add(store, None)
    _finished_run(store, watch)
    [run] = store.watch_runs(watch.id)
    assert store.remove_watch(watch.id[:8]) == watch.id
    assert store.watch_runs(watch.id) == [] and store.deliveries(watch.id) == []
    assert run.run_id is not None and store.get(run.run_id).id == run.run_id


def test_upgrading_from_0006_adds_the_watch_tables(store_url: str) -> None:
    engine = create_store_engine(store_url)
    try:
        upgrade(engine, "0006")
        with engine.connect() as connection:
            assert not sa.inspect(connection).has_table("watches")
    finally:
        engine.dispose()
    with HistoryStore.from_url(store_url) as store:
        assert store.watches() == []
        add(store, None)
        assert len(store.watches()) == 1
