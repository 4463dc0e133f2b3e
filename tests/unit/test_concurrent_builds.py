"""Builds that happen once stay correct when runs and processes arrive together.

On a fresh install two runs submitted to ``deepcite serve`` at the same moment both
built the demo collection, and the second failed ("AST constructor recursion depth
mismatch"). These tests start the real parts at once - the server's run executor,
``deepcite collection add`` processes, a builder process killed mid-build, history
stores - with the model faked at its boundary, and check what a user would see: every
run completes, every document is indexed once, searches answer throughout, a waiting
run says it waits for the index, and a dead builder's half-built index is rebuilt.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import deepcite.runs.build
from deepcite.build_once import BuildLock, lock_file
from deepcite.collections import Collection, ensure_demo_collection
from deepcite.collections import demo as demo_module
from deepcite.collections.collection import collection_path
from deepcite.config import Settings, load_settings
from deepcite.runs import CallbackSink, RunRequest, checked_settings, execute
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.store.migrate import HEAD_REVISION
from deepcite.types import Event, PhaseStarted
from tests.mcp_launcher import scripted_model
from tests.servers import PATIENCE

ROOT = Path(__file__).resolve().parents[2]
GUARD_S = PATIENCE
"""How long anything that should happen may take before the test fails (never hangs)."""


def _settings(data: Path) -> Settings:
    return load_settings({"data_dir": str(data), "research.iterations": 1},
                         config_files=[], environ={})


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return _settings(tmp_path / "data")


@pytest.fixture(autouse=True)
def _model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: scripted_model())


def _env(data: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("DEEPCITE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    env["DEEPCITE_DATA_DIR"] = str(data)
    return env


def _index_phases(events: list[Event]) -> int:
    return sum(1 for e in events if isinstance(e, PhaseStarted) and e.phase == "index")


class _Lines:
    """A child process's output, read on a thread; :meth:`wait_for` a line."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()

    def wait_for(self, text: str) -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: any(text in line for line in self.lines),
                                          timeout=GUARD_S):
                raise AssertionError(f"no {text!r} in {''.join(self.lines)[-2000:]}")


# --------------------------------------------------------------------- demo runs


def _wait_for_index_phase(executor: LocalRunExecutor, run_id: str) -> None:
    deadline = time.monotonic() + GUARD_S
    seen: list[Event] = []
    while time.monotonic() < deadline:
        batch = executor.events(run_id, after=len(seen), timeout=1.0)
        seen.extend(event for _, event in batch.events)
        if _index_phases(seen):
            return
        assert not batch.finished, f"run {run_id} ended without its index phase"
    raise AssertionError(f"run {run_id} never said it waits for the index")


def test_two_first_runs_at_once_both_complete_and_the_demo_is_built_once(
        settings: Settings, renders: list[Path]) -> None:
    executor = LocalRunExecutor(settings, workers=2)
    try:
        # Both runs are held at the build lock until each has said it waits for the
        # index: they then contend for the build, as two first runs on a server do.
        held = BuildLock(settings.data_dir / demo_module.BUILD_LOCK, what="the demo")
        with held.held():
            runs = [executor.submit(RunRequest(question=f"How do I parse arguments {n}?",
                                               collections=["demo"])) for n in range(2)]
            for run_id in runs:
                _wait_for_index_phase(executor, run_id)
        for run_id in runs:
            deadline = time.monotonic() + GUARD_S
            while not executor.events(run_id, timeout=1.0).finished:
                assert time.monotonic() < deadline, f"run {run_id} did not end"
            info = executor.status(run_id)
            assert (info.state, info.error) == ("completed", None)
            assert executor.store.get(run_id).result.sources, "the run found nothing"
    finally:
        executor.shutdown()
    assert len(renders) == 1
    demo = ensure_demo_collection(settings)
    assert demo.info().documents > 100
    assert len(renders) == 1  # and the next run takes the fast path


