"""Watches across processes: each due watch runs exactly once, and once after a restart.

Real processes - ``deepcite serve`` twice on loopback ports, each with its watch
scheduler, sharing one history store - started through ``tests.worker_launcher`` (only
the chat model is faked, so a run over the collection completes in about a second):

* ``postgres+redis``: a throwaway PostgreSQL database as the store and a real
  ``redis-server`` as the queue (``queue.url``), and two ``deepcite worker`` processes
  that run the queued runs and tick schedulers of their own - four schedulers in all.
  Skipped, like the other queue tests, when PostgreSQL or Redis cannot be started here
  (a failure in CI).
* ``sqlite``: one SQLite file as the store and no queue: each server runs the watch
  runs it claims in its own process. Needs no service, so it always runs.

Every scheduler ticks every second. A watch (every hour) is made due by moving its
``next_run_at`` into the past - what an hour passing does to it - and exactly one run
of it must be made, whoever claims it. Then everything is stopped, the watch's slot is
put three hours back (three hourly slots passed while nothing ran), everything is
started again, and the watch must run once more - once, not once per missed slot - and
be due next at its first slot after now.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import write_notes
from tests.redis_fixture import free_port, redis_server  # noqa: F401  (fixtures)
from tests.servers import Proc, launch, wait_healthy
from tests.unit.postgres_fixture import postgres_server  # noqa: F401

httpx = pytest.importorskip("httpx")

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "What did we decide about the cache?"
TICK_S = 1
#: Ticks every scheduler gets after a run ended, to show a second claim if there were one.
SETTLE_TICKS = 4
WAIT_S = 90.0


@dataclass
class Deployment:
    """Two servers (and, with a queue, two workers) on one store."""

    data_dir: Path
    env: dict[str, str]
    logs: Path
    store_url: str | None
    workers: bool
    servers: list[str] = field(default_factory=list)
    procs: list[Proc] = field(default_factory=list)
    stopped: list[Proc] = field(default_factory=list)

    def settings(self) -> Any:
        from deepcite.config import load_settings

        overrides: dict[str, Any] = {"data_dir": str(self.data_dir)}
        if self.store_url:
            overrides["store"] = {"url": self.store_url}
        return load_settings(overrides, config_files=[], environ={})

    def store(self) -> Any:
        from deepcite.store import HistoryStore

        return HistoryStore.open(self.settings())

    def _launch(self, name: str, *args: str) -> Proc:
        proc = launch(name, args, env=self.env, logs=self.logs)
        self.procs.append(proc)
        return proc

    def start(self) -> None:
        """Start every process and wait until both servers answer."""
        started = []
        for name in ("serve-a", "serve-b"):
            port = free_port()
            started.append((f"http://127.0.0.1:{port}",
                            self._launch(name, "serve", "--host", "127.0.0.1",
                                         "--port", str(port))))
        if self.workers:
            for name in ("worker-1", "worker-2"):
                self._launch(name, "worker", "--concurrency", "1")
        self.servers = []
        for url, proc in started:
            wait_healthy(url, proc, self.diagnostics)
            self.servers.append(url)

    def stop(self) -> None:
        for proc in self.procs:
            proc.stop()
        self.stopped += self.procs
        self.procs = []

    def diagnostics(self) -> str:
        return "\n".join(p.tail() for p in [*self.stopped, *self.procs])


def _postgres_database(request: pytest.FixtureRequest) -> str:
    """A fresh database on the session's PostgreSQL server, dropped after the test."""
    from sqlalchemy import create_engine, make_url

    server = make_url(request.getfixturevalue("postgres_server"))
    name = f"deepcite_watch_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()

    request.addfinalizer(drop)
    return str(server.set(database=name).render_as_string(hide_password=False))


