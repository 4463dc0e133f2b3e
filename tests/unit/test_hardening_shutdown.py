"""Stopping a server mid-run loses nothing: SIGTERM, SIGINT, ``kill -9``, other live
processes on one store, MCP clients that go away.

Real server processes on loopback, real signals; only the chat model is faked (its
answer waits on a gate file, see ``tests/gated_launcher.py``), so a test holds a run
in flight exactly while it stops the server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.config import load_settings
from deepcite.errors import UnknownRunError
from deepcite.runs import RunRequest
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore, StoredRun
from tests.mcp_launcher import scripted_model
from tests.servers import PATIENCE, answers, free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "What did we decide about the cache?"
WAIT_S = PATIENCE  # a guard against a hang, never a clock the test races
runner = CliRunner()
pytestmark = pytest.mark.enable_socket  # real servers on loopback


@dataclass
class Gate:
    started: Path
    gate: Path
    env: dict[str, str]

    def wait_started(self, process: subprocess.Popen[bytes] | None = None) -> None:
        deadline = time.monotonic() + WAIT_S
        while not self.started.exists():
            assert time.monotonic() < deadline, "the run never reached its model call"
            assert process is None or process.poll() is None, "the server died"
            time.sleep(0.05)

    def open(self) -> None:
        self.gate.touch()


@pytest.fixture
def gate(tmp_path: Path, notes: Path) -> Gate:
    """The collection "notes" in a temporary data dir, and a gated model's gate files."""
    started, gated = tmp_path / "started", tmp_path / "gate"
    # this tree's sources first: the servers must run the code under test
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    env = {**os.environ, "PYTHONPATH": path, "DEEPCITE_TEST_STARTED": str(started),
           "DEEPCITE_TEST_GATE": str(gated), "DEEPCITE_DATA_DIR": str(tmp_path / "data")}
    return Gate(started, gated, env)


@pytest.fixture
def server(gate: Gate) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``deepcite serve`` in its own process on a free loopback port."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.gated_launcher", "serve", "--port", str(port)],
        cwd=ROOT, env=gate.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    wait_until(answers(f"{base}/api/v1/health"), "deepcite serve",
               alive=lambda: process.poll() is None,
               details=lambda: process.stderr.read().decode()
               if process.stderr and process.poll() is not None else "")
    try:
        yield process, base
    finally:
        gate.open()
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        if process.stderr:
            process.stderr.close()


def _submit(base: str) -> str:
    reply = httpx.post(f"{base}/api/v1/research",
                       json={"question": QUESTION, "collections": ["notes"]}, timeout=WAIT_S)
    assert reply.status_code == 202, reply.text
    run_id: str = reply.json()["id"]
    return run_id


def _stored(run_id: str) -> StoredRun:
    with HistoryStore.open(load_settings()) as store:
        return store.get(run_id)


@pytest.mark.parametrize("stops", [(signal.SIGTERM,), (signal.SIGINT,), (signal.SIGHUP,),
                                   (signal.SIGTERM, signal.SIGTERM),
                                   (signal.SIGTERM, signal.SIGHUP, signal.SIGTERM)])
def test_a_stop_signal_stores_the_running_run_with_what_it_found(
        gate: Gate, server: tuple[subprocess.Popen[bytes], str],
        stops: tuple[signal.Signals, ...]) -> None:
    process, base = server
    run_id = _submit(base)
    gate.wait_started(process)
    for stop in stops:  # systemd and `docker stop` send SIGTERM; a closed terminal SIGHUP
        process.send_signal(stop)
        time.sleep(0.2)  # a service manager repeating itself
    time.sleep(0.3)  # the model call in flight returns a moment later
    gate.open()
    assert process.wait(timeout=WAIT_S) == 0
    stored = _stored(run_id)
    assert stored.status == "interrupted"
    assert stored.events, "the run's events were lost"
    assert stored.result.sources, "the sources it had found were lost"


def test_an_event_stream_ends_when_the_server_stops(
        gate: Gate, server: tuple[subprocess.Popen[bytes], str]) -> None:
    process, base = server
    run_id = _submit(base)
    gate.wait_started(process)
    with httpx.stream("GET", f"{base}/api/v1/research/{run_id}/events",
                      timeout=WAIT_S) as stream:
        process.send_signal(signal.SIGTERM)
        gate.open()
        body = "".join(stream.iter_text())
    assert "event: end" in body and "interrupted" in body
    assert process.wait(timeout=WAIT_S) == 0