def test_renders_from_two_threads_at_once_do_not_break(tmp_path: Path) -> None:
    """The crash itself: pydoc rendering in two threads broke CPython's ast state."""
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def render(folder: Path) -> None:
        start.wait()
        try:
            demo_module.write_demo_sources(folder)
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)

    threads = [threading.Thread(target=render, args=(tmp_path / f"src{n}",))
               for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(GUARD_S)
    assert errors == []
    first, second = ({p.name: p.read_text(encoding="utf-8") for p in (tmp_path / f"src{n}")
                      .iterdir()} for n in range(2))
    assert first == second and "module-argparse.txt" in first


# ------------------------------------------------------------ a builder that dies

_DYING_BUILDER = """
import sys, threading, time
from deepcite.collections import ensure_demo_collection
from deepcite.config import load_settings

settings = load_settings({"data_dir": sys.argv[1]}, config_files=[], environ={})

def progress(step):
    time.sleep(0.03)  # a slow builder: 60 files take past the first commit (1 s)
    if step.done == 60:  # documents are stored, the index is not stamped
        print("half built", flush=True)
        threading.Event().wait()  # killed here, holding the lock

ensure_demo_collection(settings, progress)
"""


@pytest.fixture
def dying_builder(settings: Settings) -> Iterator[subprocess.Popen[str]]:
    child = subprocess.Popen(
        [sys.executable, "-c", _DYING_BUILDER, str(settings.data_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=_env(settings.data_dir))
    try:
        yield child
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(GUARD_S)


def test_a_run_waits_for_a_builder_and_rebuilds_what_it_left_when_killed(
        settings: Settings, dying_builder: subprocess.Popen[str],
        renders: list[Path]) -> None:
    _Lines(dying_builder.stdout).wait_for("half built")
    path = collection_path("demo", settings)
    half = Collection.open("demo", settings=settings)
    assert half.info().documents > 0, "the killed builder had stored nothing"
    assert half.index.get_meta("demo_format") is None  # not stamped: not complete

    events: list[Event] = []
    waiting = threading.Event()
    results: list[Any] = []

    def sink_event(event: Event) -> None:
        events.append(event)
        if isinstance(event, PhaseStarted) and event.phase == "index":
            waiting.set()

    def run() -> None:
        try:
            request = RunRequest(question="How do I parse arguments?", collections=["demo"])
            results.append(execute(request, checked_settings(settings, request),
                                   CallbackSink(sink_event)))
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            results.append(error)

    runner = threading.Thread(target=run)
    runner.start()
    assert waiting.wait(GUARD_S), "the run did not say it waits for the index"
    assert not results, "the run went on while the builder held the lock"
    os.kill(dying_builder.pid, signal.SIGKILL)
    dying_builder.wait(GUARD_S)
    runner.join(GUARD_S)
    assert not runner.is_alive()
    [result] = results
    assert not isinstance(result, BaseException), result
    assert result.sources and not result.error
    assert len(renders) == 1  # the waiter rebuilt it
    demo = Collection.open("demo", settings=settings)
    assert demo.index.get_meta("demo_format") == demo_module.DEMO_FORMAT
    assert demo.info().documents == len(list((settings.data_dir / "demo-src").glob("*.txt")))
    assert any(r.title.startswith("argparse") for r in demo.search("argument parser", k=5))
    assert path.exists()


# ------------------------------------------------------------------- collections


def _notes(folder: Path, count: int, word: str = "compost") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (folder / f"note{n:03d}.md").write_text(
            f"# Note {n}\n\nThe {word} heap number {n} is turned every week. "
            + "Worms and leaves make the soil rich. " * 20, encoding="utf-8")
    return folder


def test_two_processes_adding_the_same_folder_index_each_document_once(
        settings: Settings, tmp_path: Path) -> None:
    folder = _notes(tmp_path / "notes", 40)
    data = settings.data_dir
    command = [sys.executable, "-m", "deepcite", "-v", "collection", "add", str(folder),
               "--name", "notes"]
    # Both processes start while the collection's lock is held here, and go once both
    # say they wait: they then really add at the same time.
    held = BuildLock(lock_file(collection_path("notes", settings)), what="notes")
    with held.held():
        adders = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, env=_env(data)) for _ in range(2)]
        waits = [_Lines(adder.stderr) for adder in adders]
        for lines in waits:
            lines.wait_for("waiting for another builder of collection 'notes'")
    outputs = []
    for adder in adders:
        out, _ = adder.communicate(timeout=GUARD_S)
        assert adder.returncode == 0, out
        outputs.append(out)
    added = sorted(int(out.split(": ", 1)[1].split(" added")[0]) for out in outputs)
    assert added == [0, 40], outputs  # one indexed them, the other found them indexed
    notes = Collection.open("notes", settings=settings)
    assert (notes.info().documents, notes.info().chunks) == (40, 40)
    assert len(notes.search("compost heap", k=50)) == 40


def test_a_collection_being_created_is_never_seen_half_made(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two creators at once: neither meets a file without its schema (CI once saw a
    `collection add` fail with "not a deepcite collection" while another created it)."""
    from deepcite.collections.index import schema

    real_create = schema.create
    inside = threading.Event()
    release = threading.Event()
    first = threading.current_thread()

    def slow_create(conn: sqlite3.Connection) -> None:
        real_create(conn)
        if threading.current_thread() is not first:  # the first creator pauses mid-way
            inside.set()
            assert release.wait(GUARD_S)

    monkeypatch.setattr(schema, "create", slow_create)
    made: list[Collection] = []
    creator = threading.Thread(
        target=lambda: made.append(Collection.create("notes", settings=settings)))
    creator.start()
    assert inside.wait(GUARD_S)
    try:  # meanwhile a second creator and a reader: both get a complete collection
        second = Collection.create("notes", settings=settings)
        assert second.info().documents == 0
        assert Collection.open("notes", settings=settings).search("anything", k=3) == []
    finally:
        release.set()
    creator.join(GUARD_S)
    assert not creator.is_alive() and len(made) == 1
    assert made[0].path == second.path and made[0].info().documents == 0
    leftovers = [p.name for p in second.path.parent.iterdir() if "creating" in p.name]
    assert leftovers == []


def test_a_search_during_a_reindex_always_answers(settings: Settings, tmp_path: Path) -> None:
    folder = _notes(tmp_path / "notes", 60)
    notes = Collection.create("notes", settings=settings)
    notes.add(folder)
    _notes(folder, 60, word="mulch")  # every file changed: all re-indexed
    paused = threading.Event()
    resume = threading.Event()
    seen: list[int] = []

    def progress(step: Any) -> None:
        if step.done in (5, 30, 55):  # mid-batch, and after a commit or two
            paused.set()
            assert resume.wait(GUARD_S)
            resume.clear()

    def reindex() -> None:
        notes.add(folder, progress)

    indexer = threading.Thread(target=reindex)
    indexer.start()
    for _ in range(3):
        assert paused.wait(GUARD_S)
        paused.clear()
        found = Collection.open("notes", settings=settings).search("heap week", 10)
        seen.append(len(found))
        resume.set()
    indexer.join(GUARD_S)
    assert not indexer.is_alive()
    assert seen == [10, 10, 10]
    assert len(notes.search("mulch", k=100)) == 60  # and the new text is what is found


# ------------------------------------------------------------------ history store


def _open_store(url: str, start: Any, done: Any) -> None:
    start.wait()
    try:
        HistoryStore.from_url(url).close()
        done.put("ok")
    except BaseException as error:  # noqa: BLE001 - reported to the parent
        done.put(f"{type(error).__name__}: {error}")


def test_two_processes_opening_a_fresh_history_migrate_it_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh' / 'history.db'}"
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(2)
    done = context.Queue()
    openers = [context.Process(target=_open_store, args=(url, start, done))
               for _ in range(2)]
    for opener in openers:
        opener.start()
    outcomes = [done.get(timeout=GUARD_S) for _ in openers]
    for opener in openers:
        opener.join(GUARD_S)
    assert outcomes == ["ok", "ok"]
    with HistoryStore.from_url(url) as store:
        assert store.list(limit=1) == []
    with sqlite3.connect(tmp_path / "fresh" / "history.db") as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (HEAD_REVISION,)]
