"""Past one machine: two web servers and two workers sharing PostgreSQL and Redis.

Real processes end to end - ``deepcite serve`` twice on loopback ports and ``deepcite
worker`` twice, started through ``tests.worker_launcher`` (only the chat model is
faked, 0.5 s a call), a throwaway PostgreSQL cluster as the shared history store and a
real ``redis-server`` as the queue. Runs are submitted to one server and followed over
SSE on both while a worker is SIGKILLed mid-run and Redis restarts (losing every job):
each run still completes exactly once in the history, the killed worker's run is
re-queued once, and every reader sees exactly the events the store holds, in order,
resuming with ``Last-Event-ID`` after each disconnect.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import write_notes
from tests.redis_fixture import RedisServer, free_port, redis_server  # noqa: F401
from tests.servers import Proc, launch, wait_healthy
from tests.unit.postgres_fixture import postgres_server  # noqa: F401

httpx = pytest.importorskip("httpx")

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "What did we decide about the cache?"
RUNS = 6
#: Longest every run of the scale test may take to end, kill and restart included.
RUN_DEADLINE_S = 90.0
ENDED = {"completed", "cancelled", "failed", "interrupted"}


# ---------------------------------------------------------------------- processes


@dataclass
class Deployment:
    """Everything the tests drive: servers A and B, the workers, Redis, the store."""

    redis: RedisServer
    store_url: str
    data_dir: Path
    env: dict[str, str]
    logs: Path
    servers: list[str] = field(default_factory=list)
    procs: list[Proc] = field(default_factory=list)

    @property
    def a(self) -> str:
        return self.servers[0]

    @property
    def b(self) -> str:
        return self.servers[1]

    def workers(self) -> list[Proc]:
        return [p for p in self.procs if p.name.startswith("worker")]

    def launch(self, name: str, *args: str) -> Proc:
        proc = launch(name, args, env=self.env, logs=self.logs)
        self.procs.append(proc)
        return proc

    def diagnostics(self) -> str:
        return "\n".join(p.tail() for p in self.procs)

    def store(self) -> Any:
        from deepcite.config import load_settings
        from deepcite.store import HistoryStore

        settings = load_settings({"data_dir": str(self.data_dir),
                                  "store": {"url": self.store_url}},
                                 config_files=[], environ={})
        return HistoryStore.open(settings)


@pytest.fixture(scope="module")
def store_url(postgres_server: str) -> Iterator[str]:  # noqa: F811
    """A fresh database for this module's deployment; dropped afterwards."""
    from sqlalchemy import create_engine, make_url

    server = make_url(postgres_server)
    name = f"deepcite_queue_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory, store_url: str,
               redis_server: RedisServer) -> Iterator[Deployment]:  # noqa: F811
    """Two servers and two workers on one store and one queue, a collection "notes"."""
    from deepcite.collections import Collection
    from deepcite.config import load_settings

    redis_server.ensure_running()
    base = tmp_path_factory.mktemp("queue-scale")
    data_dir, notes, logs = base / "data", base / "notes", base / "logs"
    write_notes(notes)
    logs.mkdir()
    (notes / "deploy.md").write_text(
        "# Deploys\n\nWe deploy on Thursdays after the cache warm-up finishes.\n",
        encoding="utf-8")
    settings = load_settings({"data_dir": str(data_dir), "store": {"url": store_url}},
                             config_files=[], environ={})
    Collection.create("notes", settings=settings).add(notes)

    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=str(data_dir), DEEPCITE_STORE_URL=store_url,
               DEEPCITE_QUEUE_URL=redis_server.url, DEEPCITE_QUEUE_HEARTBEAT_SECONDS="0.3",
               DEEPCITE_QUEUE_HEARTBEAT_TIMEOUT_SECONDS="2",
               DEEPCITE_QUEUE_MAX_ATTEMPTS="2", DEEPCITE_RESEARCH_ITERATIONS="1",
               DEEPCITE_TEST_MODEL_DELAY="0.5", NO_COLOR="1", PYTHONUNBUFFERED="1")
    deployed = Deployment(redis_server, store_url, data_dir, env, logs)
    try:
        servers = []
        for name in ("serve-a", "serve-b"):
            port = free_port()
            servers.append((f"http://127.0.0.1:{port}",
                            deployed.launch(name, "serve", "--host", "127.0.0.1",
                                            "--port", str(port))))
        for name in ("worker-1", "worker-2"):
            deployed.launch(name, "worker", "--concurrency", "1")
        for url, proc in servers:
            wait_healthy(url, proc)
            deployed.servers.append(url)
        yield deployed
    finally:
        for proc in deployed.procs:
            proc.stop()
        redis_server.ensure_running()


# ---------------------------------------------------------------------- SSE readers


