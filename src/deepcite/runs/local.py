"""The in-process run executor: a small thread pool, a visible queue, live events.

A research run holds a model and engines for minutes, so only ``workers`` run at once
and the rest wait in a FIFO queue whose positions the pages show. Every run is in the
history store from the moment it is submitted (its id is the store's id), ``queued``
until a worker thread takes it and ``running`` from then, so every reader (another
server, ``deepcite history``) sees where it is. A run a crashed server never finished
is still listed - and marked ``interrupted`` as soon as a reader on the same host sees
that the server's process is gone, or by a server elsewhere once its heartbeat stops.

Events are numbered from 1 in one in-memory list per run, guarded by a single
condition: every reader (SSE streams, pages, polling clients) sees the same order, and
waits on the condition rather than polling. Runs this process no longer holds (older
ones, or from before a restart) are read back from the store.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from datetime import UTC, datetime

from deepcite.config import Settings
from deepcite.errors import (
    ConfigError,
    DeepciteError,
    ShuttingDown,
    StoreError,
    UnknownRunError,
    error_line,
)
from deepcite.runs.admission import admit
from deepcite.runs.cancel_scope import CancelScope
from deepcite.runs.execute import run_recorded
from deepcite.runs.executor import EventBatch, RunInfo, RunState
from deepcite.runs.recorder import Recorder
from deepcite.runs.request import RunRequest
from deepcite.store import ENDED, HistoryStore, StoredRun
from deepcite.types import Event, ResearchResult

logger = logging.getLogger(__name__)

#: Ended runs kept in memory (with their events) before reads go to the store.
KEEP_FINISHED = 200
#: How long :meth:`LocalRunExecutor.shutdown` waits for cancelled runs to stop.
SHUTDOWN_WAIT_S = 30.0
#: How often the server looks for runs a dead process left ``running``.
WATCH_S = 30.0


@dataclass
class _Run:
    """One run as this process holds it; every field is guarded by the executor's lock."""

    id: str
    request: RunRequest
    settings: Settings
    created_at: datetime
    state: RunState = "queued"
    finished_at: datetime | None = None
    error: str | None = None
    parent: ResearchResult | None = None
    events: list[Event] = field(default_factory=list)
    scope: CancelScope = field(default_factory=CancelScope)


