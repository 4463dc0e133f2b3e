"""A run's state is what it is, for every reader: ``queued`` while it waits for a slot of
the server's pool, ``running`` once it starts, ``interrupted`` as soon as the process
that held it is known to be gone.

Real stores (SQLite and PostgreSQL), the real in-process pool behind the real web app,
the real CLI; only the chat model is scripted, and gated so a run is held busy.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import update
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.store.engine import create_store_engine
from deepcite.store.migrate import upgrade
from deepcite.store.models import Run
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.rest import sse_lines
from tests.fakes import ScriptedChatModel, cite_all, write_notes

QUESTION = "What did we decide about the cache?"
runner = CliRunner()


class Gate:
    """Holds one model call until released, so a run can be caught while it works."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, prompt: str) -> str:
        self.entered.set()
        self.release.wait(30)
        return cite_all(prompt)


@pytest.fixture
def gates() -> Iterator[tuple[Gate, Gate]]:
    held = Gate(), Gate()
    yield held
    for gate in held:
        gate.release.set()


@pytest.fixture
def settings(tmp_path: Path, store_url: str, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPCITE_STORE_URL", store_url)
    loaded = load_settings({"research.iterations": 1})
    Collection.create("notes", settings=loaded).add(write_notes(tmp_path / "notes"))
    return loaded


@pytest.fixture
def pool(settings: Settings, gates: tuple[Gate, Gate],
         monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, LocalRunExecutor]]:
    """The web app over a pool of one slot; the first two runs' answers wait on gates."""
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [*gates, cite_all]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    executor = LocalRunExecutor(settings, workers=1)
    client = TestClient(create_app(WebState(settings=settings, executor=executor)))
    try:
        yield client, executor
    finally:
        for gate in gates:
            gate.release.set()
        executor.shutdown()


def _submit(client: TestClient, question: str = QUESTION) -> str:
    reply = client.post("/api/v1/research", json={"question": question,
                                                  "collections": ["notes"]})
    assert reply.status_code == 202, reply.text
    run_id: str = reply.json()["id"]
    return run_id


def _everywhere(client: TestClient, settings: Settings, run_id: str) -> dict[str, str]:
    """The run's state as each reader sees it: the REST API, the history page and API,
    ``deepcite history`` (another process's view: the store), the store itself."""
    listed = runner.invoke(app, ["history", "--json"])
    assert listed.exit_code == 0, listed.output
    page = client.get("/history").text
    row = page[page.index(f"/{run_id}"):]
    with HistoryStore.open(settings) as store:
        stored = store.get(run_id).status
    return {
        "rest": client.get(f"/api/v1/research/{run_id}").json()["state"],
        "api history": next(r["status"] for r in client.get("/api/v1/history").json()
                            if r["id"] == run_id),
        "page": row[row.index('data-label="Status">') + 20:].split("<", 1)[0],
        "cli": next(r["status"] for r in json.loads(listed.stdout) if r["id"] == run_id),
        "store": stored,
    }


def _all(state: str) -> dict[str, str]:
    return dict.fromkeys(("rest", "api history", "page", "cli", "store"), state)


def test_a_run_waiting_for_a_slot_reads_queued_until_it_starts(
        pool: tuple[TestClient, LocalRunExecutor], settings: Settings,
        gates: tuple[Gate, Gate]) -> None:
    client, _ = pool
    first_gate, second_gate = gates
    first = _submit(client)
    assert first_gate.entered.wait(30)
    waiting = _submit(client, "When does the team meet?")
    assert _everywhere(client, settings, waiting) == _all("queued")
    assert _everywhere(client, settings, first) == _all("running")
    first_gate.release.set()  # the slot frees: the waiting run starts
    assert second_gate.entered.wait(30)
    assert _everywhere(client, settings, waiting) == _all("running")


def test_cancelling_a_queued_run_ends_it_cancelled_without_running(
        pool: tuple[TestClient, LocalRunExecutor], settings: Settings,
        gates: tuple[Gate, Gate]) -> None:
    client, executor = pool
    first_gate, second_gate = gates
    first = _submit(client)
    assert first_gate.entered.wait(30)
    waiting = _submit(client, "Who decided it?")
    assert client.post(f"/api/v1/research/{waiting}/cancel").status_code == 200
    assert _everywhere(client, settings, waiting) == _all("cancelled")
    first_gate.release.set()
    # the next run takes the slot, not the cancelled one
    third = _submit(client, "When does the team meet?")
    assert second_gate.entered.wait(30)
    assert executor.status(third).state == "running"
    with HistoryStore.open(settings) as store:
        assert store.get(waiting).status == "cancelled"
        assert store.get(waiting).events == []  # it never ran
    reply = client.get(f"/api/v1/research/{waiting}/events")
    assert sse_lines(reply.text) == [{"event": "end", "data": '{"state": "cancelled"}'}]
    second_gate.release.set()
    assert executor.status(first).state in ("running", "completed")


def test_a_run_waiting_in_a_pool_is_never_handed_to_queue_workers(store: HistoryStore,
                                                                   settings: Settings) -> None:
    """A worker sweeping the store for queued runs must not take a run another
    process's pool holds: it would be researched twice."""
    waiting = store.begin(QUESTION, mode="quick", settings=settings, queued=True)
    for_workers = store.enqueue("Who?", mode="quick", settings=settings, request={})
    assert store.get(waiting).status == "queued"
    assert store.queued_ids() == [for_workers]
    assert store.claim(waiting, "worker-1") is None
    assert store.start(waiting) and store.get(waiting).status == "running"
    assert not store.start(waiting)  # only a queued run starts
    # a run queued for workers reads queued until a worker claims it, then running
    assert [(r.id, r.status) for r in store.list() if r.id == for_workers] == [
        (for_workers, "queued")]
    assert store.mark_interrupted(stale_after_s=0) == []  # waiting is no one's fault
    assert store.claim(for_workers, "worker-1") is not None
    assert store.run_state(for_workers).status == "running"