class Reader(threading.Thread):
    """Follows one run's SSE stream on one server to its end, recording ``(id, kind)``.

    It hangs up on purpose after every ``drop_every`` events, and reconnects after any
    disconnect or error with ``Last-Event-ID`` set to the last id it saw.
    """

    def __init__(self, base: str, run_id: str, drop_every: int, deadline: float) -> None:
        super().__init__(name=f"sse-{run_id[:8]}-{base[-5:]}", daemon=True)
        self.base, self.run_id = base, run_id
        self.drop_every, self.deadline = drop_every, deadline
        self.seen: list[tuple[int, str]] = []
        self.end_state: str | None = None
        self.connections = 0
        self.errors: list[str] = []

    def run(self) -> None:
        with httpx.Client(timeout=httpx.Timeout(30.0, connect=5.0)) as client:
            while self.end_state is None and time.monotonic() < self.deadline:
                headers = {"Last-Event-ID": str(self.seen[-1][0])} if self.seen else {}
                self.connections += 1
                try:
                    self._follow(client, headers)
                except httpx.HTTPError as error:
                    self.errors.append(f"{type(error).__name__}: {error}")
                    time.sleep(0.2)

    def _follow(self, client: Any, headers: dict[str, str]) -> None:
        url = f"{self.base}/api/v1/research/{self.run_id}/events"
        with client.stream("GET", url, headers=headers) as reply:
            if reply.status_code != 200:
                self.errors.append(f"HTTP {reply.status_code}")
                time.sleep(0.2)
                return
            fields: dict[str, str] = {}
            this_connection = 0
            for line in reply.iter_lines():
                if line:
                    if not line.startswith(":") and ":" in line:
                        key, _, value = line.partition(":")
                        fields[key] = value[1:] if value.startswith(" ") else value
                    continue
                event, fields = fields, {}
                if event.get("event") == "end":
                    self.end_state = json.loads(event["data"])["state"]
                    return
                if "id" in event:
                    self.seen.append((int(event["id"]), event.get("event", "")))
                    this_connection += 1
                    if this_connection >= self.drop_every:
                        return  # hang up; the loop resumes from Last-Event-ID


# ---------------------------------------------------------------------- helpers


def _submit(base: str, **body: Any) -> str:
    reply = httpx.post(f"{base}/api/v1/research",
                       json={"question": QUESTION, "collections": ["notes"], **body},
                       timeout=30.0)
    assert reply.status_code == 202, reply.text
    run_id: str = reply.json()["id"]
    return run_id


def _status(base: str, run_id: str) -> dict[str, Any]:
    reply = httpx.get(f"{base}/api/v1/research/{run_id}", timeout=30.0)
    assert reply.status_code == 200, reply.text
    info: dict[str, Any] = reply.json()
    return info


def _wait_ended(deployed: Deployment, run_ids: list[str], deadline: float) -> None:
    pending = set(run_ids)
    while pending and time.monotonic() < deadline:
        pending = {r for r in pending if _status(deployed.a, r)["state"] not in ENDED}
        time.sleep(0.1)
    if pending:
        pytest.fail(f"runs {sorted(p[:8] for p in pending)} did not end in time:\n"
                    f"{deployed.diagnostics()}")


def _kill_a_busy_worker(deployed: Deployment, store: Any, run_ids: list[str],
                        timeout: float = 30.0) -> tuple[str, Proc]:
    """SIGKILL a worker while it holds a running run; the run and the dead worker."""
    by_pid = {p.pid: p for p in deployed.workers() if p.process.poll() is None}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for run_id in run_ids:
            state = store.run_state(run_id)
            if state.status != "running" or not state.worker:
                continue
            pid = int(state.worker.rsplit(":", 1)[1])
            if pid in by_pid:
                os.kill(pid, signal.SIGKILL)
                by_pid[pid].process.wait(timeout=10)
                return run_id, by_pid[pid]
        time.sleep(0.01)
    pytest.fail(f"no worker was seen running a run:\n{deployed.diagnostics()}")


def _restart_redis_while_a_run_ends(deployed: Deployment, store: Any, run_ids: list[str],
                                    killed_run: str, timeout: float = 10.0) -> None:
    """Stop Redis while runs are queued or running, keep it away until a run that was
    running has ended (so a worker finishes a job with Redis gone), start it again.

    Nothing is persisted: every job Redis held is lost, the store still has the runs.
    """
    deadline = time.monotonic() + timeout
    while True:
        running = [r for r in run_ids
                   if r != killed_run and store.run_state(r).status == "running"]
        if running:
            break
        assert time.monotonic() < deadline, "no run was running to restart Redis under"
        time.sleep(0.01)
    assert any(store.run_state(r).status == "queued" for r in run_ids)
    deployed.redis.stop()
    try:
        while time.monotonic() < deadline and all(
                store.run_state(r).status == "running" for r in running):
            time.sleep(0.02)
    finally:
        deployed.redis.start()


