"""Queued runs, workers, the reaper and the collection registry, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from deepcite.config import Settings
from deepcite.errors import StoreError
from deepcite.store import HistoryStore
from deepcite.store.engine import create_store_engine
from deepcite.store.migrate import HEAD_REVISION, current_revision, upgrade
from deepcite.store.models import Base, Run
from deepcite.types import Event, PhaseStarted, RunWarning, SearchDone
from tests.unit import postgres_fixture
from tests.unit.postgres_fixture import postgres_server, postgres_url  # noqa: F401
from tests.unit.test_store import quick_result, scalar

REQUEST = {"question": "Why is the sky blue?", "mode": "quick", "engines": ["arxiv"]}


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    made: Settings = make_settings()
    return made


def enqueue(store: HistoryStore, settings: Settings, question: str = "Why is the sky blue?"
            ) -> str:
    return store.enqueue(question, mode="quick", settings=settings, request=REQUEST)


def age(store: HistoryStore, run_id: str, seconds: float = 600) -> None:
    """Make the run's heartbeat ``seconds`` old, as if its worker went silent."""
    with store._engine.begin() as connection:
        connection.execute(sa.update(Run).where(Run.id == run_id).values(
            heartbeat_at=datetime.now(UTC) - timedelta(seconds=seconds)))


def in_threads(count: int, work: Callable[[int], None]) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(count)

    def run(index: int) -> None:
        start.wait()
        try:
            work(index)
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


# ------------------------------------------------------------------------ state machine


def test_a_queued_run_is_claimed_kept_alive_and_finished(store: HistoryStore,
                                                         settings: Settings) -> None:
    run_id = enqueue(store, settings)
    state = store.run_state(run_id)
    assert (state.status, state.attempts, state.worker, state.heartbeat_at) == (
        "queued", 0, None, None)
    assert store.queued_ids() == [run_id]
    assert [(s.id, s.status) for s in store.list()] == [(run_id, "queued")]
    assert store.get(run_id[:8]).status == "queued"

    claimed = store.claim(run_id, "w1")
    assert claimed is not None
    assert (claimed.id, claimed.question, claimed.mode, claimed.request, claimed.attempts) == (
        run_id, "Why is the sky blue?", "quick", REQUEST, 1)
    assert claimed.settings["llm"]["api_key"] is None
    assert store.claim(run_id, "w2") is None
    assert store.queued_ids() == []
    state = store.run_state(run_id)
    assert (state.status, state.worker, state.attempts) == ("running", "w1", 1)
    assert state.heartbeat_at is not None

    assert store.heartbeat(run_id, "w1") is True
    assert store.heartbeat(run_id, "w2") is False
    store.finish(run_id, quick_result(), worker="w1")
    assert store.run_state(run_id).status == "completed"
    assert store.heartbeat(run_id, "w1") is False
    assert len(store.get(run_id).result.sources) == 2


def test_only_the_holding_worker_can_end_a_run(store: HistoryStore, settings: Settings) -> None:
    run_id = enqueue(store, settings)
    assert store.claim(run_id, "w1") is not None
    ends: list[Callable[[], None]] = [
        lambda: store.finish(run_id, quick_result(), worker="w2"),
        lambda: store.fail(run_id, "boom", worker="w2"),
        lambda: store.interrupt(run_id, worker="w2")]
    for end in ends:
        with pytest.raises(StoreError, match="no longer held by this worker") as caught:
            end()
        assert "\n" not in str(caught.value)
    assert store.run_state(run_id).status == "running"
    store.fail(run_id, "boom", worker="w1")
    state = store.run_state(run_id)
    assert (state.status, state.error) == ("failed", "boom")
    with pytest.raises(StoreError, match="no longer held"):
        store.finish(run_id, quick_result(), worker="w1")


def test_cancelling_queued_and_running_runs(store: HistoryStore, settings: Settings) -> None:
    queued = enqueue(store, settings)
    assert store.request_cancel(queued) is True
    state = store.run_state(queued)
    assert (state.status, state.finished_at is not None) == ("cancelled", True)
    assert store.get(queued).result.cancelled is True
    assert store.claim(queued, "w1") is None
    assert store.request_cancel(queued) is False

    running = enqueue(store, settings)
    store.claim(running, "w1")
    assert store.request_cancel(running) is True
    state = store.run_state(running)
    assert (state.status, state.cancel_requested) == ("running", True)
    with pytest.raises(StoreError, match="No run"):
        store.request_cancel(uuid.uuid4().hex)


def test_run_state_needs_the_full_id(store: HistoryStore, settings: Settings) -> None:
    run_id = enqueue(store, settings)
    with pytest.raises(StoreError, match=r"No run .* in the history") as caught:
        store.run_state(run_id[:8])
    assert "\n" not in str(caught.value)


