"""The history record of one run: begun, its events appended as they happen, ended.

One :class:`Recorder` serves every front end that runs research in its own process
(CLI, Python scripts, MCP, the web app's pool). It is a :class:`~deepcite.runs.sink.
RunSink`, so events reach the store the moment they happen (the store's keeper writes
them within half a second), and a run that crashes, is cancelled or is cut short by a
stopping process is still stored, as such, with what it had.

A store that cannot be opened or written is a reported problem, not a failed run: the
research is what the user came for, and losing it to a history problem would be the
worse outcome. Problems go to ``on_problem`` (the CLI shows them, servers log them).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from types import TracebackType

from deepcite.config import Settings
from deepcite.errors import DeepciteError, UnknownRunError
from deepcite.runs.request import RunRequest
from deepcite.store import HistoryStore
from deepcite.types import Event, ResearchResult

__all__ = ["Recorder", "close_active"]

logger = logging.getLogger(__name__)

#: Recorders of runs in flight in this process, closed (their runs stored) on exit.
_ACTIVE: set[Recorder] = set()
_ACTIVE_LOCK = threading.Lock()


class Recorder:
    """Records one run in a :class:`~deepcite.store.HistoryStore` (or nothing)."""

    def __init__(self, store: HistoryStore | None, run_id: str | None, *,
                 owns_store: bool = False,
                 on_problem: Callable[[str], None] = logger.warning) -> None:
        self._store = store
        self.run_id = run_id
        self._owns_store = owns_store
        self._problem = on_problem
        #: The run was deleted while it ran: its end is dropped, for every reader.
        self.deleted = False
        if run_id is not None:
            with _ACTIVE_LOCK:
                _ACTIVE.add(self)

    @classmethod
    def begin(cls, settings: Settings, request: RunRequest, *, save: bool = True,
              store: HistoryStore | None = None,
              on_problem: Callable[[str], None] = logger.warning) -> Recorder:
        """Record a run of ``request`` that starts now (in ``store``, else in the
        settings' own store, opened here and closed by :meth:`close`)."""
        if not save:
            return cls(store, None, owns_store=False, on_problem=on_problem)
        owns = store is None
        try:
            store = store or HistoryStore.open(settings)
            run_id = store.begin(request.question, mode=request.mode, settings=settings,
                                 parent_id=request.parent_id, request=request.stored(),
                                 owner_id=request.owner_id)
        except DeepciteError as exc:
            on_problem(f"This run will not be saved to the history: {exc}")
            return cls(store, None, owns_store=owns, on_problem=on_problem)
        return cls(store, run_id, owns_store=owns, on_problem=on_problem)

    @property
    def store(self) -> HistoryStore | None:
        """The store the run is recorded in (``None`` when nothing is saved)."""
        return self._store

    def event(self, event: Event) -> None:
        """Keep ``event`` with the run (written within the store's flush interval)."""
        if self._store is not None and self.run_id is not None:
            self._store.record_event(self.run_id, event)

    def finish(self, result: ResearchResult, *, interrupted: bool = False) -> None:
        """Store how the run ended: its result (``interrupted``: the process stopped
        it, so it is stored as interrupted rather than cancelled)."""
        self._write(lambda store, run_id: store.interrupt(run_id, result) if interrupted
                    else store.finish(run_id, result),
                    "The run could not be saved to the history")

    def fail(self, error: str) -> None:
        """Store that the run crashed with ``error`` (its events are kept)."""
        self._write(lambda store, run_id: store.fail(run_id, error),
                    "The failed run could not be saved to the history")

    def stop(self, message: str) -> None:
        """Record at once that the run is being cancelled, without waiting for the
        research to notice (a client that went away)."""
        self._write(lambda store, run_id: store.stop_requested(run_id, message),
                    "The cancel could not be saved to the history")

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Write what is buffered; a run that never ended is stored as interrupted
        when the store is this recorder's own."""
        with _ACTIVE_LOCK:
            _ACTIVE.discard(self)
        if self._store is not None and self._owns_store:
            self._store.close()

    def _write(self, write: Callable[[HistoryStore, str], object], what: str) -> None:
        if self._store is None or self.run_id is None or self.deleted:
            return
        try:
            write(self._store, self.run_id)
        except UnknownRunError:  # deleted while it ran: gone for every reader too
            logger.info("run %s was deleted while it ran; its end was dropped",
                        self.run_id[:8])
            self.deleted = True
        except DeepciteError as exc:
            self._problem(f"{what}: {exc}")


def close_active() -> None:
    """Store every run this process still records (``interrupted``, with its events)
    instead of leaving it ``running``: what a server calls as it exits."""
    with _ACTIVE_LOCK:
        active = list(_ACTIVE)
    for recorder in active:
        recorder.close()