# ---------------------------------------------------------------------- tests


def test_runs_survive_a_killed_worker_and_a_redis_restart(deployment: Deployment) -> None:
    deployed = deployment
    store = deployed.store()
    try:
        run_ids = [_submit(deployed.a) for _ in range(RUNS)]
        deadline = time.monotonic() + RUN_DEADLINE_S
        readers = [Reader(base, run_id, drop_every, deadline)
                   for run_id in run_ids
                   for base, drop_every in ((deployed.a, 3), (deployed.b, 5))]
        for reader in readers:
            reader.start()

        killed_run, killed = _kill_a_busy_worker(deployed, store, run_ids)
        killed_id = f"{killed.name}:{killed.pid}"
        _restart_redis_while_a_run_ends(deployed, store, run_ids, killed_run)

        _wait_ended(deployed, run_ids, deadline)
        for reader in readers:
            reader.join(max(deadline - time.monotonic(), 1.0))
        problems = deployed.diagnostics()

        # The other worker lived through the Redis outage (it finished a job meanwhile).
        survivors = [p for p in deployed.workers() if p is not killed]
        assert all(p.process.poll() is None for p in survivors), problems
        # Every run completed; the killed worker's run was re-queued exactly once.
        for run_id in run_ids:
            state = store.run_state(run_id)
            assert state.status == "completed", (run_id, state, problems)
            if run_id != killed_run:
                assert state.attempts == 1, (run_id, state)
        state = store.run_state(killed_run)
        assert state.attempts == 2, state
        assert state.worker is None or not state.worker.endswith(f":{killed.pid}"), \
            (state.worker, killed_id)
        warnings = [event for _, event in store.events_after(killed_run, 0)
                    if event.kind == "warning" and "stopped answering" in event.message]
        assert len(warnings) == 1, store.events_after(killed_run, 0)
        assert "re-queued" in warnings[0].message

        # Every reader, on either server, saw exactly the stored events, in order.
        for reader in readers:
            assert not reader.is_alive(), f"reader {reader.name} still running"
            stored = [(seq, event.kind) for seq, event in store.events_after(reader.run_id, 0)]
            ids = [seq for seq, _ in reader.seen]
            assert ids == sorted(set(ids)), (reader.name, ids)
            assert reader.seen == stored, (reader.name, reader.seen, stored, reader.errors)
            assert reader.end_state == "completed", (reader.name, reader.end_state)
            assert reader.connections > 1  # it did resume with Last-Event-ID

        # Both servers agree on everything; the history holds each run once.
        history = httpx.get(f"{deployed.b}/api/v1/history", params={"limit": 1000},
                            timeout=30.0).json()
        listed = [entry["id"] for entry in history]
        for run_id in run_ids:
            assert listed.count(run_id) == 1, (run_id, listed)
            assert _status(deployed.a, run_id) == _status(deployed.b, run_id)
    finally:
        store.close()


def test_cancel_through_the_other_server(deployment: Deployment) -> None:
    """A run cancelled through B ends cancelled, whether it was queued or running."""
    deployed = deployment
    store = deployed.store()
    try:
        run_ids = [_submit(deployed.a, iterations=6) for _ in range(3)]
        deadline = time.monotonic() + 30
        while store.run_state(run_ids[0]).status != "running":
            assert time.monotonic() < deadline, deployed.diagnostics()
            time.sleep(0.02)
        for run_id in run_ids:
            reply = httpx.post(f"{deployed.b}/api/v1/research/{run_id}/cancel", timeout=30.0)
            assert reply.status_code == 200, reply.text
        _wait_ended(deployed, run_ids, time.monotonic() + 30)
        for run_id in run_ids:
            assert _status(deployed.a, run_id)["state"] == "cancelled"
            assert _status(deployed.b, run_id)["state"] == "cancelled"
        assert store.run_state(run_ids[0]).attempts == 1  # it was running when cancelled
    finally:
        store.close()


def test_submit_answers_503_while_redis_is_down(deployment: Deployment) -> None:
    deployed = deployment
    deployed.redis.stop()
    try:
        reply = httpx.post(f"{deployed.a}/api/v1/research",
                           json={"question": QUESTION, "collections": ["notes"]},
                           timeout=30.0)
        assert reply.status_code == 503, reply.text
        error = reply.json()["error"]
        assert error["code"] == "unavailable"
        assert "\n" not in error["message"] and "queue" in error["message"], error
    finally:
        deployed.redis.start()
    run_id = _submit(deployed.a)
    _wait_ended(deployed, [run_id], time.monotonic() + 60)
    assert _status(deployed.b, run_id)["state"] == "completed"
