"""The queue executor, a worker and the reaper on a real Redis and a real store.

Runs go through :class:`QueueExecutor` into Redis, an in-process worker (``work(...,
burst=True)``) executes them with the scripted model, and state and events come back
through the store - the same path as ``deepcite serve`` with ``deepcite worker``
processes, in one process so each test is quick. The multi-process scenario (two
workers, two web servers, a killed worker, a Redis restart) is
``tests/integration/test_queue_scale.py``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import deepcite.runs.build
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.errors import QueueError, UnknownRunError
from deepcite.runs import RunRequest
from deepcite.runs.queue import worker as worker_module
from deepcite.runs.queue.executor import QueueExecutor
from deepcite.runs.queue.reaper import Reaper
from deepcite.runs.queue.worker import work
from deepcite.store import HistoryStore
from deepcite.store.snapshot import restore_settings
from tests.fakes import ScriptedChatModel
from tests.mcp_launcher import scripted_model
from tests.redis_fixture import RedisServer, redis_server, redis_url  # noqa: F401

NOTES = {"tea.txt": "Green tea is steamed or pan-fired soon after picking, which stops "
                    "oxidation and keeps the leaves green.",
         "coffee.txt": "Coffee cherries are picked, the beans are dried, and roasting "
                       "turns them brown."}


@pytest.fixture
def queue_env(tmp_path: Path, redis_url: str,  # noqa: F811
              monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """Settings (and the environment workers read) for one store, one Redis, a
    collection ``notes``, and the scripted model."""
    data = tmp_path / "data"
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(data))
    monkeypatch.setenv("DEEPCITE_QUEUE_URL", redis_url)
    monkeypatch.setenv("DEEPCITE_QUEUE_HEARTBEAT_SECONDS", "0.2")
    settings = load_settings(config_files=[])
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text, encoding="utf-8")
    Collection.create("notes", settings=settings).add(folder)
    model = scripted_model()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    monkeypatch.setattr(worker_module, "_CONTEXT", None)  # a fresh worker per test
    yield settings
    context = worker_module._CONTEXT
    if context is not None:
        context.store.close()


def _request(question: str = "How is green tea made?", **extra: Any) -> RunRequest:
    return RunRequest(question=question, collections=["notes"], **extra)


def test_a_queued_run_is_executed_by_a_worker_and_its_events_come_back_in_order(
        queue_env: Settings) -> None:
    executor = QueueExecutor(queue_env, reap=False)
    try:
        run_id = executor.submit(_request())
        assert executor.status(run_id).state == "queued"
        assert executor.status(run_id).queue_position == 1
        work(queue_env, burst=True)
        info = executor.status(run_id)
        assert info.state == "completed", info
        batch = executor.events(run_id)
        assert batch.finished
        seqs = [seq for seq, _ in batch.events]
        assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > 3
        assert batch.events[-1][1].kind == "finished"
        # A reader that reconnects after event 2 gets the rest, without repeats.
        assert [s for s, _ in executor.events(run_id, after=2).events] == seqs[2:]
        stored = executor.store.get(run_id)
        assert stored.status == "completed" and "[1]" in stored.result.answer
    finally:
        executor.shutdown()


def test_secrets_never_travel_with_the_run(queue_env: Settings, redis_url: str,  # noqa: F811
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from redis import Redis
    from rq.job import Job

    monkeypatch.setenv("DEEPCITE_LLM_API_KEY", "sk-submitter-secret")
    submitter = load_settings(config_files=[])
    executor = QueueExecutor(submitter, reap=False)
    try:
        run_id = executor.submit(_request())
        job = Job.fetch(f"{run_id}-1", connection=Redis.from_url(redis_url))
        assert job.args == (run_id,)  # only the id is queued
        claimed = executor.store.claim(run_id, "test-worker")
        assert claimed is not None
        assert "sk-submitter-secret" not in json.dumps([claimed.settings, claimed.request])
        # The worker resolves its own key from its own environment.
        monkeypatch.setenv("DEEPCITE_LLM_API_KEY", "sk-worker-key")
        local = load_settings(config_files=[])
        rebuilt = restore_settings(claimed.settings, local)
        assert rebuilt.llm.api_key is not None
        assert rebuilt.llm.api_key.get_secret_value() == "sk-worker-key"
        assert rebuilt.search.collections == ("notes",)
        assert rebuilt.data_dir == local.data_dir
    finally:
        executor.shutdown()


def test_cancel_of_a_queued_run_ends_it_and_the_worker_skips_it(
        queue_env: Settings) -> None:
    executor = QueueExecutor(queue_env, reap=False)
    try:
        first = executor.submit(_request())
        second = executor.submit(_request("How is coffee roasted?"))
        assert executor.status(second).queue_position == 2
        assert executor.cancel(first) is True
        assert executor.status(first).state == "cancelled"
        assert executor.cancel(first) is False  # already ended
        work(queue_env, burst=True)
        assert executor.status(first).state == "cancelled"
        assert executor.status(second).state == "completed"
        with pytest.raises(UnknownRunError):
            executor.status("0" * 32)
    finally:
        executor.shutdown()


def test_a_run_cancelled_while_running_stops_on_its_worker(
        queue_env: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    executor = QueueExecutor(queue_env, reap=False)

    def cancel_then_answer(prompt: str) -> str:
        executor.cancel(run_id)  # the user presses Cancel while the model is busy...
        time.sleep(1.5)  # ...and the worker notices before the model replies
        return "Green tea is steamed [1]."

    model = ScriptedChatModel(script={"synthesis": [cancel_then_answer]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    try:
        run_id = executor.submit(_request(strategy="source-based", iterations=3))
        work(queue_env, burst=True)
        assert executor.status(run_id).state == "cancelled"
    finally:
        executor.shutdown()


def test_submit_with_redis_down_is_a_clear_error_and_leaves_no_stuck_run(
        queue_env: Settings, redis_server: RedisServer) -> None:  # noqa: F811
    executor = QueueExecutor(queue_env, reap=False)
    try:
        redis_server.stop()
        with pytest.raises(QueueError, match=r"unreachable.*check that Redis is running"):
            executor.submit(_request())
        stuck = [r for r in executor.store.list(limit=10) if r.status == "queued"]
        assert stuck == []
        redis_server.start()
        run_id = executor.submit(_request())  # works again once Redis is back
        assert executor.status(run_id).state == "queued"
    finally:
        redis_server.ensure_running()
        executor.shutdown()


def test_a_run_whose_worker_went_silent_is_requeued_once_then_interrupted(
        queue_env: Settings, redis_url: str) -> None:  # noqa: F811
    from redis import Redis
    from rq.job import Job

    settings = queue_env.model_copy(update={"queue": queue_env.queue.model_copy(
        update={"heartbeat_timeout_seconds": 0.05, "max_attempts": 2})})
    executor = QueueExecutor(settings, reap=False)
    client = Redis.from_url(redis_url)
    reaper = Reaper(settings, executor.store, client)
    try:
        run_id = executor.submit(_request())
        assert executor.store.claim(run_id, "ghost:1") is not None  # then it "dies"
        time.sleep(0.2)
        assert reaper.reap_once() == [(run_id, "requeued")]
        assert executor.status(run_id).state == "queued"
        assert Job.exists(f"{run_id}-2", connection=client)
        assert executor.store.claim(run_id, "ghost:2") is not None
        time.sleep(0.2)
        assert reaper.reap_once() == [(run_id, "interrupted")]
        assert executor.status(run_id).state == "interrupted"
        warnings = [e for _, e in executor.store.events_after(run_id)
                    if e.kind == "warning"]
        assert len(warnings) == 2 and "stopped answering" in warnings[0].message
    finally:
        executor.shutdown()


def test_the_reaper_marks_an_in_process_run_whose_process_died_never_requeues_it(
        queue_env: Settings, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from redis import Redis

    import deepcite.store.held as held

    executor = QueueExecutor(queue_env, reap=False)
    reaper = Reaper(queue_env, executor.store, Redis.from_url(redis_url))
    cli = HistoryStore.open(queue_env)  # a `deepcite report` on the same store
    try:
        run_id = cli.begin("Still going?", mode="detailed", settings=queue_env)
        assert reaper.reap_once() == []  # alive: its heartbeat is fresh
        cli._stop_keeper()  # the process is killed: no more heartbeats
        monkeypatch.setattr(held, "STALE_S", 0.0)  # silent for long enough
        time.sleep(0.05)
        done = reaper.reap_once()
    finally:
        cli._engine.dispose()
        executor.shutdown()
    assert done == [(run_id, "interrupted")]


def test_queued_runs_redis_lost_are_enqueued_again(queue_env: Settings,
                                                  redis_server: RedisServer) -> None:  # noqa: F811
    from redis import Redis
    from rq.job import Job

    executor = QueueExecutor(queue_env, reap=False)
    try:
        run_id = executor.submit(_request())
        redis_server.restart()  # no persistence: the job is gone, the store still has it
        client = Redis.from_url(redis_server.url)
        assert not Job.exists(f"{run_id}-1", connection=client)
        reaper = Reaper(queue_env, executor.store, client)
        assert reaper.sweep_queued() == [run_id]
        work(queue_env, burst=True)
        assert executor.status(run_id).state == "completed"
    finally:
        executor.shutdown()


def test_worker_and_history_agree_the_run_exists_once(queue_env: Settings) -> None:
    executor = QueueExecutor(queue_env, reap=False)
    try:
        ids = [executor.submit(_request()) for _ in range(3)]
        work(queue_env, burst=True)
        with HistoryStore.open(queue_env) as store:
            listed = [r.id for r in store.list(limit=50)]
        assert sorted(listed) == sorted(ids)
        assert all(executor.status(i).state == "completed" for i in ids)
    finally:
        executor.shutdown()


@pytest.mark.parametrize("concurrency", ["1", "2"])
def test_an_idle_worker_stops_on_sigterm(queue_env: Settings, redis_url: str,  # noqa: F811
                                         concurrency: str) -> None:
    """SIGTERM (a service manager, Ctrl-C's twin) ends an idle worker: it must not read
    the end of RQ's loop as a lost Redis and start again."""
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ, "DEEPCITE_QUEUE_URL": redis_url,
           "DEEPCITE_DATA_DIR": str(queue_env.data_dir)}
    process = subprocess.Popen([sys.executable, "-m", "tests.worker_launcher", "worker",
                                "--concurrency", concurrency], env=env,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        for line in process.stderr:  # wait until it has started
            if line.startswith("deepcite worker:"):
                break
        process.send_signal(signal.SIGTERM)  # possibly while it is still starting
        # a guard against a hang, not a timing: on a loaded 2-core machine a worker
        # still importing when the signal comes took over 30 s to finish starting
        assert process.wait(timeout=120) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