def test_queued_ids_are_oldest_first(store: HistoryStore, settings: Settings) -> None:
    ids = [enqueue(store, settings, f"Question {n}?") for n in range(3)]
    assert store.queued_ids() == ids
    assert store.queued_ids(limit=2) == ids[:2]


def test_mark_interrupted_leaves_queued_and_worker_held_runs_alone(
        store: HistoryStore, store_url: str, settings: Settings) -> None:
    queued = enqueue(store, settings)
    held = enqueue(store, settings)
    store.claim(held, "w1")
    age(store, held)
    with HistoryStore.from_url(store_url) as other:  # an in-process run of another process
        in_process = other.begin("In process?", mode="quick", settings=settings)
        assert store.mark_interrupted(stale_after_s=0) == [in_process]
    assert store.run_state(queued).status == "queued"
    assert store.run_state(held).status == "running"
    assert store.reap(timeout_s=0, max_attempts=2) == [(held, "requeued")]


def test_the_reaper_never_requeues_an_in_process_run(store: HistoryStore, store_url: str,
                                                     settings: Settings) -> None:
    with HistoryStore.from_url(store_url) as other:
        in_process = other.begin("In process?", mode="quick", settings=settings)
        assert store.reap(timeout_s=0, max_attempts=2) == []  # it has no request to run
        assert store.run_state(in_process).status == "running"


# ------------------------------------------------------------------------------ events


def test_events_are_appended_now_and_read_back_in_order(store: HistoryStore,
                                                        settings: Settings) -> None:
    run_id = enqueue(store, settings)
    assert store.append_events(run_id, []) == 0
    first: list[Event] = [PhaseStarted(phase="search"),
                          SearchDone(iteration=1, query="q", engine="arxiv", results=1,
                                     seconds=0.5)]
    assert store.append_events(run_id, first) == 2
    assert store.append_events(run_id, [RunWarning(code="engine_failed", message="m")]) == 3
    assert store.append_events(run_id, []) == 3
    got = store.events_after(run_id)
    assert [seq for seq, _ in got] == [1, 2, 3]
    assert [event.kind for _, event in got] == ["phase_started", "search_done", "warning"]
    assert got[0][1] == first[0]
    assert [seq for seq, _ in store.events_after(run_id, after=1, limit=1)] == [2]
    assert store.events_after(run_id, after=3) == []
    assert [e.kind for e in store.get(run_id).events] == [e.kind for _, e in got]
    with pytest.raises(StoreError, match="not in the history"):
        store.append_events(uuid.uuid4().hex, first)


def test_appends_from_many_threads_and_stores_leave_no_gaps(
        store: HistoryStore, store_url: str, settings: Settings) -> None:
    run_id = enqueue(store, settings)
    with HistoryStore.from_url(store_url) as other:  # a second process, as far as the db knows
        stores = [store, other, store, other]

        def append(index: int) -> None:
            for n in range(50):
                stores[index].append_events(run_id, [SearchDone(
                    iteration=1, query=f"{index}-{n}", engine="arxiv", results=n,
                    seconds=0.1)])

        in_threads(4, append)
    got = store.events_after(run_id, limit=1000)
    assert [seq for seq, _ in got] == list(range(1, 201))
    queries = [event.query for _, event in got if isinstance(event, SearchDone)]
    assert len(set(queries)) == 200
    for index in range(4):  # each thread's events in its own order
        mine = [q for q in queries if q.startswith(f"{index}-")]
        assert mine == [f"{index}-{n}" for n in range(50)]


def test_buffered_events_follow_appended_ones(store: HistoryStore, settings: Settings) -> None:
    run_id = store.begin("Mixed?", mode="quick", settings=settings)
    store.append_events(run_id, [PhaseStarted(phase="search")])
    store.record_event(run_id, PhaseStarted(phase="synthesis"))
    store.finish(run_id, quick_result("Mixed?"))
    assert [seq for seq, _ in store.events_after(run_id)] == [1, 2]


# ------------------------------------------------------------------------------ reaper


def warnings_of(store: HistoryStore, run_id: str) -> list[str]:
    return [event.message for _, event in store.events_after(run_id)
            if isinstance(event, RunWarning) and event.code == "run_failed"]