def test_events_reach_the_store_as_they_happen_so_kill_9_keeps_them(
        gate: Gate, server: tuple[subprocess.Popen[bytes], str]) -> None:
    process, base = server
    run_id = _submit(base)
    gate.wait_started(process)
    deadline = time.monotonic() + WAIT_S
    while not _stored(run_id).events:  # read by another process while the run goes on
        assert time.monotonic() < deadline, "no event reached the store during the run"
        time.sleep(0.1)
    seen = _stored(run_id).events
    process.kill()
    process.wait(timeout=30)
    # its process is gone from this host: interrupted at once, no heartbeat wait
    stored = _stored(run_id)
    assert stored.status == "interrupted" and stored.events[:len(seen)] == seen
    with HistoryStore.open(load_settings()) as store:  # a later server finds it done
        assert store.mark_interrupted(stale_after_s=0) == []
    assert _stored(run_id).events == stored.events


def test_starting_a_server_leaves_runs_of_live_processes_alone(gate: Gate) -> None:
    settings = load_settings()
    with HistoryStore.open(settings) as cli_store:  # a `deepcite report` still going
        live = cli_store.begin("Still researching?", mode="detailed", settings=settings)
        executor = LocalRunExecutor(settings, workers=1)
        try:
            assert executor.status(live).state == "running"
        finally:
            executor.shutdown()
        with HistoryStore.open(settings) as reader:
            assert reader.get(live).status == "running"  # a second server neither
        cli_store.interrupt(live)


def test_a_run_deleted_while_it_runs_is_gone_not_unavailable(
        gate: Gate, monkeypatch: pytest.MonkeyPatch) -> None:
    model = scripted_model()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    settings = load_settings()
    executor = LocalRunExecutor(settings, workers=1)
    try:
        run_id = executor.submit(RunRequest(question=QUESTION, collections=["notes"]))
        with HistoryStore.open(settings) as store:
            store.delete(run_id)
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                state = executor.status(run_id).state
            except UnknownRunError:
                break  # gone, as for every other reader
            assert state in ("queued", "running"), state
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        executor.shutdown()


def test_an_mcp_client_that_goes_away_leaves_its_run_cancelled_not_running(
        gate: Gate) -> None:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "tests.gated_launcher", "mcp"],
                                   cwd=str(ROOT), env=gate.env)

    async def main() -> None:
        with anyio.fail_after(WAIT_S):
            async with Client(params) as client, anyio.create_task_group() as group:
                async def call() -> None:
                    await client.call_tool("quick_research",
                                           {"question": QUESTION, "collections": ["notes"]})
                group.start_soon(call)
                while not gate.started.exists():
                    await anyio.sleep(0.05)
                group.cancel_scope.cancel()  # the client gives up, then disconnects

    anyio.run(main)
    settings = load_settings()
    deadline = time.monotonic() + WAIT_S
    with HistoryStore.open(settings) as store:
        while (runs := store.list()) and runs[0].status == "running":
            assert time.monotonic() < deadline, "the run stayed running"
            time.sleep(0.05)
        assert not gate.gate.exists()  # recorded while its model call was still in flight
        stored = store.get(runs[0].id)
    assert stored.status in ("cancelled", "interrupted")
    assert stored.events
    gate.open()


def test_a_draining_server_answers_503_so_clients_retry(gate: Gate) -> None:
    from fastapi.testclient import TestClient

    from deepcite.web.app import create_app
    from deepcite.web.contracts import WebState

    settings = load_settings()
    executor = LocalRunExecutor(settings, workers=1)
    try:
        client = TestClient(create_app(WebState(settings=settings, executor=executor)))
        executor.drain()  # what the first SIGTERM does
        reply = client.post("/api/v1/research", json={"question": QUESTION,
                                                      "collections": ["notes"]})
        assert reply.status_code == 503
        assert "shutting down" in reply.json()["error"]["message"]
    finally:
        executor.shutdown()