class LocalRunExecutor:
    """:class:`~deepcite.web.contracts.RunExecutor` on threads of this process."""

    def __init__(self, settings: Settings, *, workers: int = 2,
                 store: HistoryStore | None = None) -> None:
        """Open the history store (``settings``' unless ``store`` is given), mark the
        runs a previous server left ``running`` as interrupted, start the workers."""
        if workers < 1:
            raise ConfigError(f"workers must be at least 1, not {workers}")
        self._settings = settings
        self._store = store if store is not None else HistoryStore.open(settings)
        self._owns_store = store is None
        self._lock = threading.Condition()
        self._stopped = threading.Event()
        self._mark_orphans()
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self._queue: deque[str] = deque()
        self._closing = False
        self._threads = [threading.Thread(target=self._work, name=f"deepcite-web-{n}",
                                          daemon=True) for n in range(1, workers + 1)]
        for thread in self._threads:
            thread.start()
        self._watcher = threading.Thread(target=self._watch, name="deepcite-web-watch",
                                         daemon=True)
        self._watcher.start()

    @property
    def store(self) -> HistoryStore:
        """The history store runs are recorded in (routes read history and results here)."""
        return self._store

    # ------------------------------------------------------------------ protocol

    def use_settings(self, settings: Settings) -> None:
        self._settings = settings  # one reference: a submit reads the old or the new

    def submit(self, request: RunRequest) -> str:
        admitted = admit(self._store, request, self._settings)
        request, settings, parent = admitted.request, admitted.settings, admitted.parent
        with self._lock:
            if self._closing:
                raise ShuttingDown("The server is shutting down - submit the run again "
                                   "once it is back")
        run_id = self._store.begin(request.question, mode=request.mode, settings=settings,
                                   parent_id=request.parent_id, request=request.stored(),
                                   owner_id=request.owner_id, queued=True)
        run = _Run(run_id, request, settings, datetime.now(UTC),
                   parent=parent.result if parent else None)
        with self._lock:
            self._runs[run_id] = run
            self._queue.append(run_id)
            self._lock.notify_all()
        return run_id

    def cancel(self, run_id: str) -> bool:
        with self._lock:
            run = self._runs.get(run_id)
            if run is None:
                self._stored(run_id)  # UnknownRunError for an unknown id
                return False
            if run.state in ENDED:
                return False
            queued = run.state == "queued"
            if queued:
                self._queue.remove(run_id)
                self._end(run, "cancelled")
        if queued:
            self._store_unstarted(run, interrupted=False)
        run.scope.cancel()  # a run still being set up cancels as soon as it can
        return True

    def status(self, run_id: str) -> RunInfo:
        with self._lock:
            run = self._runs.get(run_id)
            if run is not None:
                position = (self._queue.index(run_id) + 1 if run.state == "queued"
                            else None)
                return RunInfo(id=run.id, question=run.request.question,
                               mode=run.request.mode, state=run.state,
                               queue_position=position, created_at=run.created_at,
                               finished_at=run.finished_at, error=run.error)
        stored = self._stored(run_id)
        return RunInfo(id=stored.id, question=stored.result.question, mode=stored.mode,
                       state=stored.status, created_at=stored.created_at,
                       finished_at=stored.finished_at, error=stored.result.error)

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        after = max(after, 0)
        with self._lock:
            run = self._runs.get(run_id)
            if run is not None:
                self._lock.wait_for(lambda: len(run.events) > after or run.state in ENDED,
                                    timeout=max(timeout, 0.0))
                fresh = run.events[after:]
                return EventBatch([(after + n, e) for n, e in enumerate(fresh, 1)],
                                  finished=run.state in ENDED)
        stored = self._stored(run_id)
        fresh = stored.events[after:]
        return EventBatch([(after + n, e) for n, e in enumerate(fresh, 1)],
                          finished=stored.status in ENDED)

    def drain(self) -> None:
        """Stop taking runs and cancel the queued and running ones, without waiting:
        what a signal handler calls, so that live event streams end (each with its
        run's last events) while the server is still serving them. :meth:`shutdown`
        then waits for the runs to be stored."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            queued = [self._runs[run_id] for run_id in self._queue]
            self._queue.clear()
            running = [run for run in self._runs.values() if run.state == "running"]
            for run in queued:
                self._end(run, "interrupted")
            self._lock.notify_all()
        for run in queued:
            self._store_unstarted(run, interrupted=True)
        for run in running:
            run.scope.cancel()

    def shutdown(self) -> None:
        self.drain()
        with self._lock:
            if self._stopped.is_set():
                return
            self._stopped.set()
        self._watcher.join(timeout=5.0)
        for thread in self._threads:
            thread.join(SHUTDOWN_WAIT_S / len(self._threads))
        with self._lock:  # runs that did not stop in time (only ours: a CLI run on
            # the same store is none of this server's business)
            left = [run for run in self._runs.values() if run.state == "running"]
        for run in left:
            logger.warning("run %s did not stop in time; stored as interrupted", run.id[:8])
            try:
                self._store.interrupt(run.id)
            except StoreError as exc:
                logger.warning("run %s could not be stored: %s", run.id[:8], exc)
        if self._owns_store:
            self._store.close()

    # ------------------------------------------------------------------ workers

    def _work(self) -> None:
        while True:
            with self._lock:
                self._lock.wait_for(lambda: bool(self._queue) or self._closing)
                if self._closing:
                    return
                run = self._runs[self._queue.popleft()]
                run.state = "running"
                self._lock.notify_all()
            self._started(run)
            self._execute(run)

    def _execute(self, run: _Run) -> None:
        """Run one request and record how it ended; never raises (it would kill a worker)."""
        try:
            with Recorder(self._store, run.id) as recorder:
                result = run_recorded(run.request, run.settings, recorder, _Feed(self, run),
                                      run.scope, parent=run.parent, stopping=self._stopping)
        except Exception as exc:  # every failure ends the run, logged, never the worker
            if isinstance(exc, DeepciteError):
                logger.warning("run %s failed: %s", run.id[:8], error_line(exc))
            else:
                logger.exception("run %s crashed", run.id[:8])
            with self._lock:
                self._end(run, "failed", error_line(exc))
            return
        state: RunState = ("interrupted" if result.cancelled and self._stopping()
                           else "cancelled" if result.cancelled
                           else "failed" if result.error else "completed")
        with self._lock:
            self._end(run, state, result.error)
            if recorder.deleted:  # deleted while it ran: gone for every reader too
                self._runs.pop(run.id, None)

    def _started(self, run: _Run) -> None:
        """Say in the store that ``run`` left the queue: it read ``queued`` until now."""
        try:
            self._store.start(run.id)
        except StoreError as exc:  # the research goes on; its end is stored as usual
            logger.warning("run %s could not be marked running: %s", run.id[:8], exc)

    def _stopping(self) -> bool:
        with self._lock:
            return self._closing

    def _append(self, run: _Run, event: Event) -> None:
        """Keep ``event`` for this process's readers (the store has it from the
        recorder) and wake the streams waiting for it."""
        with self._lock:
            run.events.append(event)
            self._lock.notify_all()

    def _store_unstarted(self, run: _Run, *, interrupted: bool) -> None:
        """Store a run that ended before it started, with an empty result."""
        empty = ResearchResult(question=run.request.question, answer="", strategy="",
                               handler="", cancelled=True, mode=run.request.mode)
        try:
            if interrupted:
                self._store.interrupt(run.id, empty)
            else:
                self._store.finish(run.id, empty)
        except StoreError as exc:
            logger.warning("run %s could not be stored: %s", run.id[:8], exc)

    # ------------------------------------------------------------------ plumbing

    def _mark_orphans(self) -> None:
        """Mark runs no live process holds as interrupted (never another live CLI,
        MCP or server's run: they keep a heartbeat)."""
        try:
            interrupted = self._store.mark_interrupted()
        except StoreError as exc:
            logger.warning("could not look for runs left by a stopped process: %s", exc)
            return
        if interrupted:
            logger.warning("marked %d run(s) left running by a stopped process as "
                           "interrupted", len(interrupted))

    def _watch(self) -> None:
        """Now and then, mark runs whose process died after this server started (a
        killed CLI, a crashed second server), so none stays ``running`` forever."""
        while not self._stopped.wait(WATCH_S):
            self._mark_orphans()

    def _end(self, run: _Run, state: RunState, error: str | None = None) -> None:
        """Mark ``run`` ended (lock held); forget the oldest ended runs past the limit."""
        run.state, run.error, run.finished_at = state, error, datetime.now(UTC)
        self._lock.notify_all()
        ended = [key for key, kept in self._runs.items() if kept.state in ENDED]
        for key in ended[:max(len(ended) - KEEP_FINISHED, 0)]:
            del self._runs[key]

    def _stored(self, run_id: str) -> StoredRun:
        """The stored run ``run_id`` (a full id); :class:`UnknownRunError` when the store
        has none (a damaged run or a store that is down raise their own error)."""
        stored = self._store.get(run_id)
        if stored.id != run_id:  # a prefix: routes name runs by their full id only
            raise UnknownRunError(f"No run {run_id!r}")
        return stored


@dataclass(frozen=True)
class _Feed:
    """The sink of one pooled run: its events, numbered, for this process's readers."""

    executor: LocalRunExecutor
    run: _Run

    def event(self, event: Event) -> None:
        self.executor._append(self.run, event)
