"""``deepcite worker``: processes that take queued runs and execute them.

Each worker process runs an RQ :class:`~rq.SimpleWorker` (jobs run in the process, so
a loaded model is reused from one run to the next) on ``queue.url``; ``--concurrency
N`` starts N of them under one supervisor that restarts any that dies. A run is
claimed in the store first (so a job delivered twice runs once), its settings are the
snapshot it was submitted with plus this machine's own secrets, data dir and store,
its owner, parent and collections are checked again with the owner's rights of now
(:func:`~deepcite.runs.admission.readmit`; a refused run ends ``failed`` with the reason),
and while it works a holder thread heartbeats it, watches for a cancel request, and
stops it if the store says it is no longer this worker's (the reaper gave it away).
Events are appended to the store as they happen and announced on Redis pub/sub.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from redis.exceptions import RedisError

from deepcite.config import Settings, load_settings
from deepcite.errors import DeepciteError, QueueError, StoreError, error_line
from deepcite.runs import CancelScope, RunRequest, execute
from deepcite.runs.admission import readmit
from deepcite.runs.queue.connection import events_channel, redis_connection
from deepcite.runs.queue.reaper import Reaper
from deepcite.store import HistoryStore
from deepcite.store.snapshot import restore_settings
from deepcite.types import Event

logger = logging.getLogger(__name__)

#: How often the holder looks for a cancel request between heartbeats.
CANCEL_POLL_S = 0.5
#: Pause before a worker reconnects to a Redis that went away.
RECONNECT_S = 2.0


@dataclass
class _Context:
    """What one worker process keeps between runs."""

    settings: Settings
    store: HistoryStore
    worker_id: str
    client: Any  # redis.Redis, for announcements


_CONTEXT: _Context | None = None
_CONTEXT_LOCK = threading.Lock()


def _context() -> _Context:
    global _CONTEXT
    with _CONTEXT_LOCK:
        if _CONTEXT is None:
            settings = load_settings()
            _CONTEXT = _Context(settings, HistoryStore.open(settings),
                                f"{socket.gethostname()}:{os.getpid()}",
                                redis_connection(settings.queue.url or ""))
        return _CONTEXT


@dataclass
class _Holder:
    """Heartbeats one run, relays cancel requests, stores and announces its events."""

    context: _Context
    run_id: str
    scope: CancelScope = field(default_factory=CancelScope)
    lost: bool = False
    pending: list[Event] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopped: threading.Event = field(default_factory=threading.Event)

    def event(self, event: Event) -> None:
        with self.lock:
            self.pending.append(event)
        self.flush()

    def flush(self) -> None:
        """Store the events not yet stored (kept for the next try if the store is away)."""
        with self.lock:
            batch, self.pending = self.pending, []
            if not batch:
                return
            try:
                self.context.store.append_events(self.run_id, batch)
            except StoreError as exc:
                self.pending = batch + self.pending
                logger.warning("run %s: events kept for later: %s", self.run_id[:8], exc)
                return
        try:
            self.context.client.publish(events_channel(self.run_id), "events")
        except RedisError as exc:  # redis errors: SSE clients still poll the store
            logger.info("could not announce run %s: %s", self.run_id[:8], exc)

    def watch(self) -> None:
        """The holder thread: cancel requests every CANCEL_POLL_S, heartbeats as set."""
        store, worker = self.context.store, self.context.worker_id
        every = self.context.settings.queue.heartbeat_seconds
        last_beat = time.monotonic()
        while not self.stopped.wait(CANCEL_POLL_S):
            try:
                if store.run_state(self.run_id).cancel_requested:
                    self.scope.cancel()
                if time.monotonic() - last_beat >= every:
                    last_beat = time.monotonic()
                    if not store.heartbeat(self.run_id, worker):
                        logger.warning("run %s is no longer this worker's; stopping it",
                                       self.run_id[:8])
                        self.lost = True
                        self.scope.cancel()
                        return
            except StoreError as exc:  # the store is away: the run goes on meanwhile
                logger.warning("run %s: %s", self.run_id[:8], exc)


def run_queued(run_id: str) -> str:
    """The RQ job: claim ``run_id``, execute it, store how it ended; what happened."""
    context = _context()
    claimed = context.store.claim(run_id, context.worker_id)
    if claimed is None:
        return "not queued (cancelled, or claimed elsewhere)"
    holder = _Holder(context, run_id)
    watcher = threading.Thread(target=holder.watch, name=f"deepcite-hold-{run_id[:8]}",
                               daemon=True)
    watcher.start()
    worker = context.worker_id
    try:
        settings = restore_settings(claimed.settings, context.settings)
        # Checked again now, with the owner's rights of now: the run may have waited
        # while its owner was disabled, removed or stopped being an admin.
        admitted = readmit(context.store, RunRequest.model_validate(claimed.request),
                           settings)
        parent = admitted.parent.result if admitted.parent is not None else None
        result = execute(admitted.request, settings, holder, holder.scope, parent=parent)
    except Exception as exc:  # any failure ends the run as failed, never the worker
        holder.stopped.set()
        holder.flush()
        message = error_line(exc)
        if not isinstance(exc, DeepciteError):
            logger.exception("run %s crashed", run_id[:8])
        _end(context, run_id, lambda: context.store.fail(run_id, message, worker=worker))
        return f"failed: {message}"
    holder.stopped.set()
    watcher.join(CANCEL_POLL_S * 2)
    holder.flush()
    if holder.lost:
        return "given up: the run was re-queued or ended elsewhere"
    _end(context, run_id, lambda: context.store.finish(run_id, result, worker=worker))
    return "cancelled" if result.cancelled else "failed" if result.error else "completed"


def _end(context: _Context, run_id: str, write: Callable[[], None]) -> None:
    try:
        write()
    except StoreError as exc:
        logger.warning("run %s: %s", run_id[:8], exc)
    try:
        context.client.publish(events_channel(run_id), "ended")
    except RedisError as exc:  # redis errors: SSE clients still poll the store
        logger.info("could not announce run %s: %s", run_id[:8], exc)


# ---------------------------------------------------------------------- processes


def _worker_class() -> type[Any]:
    """RQ's SimpleWorker, remembering whether a signal asked it to stop (its loop ends
    the same way after a stop request as after a lost Redis)."""
    from rq import SimpleWorker

    class StoppableWorker(SimpleWorker):
        stop_asked = False

        def request_stop(self, signum: int, frame: FrameType | None) -> None:
            self.stop_asked = True
            super().request_stop(signum, frame)  # type: ignore[no-untyped-call]

    return StoppableWorker


def work(settings: Settings, *, burst: bool = False) -> None:
    """One worker process's loop: take jobs until stopped (or, ``burst``, until the
    queue is empty); a Redis that goes away is waited for, not fatal."""
    from rq import Queue

    url = settings.queue.url or ""
    context = _context()
    reaper = Reaper(settings, context.store, context.client)
    reaper.start()
    # RQ installs its own SIGINT/SIGTERM handlers and never puts the previous ones back:
    # a program (or test) that calls work() keeps its own Ctrl-C once it returns.
    main = threading.current_thread() is threading.main_thread()
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while True:
            try:
                client = redis_connection(url, timeout=None)
                queue = Queue(settings.queue.queue_name, connection=client)
                name = f"deepcite-{context.worker_id.replace(':', '-')}-{time.time_ns()}"
                rq_worker = _worker_class()([queue], connection=client, name=name)
                rq_worker.work(burst=burst, with_scheduler=False, logging_level="WARNING")
                # RQ's loop also returns (instead of raising) after an error it caught,
                # e.g. Redis going away mid-job: only a stop request ends this worker.
                if burst or rq_worker.stop_asked:
                    return
                logger.warning("the job loop ended without a stop request; restarting in "
                               "%.0f s", RECONNECT_S)
            except QueueError as exc:
                logger.warning("%s; retrying in %.0f s", exc, RECONNECT_S)
            except RedisError as exc:  # redis.ConnectionError mid-work: reconnect
                logger.warning("lost the job queue (%s); retrying in %.0f s", exc,
                               RECONNECT_S)
            if burst:
                return
            time.sleep(RECONNECT_S)
    finally:
        reaper.stop()
        if main:
            for sig, handler in handlers.items():
                signal.signal(sig, handler)


def _die_with_parent() -> None:
    """Linux: this child gets SIGKILL when the supervisor dies, so a killed supervisor
    leaves no worker running unsupervised (elsewhere: best effort, nothing)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _child(burst: bool) -> None:
    _die_with_parent()
    work(load_settings(), burst=burst)