@pytest.fixture(params=["sqlite", "postgres+redis"])
def deployment(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployment]:
    from deepcite.collections import Collection

    queued = request.param == "postgres+redis"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    data_dir, logs = tmp_path / "data", tmp_path / "logs"
    logs.mkdir()
    store_url = None
    if queued:
        redis = request.getfixturevalue("redis_server")
        redis.ensure_running()
        store_url = _postgres_database(request)
        env.update(DEEPCITE_STORE_URL=store_url, DEEPCITE_QUEUE_URL=redis.url,
                   DEEPCITE_QUEUE_HEARTBEAT_SECONDS="0.3")
    env.update(DEEPCITE_DATA_DIR=str(data_dir), DEEPCITE_WATCHES_TICK_SECONDS=str(TICK_S),
               DEEPCITE_RESEARCH_ITERATIONS="1", DEEPCITE_TEST_MODEL_DELAY="0.2",
               NO_COLOR="1", PYTHONUNBUFFERED="1")
    deployed = Deployment(data_dir, env, logs, store_url, workers=queued)
    Collection.create("notes", settings=deployed.settings()).add(write_notes(tmp_path / "notes"))
    try:
        yield deployed
    finally:
        deployed.stop()


# ---------------------------------------------------------------------- helpers


def _runs_done(store: Any, watch_id: str, count: int, deployed: Deployment) -> list[Any]:
    """The watch's runs once ``count`` of them have ended (their change stored)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        runs = store.watch_runs(watch_id)
        if len(runs) >= count and all(r.status != "running" for r in runs):
            return list(runs)
        time.sleep(0.2)
    pytest.fail(f"watch {watch_id[:8]}: {count} ended runs expected, have "
                f"{store.watch_runs(watch_id)}\n{deployed.diagnostics()}")


def _settle() -> None:
    """Let every scheduler tick a few more times: a second claim would show now."""
    time.sleep(SETTLE_TICKS * TICK_S)


def _history(base: str) -> list[dict[str, Any]]:
    reply = httpx.get(f"{base}/api/v1/history", params={"limit": 1000}, timeout=30.0)
    assert reply.status_code == 200, reply.text
    entries: list[dict[str, Any]] = reply.json()
    return [entry for entry in entries if entry["question"] == QUESTION]


# ---------------------------------------------------------------------- the test


def test_each_due_watch_runs_once_and_once_after_a_restart(deployment: Deployment) -> None:
    deployed = deployment
    deployed.start()
    store = deployed.store()
    try:
        reply = httpx.post(f"{deployed.servers[0]}/api/v1/watches", timeout=30.0, json={
            "request": {"question": QUESTION, "collections": ["notes"]},
            "schedule": "every 1h"})
        assert reply.status_code == 201, reply.text
        watch_id = reply.json()["watch"]["id"]
        assert store.watch_runs(watch_id) == []  # not due for an hour: nothing ran

        # Due now: four (or two) schedulers tick; exactly one run is made.
        store.update_watch(watch_id, next_run_at=datetime.now(UTC) - timedelta(seconds=1))
        _runs_done(store, watch_id, 1, deployed)
        _settle()
        runs = store.watch_runs(watch_id)
        assert len(runs) == 1, (runs, deployed.diagnostics())
        first = runs[0]
        assert first.trigger == "schedule" and first.status == "done", first
        assert first.summary.startswith("First run:"), first.summary
        assert store.run_state(first.run_id).status == "completed"
        if deployed.workers:  # one worker took the queued run, once
            assert store.run_state(first.run_id).attempts == 1
        history = _history(deployed.servers[1])
        assert [entry["id"] for entry in history] == [first.run_id], history
        assert store.watch(watch_id).next_run_at > datetime.now(UTC)

        # Everything down while three hourly slots pass; started again, it runs once.
        deployed.stop()
        missed = datetime.now(UTC) - timedelta(hours=3, seconds=1)
        store.update_watch(watch_id, next_run_at=missed)
        deployed.start()
        _runs_done(store, watch_id, 2, deployed)
        _settle()
        runs = store.watch_runs(watch_id)
        assert len(runs) == 2, (runs, deployed.diagnostics())
        second = runs[0]
        assert second.trigger == "schedule" and second.status == "done", second
        assert second.previous_run_id == first.run_id
        assert second.nothing_new, second.summary  # same collection, same answer
        if deployed.workers:
            assert store.run_state(second.run_id).attempts == 1
        history = _history(deployed.servers[0])
        assert sorted(entry["id"] for entry in history) == sorted(
            [first.run_id, second.run_id]), history
        following = store.watch(watch_id).next_run_at
        now = datetime.now(UTC)
        assert now < following <= now + timedelta(hours=1), following
    finally:
        store.close()