def test_reap_requeues_once_then_interrupts(store: HistoryStore, settings: Settings) -> None:
    run_id = enqueue(store, settings)
    fresh = enqueue(store, settings, "Still alive?")
    store.claim(run_id, "w1")
    store.claim(fresh, "w9")
    assert store.reap(30, 2) == []
    age(store, run_id)
    assert store.reap(30, 2) == [(run_id, "requeued")]
    state = store.run_state(run_id)
    assert (state.status, state.worker, state.attempts) == ("queued", None, 1)
    assert store.run_state(fresh).status == "running"
    assert warnings_of(store, run_id) == [
        "The worker running this run stopped answering; it was re-queued (attempt 2 of 2)"]
    assert store.heartbeat(run_id, "w1") is False
    with pytest.raises(StoreError, match="no longer held"):
        store.finish(run_id, quick_result(), worker="w1")
    assert store.queued_ids() == [run_id]

    claimed = store.claim(run_id, "w2")
    assert claimed is not None and claimed.attempts == 2
    age(store, run_id)
    assert store.reap(30, 2) == [(run_id, "interrupted")]
    state = store.run_state(run_id)
    assert (state.status, state.finished_at is not None) == ("interrupted", True)
    assert warnings_of(store, run_id)[-1] == (
        "The worker running this run stopped answering; it was marked interrupted")
    with pytest.raises(StoreError, match="no longer held"):
        store.finish(run_id, quick_result(), worker="w2")
    assert store.reap(30, 2) == []


def test_a_run_asked_to_cancel_is_not_requeued(store: HistoryStore, settings: Settings) -> None:
    run_id = enqueue(store, settings)
    store.claim(run_id, "w1")
    store.request_cancel(run_id)
    age(store, run_id)
    assert store.reap(30, 5) == [(run_id, "interrupted")]


def test_concurrent_reapers_take_each_run_once(store: HistoryStore, store_url: str,
                                               settings: Settings) -> None:
    ids = [enqueue(store, settings, f"Run {n}?") for n in range(12)]
    for n, run_id in enumerate(ids):
        store.claim(run_id, f"w{n}")
        age(store, run_id)
    with store._engine.begin() as connection:  # a second try already: interrupted
        connection.execute(sa.update(Run).where(Run.id.in_(ids[::3])).values(attempts=2))
    results: list[list[tuple[str, str]]] = [[] for _ in range(4)]
    with HistoryStore.from_url(store_url) as other:
        reapers = [store, other, store, other]

        def reap(index: int) -> None:
            results[index] = reapers[index].reap(30, 2)

        in_threads(4, reap)
    reaped = [item for result in results for item in result]
    assert sorted(run_id for run_id, _ in reaped) == sorted(ids)
    assert {run_id for run_id, outcome in reaped if outcome == "interrupted"} == set(ids[::3])
    for run_id in ids:
        assert len(warnings_of(store, run_id)) == 1


# ------------------------------------------------------------------------- collections


def test_collections_registry(store: HistoryStore) -> None:
    assert store.collections() == []
    store.register_collection("papers", backend="sqlite", location="/data/papers.db",
                              documents=3, chunks=40, settings={"chunk_size": 500})
    store.register_collection("notes", backend="elasticsearch", location="deepcite-notes",
                              documents=1, chunks=2)
    [notes, papers] = store.collections()
    assert (notes.name, notes.backend, notes.location, notes.documents, notes.chunks) == (
        "notes", "elasticsearch", "deepcite-notes", 1, 2)
    store.register_collection("papers", backend="sqlite", location="/data/papers.db",
                              documents=5, chunks=60)
    [_, again] = store.collections()
    assert (again.documents, again.chunks, again.created_at) == (5, 60, papers.created_at)
    assert again.updated_at >= papers.updated_at
    assert store.remove_collection("papers") is True
    assert store.remove_collection("papers") is False
    assert [c.name for c in store.collections()] == ["notes"]


# -------------------------------------------------------------------------- migrations


def test_new_database_matches_the_models_at_head(store_url: str) -> None:
    HistoryStore.from_url(store_url).close()
    engine = create_store_engine(store_url)
    try:
        with engine.connect() as connection:
            assert current_revision(connection) == HEAD_REVISION
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            assert compare_metadata(context, Base.metadata) == []
    finally:
        engine.dispose()