def supervise(settings: Settings, concurrency: int, *, burst: bool = False,
              started: Callable[[], None] | None = None) -> None:
    """Run ``concurrency`` worker processes, restarting any that dies, until SIGTERM or
    Ctrl-C (which RQ turns into a warm shutdown: runs in progress finish first).

    ``started`` is called in this process once the workers are forked (before the one
    worker's loop with ``concurrency`` 1): the place to start threads, which a fork
    must not copy half-way through their work (the watch scheduler)."""
    if concurrency == 1:
        if started is not None:
            started()
        work(settings, burst=burst)
        return
    spawn = multiprocessing.get_context("fork")
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    previous = signal.signal(signal.SIGTERM, stop)
    children = [spawn.Process(target=_child, args=(burst,), name=f"deepcite-worker-{n}")
                for n in range(concurrency)]
    for child in children:
        child.start()
    if started is not None:
        started()
    try:
        while not stopping.is_set():
            for n, child in enumerate(children):
                if not child.is_alive() and not burst:
                    logger.warning("worker %s exited (%s); starting another", child.name,
                                   child.exitcode)
                    children[n] = spawn.Process(target=_child, args=(burst,),
                                                name=child.name)
                    children[n].start()
            if burst and not any(child.is_alive() for child in children):
                return
            stopping.wait(1.0)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        for child in children:
            if child.is_alive() and child.pid is not None:
                os.kill(child.pid, signal.SIGTERM)
        for child in children:
            child.join()