# ------------------------------------------------------------ a holder that is gone

_HOLDER = """
import sys, time
from deepcite.config import load_settings
from deepcite.store import HistoryStore
from deepcite.store.models import Run
settings = load_settings()
store = HistoryStore.from_url(sys.argv[1])
running = store.begin("Held by a process that will be killed", mode="quick",
                      settings=settings)
waiting = store.begin("Waiting in its pool", mode="quick", settings=settings, queued=True)
print(running, waiting, flush=True)
time.sleep(600)
"""


@pytest.fixture
def holder(store_url: str, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str, str]]:
    """A real process of this host that begins two runs (one running, one queued in its
    pool) and holds them, its heartbeat going, until it is killed."""
    env = {**os.environ, "DEEPCITE_DATA_DIR": str(tmp_path / "holder")}
    process = subprocess.Popen([sys.executable, "-c", _HOLDER, store_url], env=env,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        running, waiting = process.stdout.readline().split()
        yield process, running, waiting
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        if process.stdout:
            process.stdout.close()


def _kill_9(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def test_a_killed_holders_runs_read_interrupted_at_once(
        holder: tuple[subprocess.Popen[str], str, str], store_url: str) -> None:
    process, running, waiting = holder
    with HistoryStore.from_url(store_url) as reader:  # a live holder's runs are left alone
        assert (reader.get(running).status, reader.get(waiting).status) == \
            ("running", "queued")
        assert reader.mark_interrupted() == []
    _kill_9(process)
    with HistoryStore.from_url(store_url) as reader:  # no wait for the heartbeat window
        assert reader.get(running).status == "interrupted"
        assert reader.run_state(waiting).status == "interrupted"
        assert reader.get(running).finished_at is not None


def test_a_starting_server_marks_a_killed_holders_runs_interrupted(
        holder: tuple[subprocess.Popen[str], str, str], settings: Settings,
        store_url: str) -> None:
    process, running, waiting = holder
    _kill_9(process)
    with HistoryStore.from_url(store_url) as store:
        executor = LocalRunExecutor(settings, workers=1, store=store)  # it starts
        try:
            assert store.mark_interrupted() == []  # the start did it, at once
            assert executor.status(running).state == "interrupted"
            assert executor.status(waiting).state == "interrupted"
        finally:
            executor.shutdown()
    with HistoryStore.from_url(store_url) as reader:  # as marked, for every later reader
        assert {run.id: run.status for run in reader.list()} == {
            running: "interrupted", waiting: "interrupted"}


def test_a_listing_alone_marks_a_killed_holders_runs(
        holder: tuple[subprocess.Popen[str], str, str], store_url: str) -> None:
    process, running, waiting = holder
    _kill_9(process)
    with HistoryStore.from_url(store_url) as reader:  # `deepcite history`, first thing
        assert {run.id: run.status for run in reader.list()} == {
            running: "interrupted", waiting: "interrupted"}


def test_runs_of_other_hosts_and_reused_pids_are_told_apart(
        store: HistoryStore, settings: Settings, store_url: str) -> None:
    """A holder on another host keeps the heartbeat rule (its pids mean nothing here);
    a pid of this host now used by another process is not the holder any more."""
    with HistoryStore.from_url(store_url) as other:
        elsewhere = other.begin("Held on another host", mode="quick", settings=settings)
        reused = other.begin("Held by a pid now reused", mode="quick", settings=settings)
        with store._writing() as session:  # what another host / a reused pid looks like
            session.execute(update(Run).where(Run.id == elsewhere).values(
                holder_host="another-host/boot/1", holder_pid=999_999_999))
            session.execute(update(Run).where(Run.id == reused).values(
                holder_pid=os.getpid(), holder_started=1))
        assert store.get(elsewhere).status == "running"
        assert store.get(reused).status == "interrupted"
        assert store.mark_interrupted() == []
        other.interrupt(elsewhere)


def test_upgrading_from_0007_keeps_runs_without_a_holder_on_the_heartbeat_rule(
        store_url: str, settings: Settings) -> None:
    engine = create_store_engine(store_url)
    try:
        upgrade(engine, "0007")
        with engine.begin() as connection:
            connection.execute(sa.text(
                "INSERT INTO runs (id, question, mode, status, created_at, settings, "
                "cancelled, warnings, warning_codes, unsupported_sentences, outline, "
                "questions_by_iteration, findings, search_text, attempts, "
                "cancel_requested, heartbeat_at) VALUES ('ab' || :rest, 'Older?', 'quick', "
                "'running', :now, '{}', :no, '[]', '[]', '[]', '[]', '{}', '[]', '', 0, "
                ":no, :now)"), {"rest": "0" * 30, "now": datetime.now(UTC), "no": False})
    finally:
        engine.dispose()
    with HistoryStore.from_url(store_url) as store:
        older = "ab" + "0" * 30
        assert store.get(older).status == "running"  # no holder: only silence ends it
        assert store.mark_interrupted(stale_after_s=0) == [older]
        mine = store.begin(QUESTION, mode="quick", settings=settings)
        assert store.get(mine).status == "running"