def test_upgrade_from_0002_keeps_the_runs(store_url: str) -> None:
    engine = create_store_engine(store_url)
    upgrade(engine, "0002")
    run_id = uuid.uuid4().hex
    json_columns = ("settings", "warnings", "warning_codes", "unsupported_sentences",
                    "outline", "questions_by_iteration", "findings")
    runs = sa.table("runs", sa.column("created_at", sa.DateTime(timezone=True)),
                    *(sa.column(name, sa.JSON) for name in json_columns),
                    *(sa.column(name) for name in ("id", "question", "mode", "status", "body",
                                                   "cancelled", "search_text")))
    events = sa.table("events", sa.column("at", sa.DateTime(timezone=True)),
                      sa.column("payload", sa.JSON),
                      *(sa.column(name) for name in ("run_id", "seq", "kind")))
    with engine.begin() as connection:
        connection.execute(sa.insert(runs).values(
            id=run_id, question="Old question", mode="quick", status="completed",
            created_at=datetime(2026, 1, 2, tzinfo=UTC), settings={}, body="Old answer.",
            cancelled=False, warnings=[], warning_codes=[], unsupported_sentences=[],
            outline=[], questions_by_iteration={}, findings=[], search_text="old question"))
        connection.execute(sa.insert(events).values(
            run_id=run_id, seq=1, kind="phase_started", at=datetime(2026, 1, 2, tzinfo=UTC),
            payload={"kind": "phase_started", "phase": "search", "at": 1.0}))
    engine.dispose()

    with HistoryStore.from_url(store_url) as store:
        state = store.run_state(run_id)
        assert (state.status, state.attempts, state.cancel_requested, state.worker) == (
            "completed", 0, False, None)
        assert store.get(run_id).result.answer == "Old answer."
        assert [seq for seq, _ in store.events_after(run_id)] == [1]
        assert store.append_events(run_id, [PhaseStarted(phase="synthesis")]) == 2
    assert scalar(store_url, "SELECT version_num FROM alembic_version") == HEAD_REVISION


def test_open_sizes_the_pool_from_the_settings(postgres_url: str,  # noqa: F811
                                               make_settings: Any) -> None:
    settings = make_settings(store={"url": postgres_url, "pool_size": 3, "max_overflow": 1,
                                    "pool_timeout_seconds": 2.5})
    with HistoryStore.open(settings) as store:
        pool: Any = store._engine.pool
        assert (pool.size(), pool._max_overflow, pool._timeout, pool._pre_ping) == (
            3, 1, 2.5, True)


# ------------------------------------------------------------------- unreachable server


def test_an_unreachable_server_is_a_one_line_error_without_the_password() -> None:
    pytest.importorskip("psycopg")
    url = "postgresql+psycopg://me:hunter2@/db?host=/nonexistent/socket"
    store = HistoryStore(create_store_engine(url))  # as if the server went away later
    for call in (store.list, lambda: store.run_state("0" * 32), store.queued_ids,
                 lambda: store.append_events("0" * 32, []), lambda: store.reap(30, 2)):
        with pytest.raises(StoreError, match=r"^The history store at postgresql\+psycopg://"
                           r"me:\*\*\*@/db.* is unreachable \(.*\) - check that the "
                           r"database is running$") as caught:
            call()
        assert "\n" not in str(caught.value) and "hunter2" not in str(caught.value)
    store.close()


def test_the_store_works_again_after_the_server_restarts(settings: Settings) -> None:
    pytest.importorskip("psycopg")
    if postgres_fixture.ENV_URL:
        pytest.skip("needs a throwaway cluster it may stop (DEEPCITE_TEST_POSTGRES_URL set)")
    try:
        cluster = postgres_fixture.Cluster()
        cluster.start()
    except postgres_fixture.Unavailable as error:
        postgres_fixture.unavailable(str(error))
    pg_ctl = [str(cluster.bin / "pg_ctl"), "-D", str(cluster.data), "-w"]
    try:
        url = cluster.url.replace("postgres@", "postgres:hunter2@")  # trust: ignored
        with HistoryStore.from_url(url) as store:
            run_id = store.begin("Across a restart?", mode="quick", settings=settings)
            postgres_fixture._run([*pg_ctl, "-m", "fast", "stop"], "pg_ctl stop")
            with pytest.raises(StoreError, match=r"is unreachable .* check that the "
                               r"database is running") as caught:
                store.run_state(run_id)
            assert "\n" not in str(caught.value) and "hunter2" not in str(caught.value)
            options = f"-k {cluster.folder} -c listen_addresses='' -F"
            postgres_fixture._run([*pg_ctl, "-l", str(cluster.folder / "log"), "-o", options,
                                   "start"], "pg_ctl start")
            assert store.run_state(run_id).status == "running"
            assert store.append_events(run_id, [PhaseStarted(phase="search")]) == 1
    finally:
        cluster.stop()


def test_a_queued_runs_materials_leave_the_history_when_it_ends(
        store: HistoryStore, settings: Settings) -> None:
    """The worker needs the materials' text; once the run has ended, nobody does, and
    the history (a file users copy and share) never keeps a user's document."""
    secret = "Quarterly figures nobody outside the team may read."
    request = {**REQUEST, "materials": [{"url": "/home/me/q3.md", "content": secret}]}
    run_id = store.enqueue("Q3?", mode="quick", settings=settings, request=request)
    claimed = store.claim(run_id, "w1")
    assert claimed is not None and claimed.request["materials"][0]["content"] == secret
    store.finish(run_id, quick_result(), worker="w1")
    kept = store.get(run_id).request
    assert kept is not None and "materials" not in kept
    assert kept["question"] == REQUEST["question"]
