"""What front ends rely on to run research in the background: the executor interface.

Routes (REST, SSE, pages) and MCP talk to background runs only through
:class:`RunExecutor`: submit, cancel, status, events. The in-process pool
(:class:`deepcite.runs.local.LocalRunExecutor`) and the queue
(:class:`deepcite.runs.queue.executor.QueueExecutor`) implement it, so a deployment
picks one without touching a route.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel

from deepcite.config import Settings
from deepcite.runs.request import RunRequest
from deepcite.store import HistoryStore
from deepcite.store.read_models import RunStatus
from deepcite.types import Event, ReportMode

__all__ = ["EventBatch", "RunExecutor", "RunInfo", "RunState"]

#: Where a run is: waiting for a worker, working, or one of the ends the store keeps
#: (``interrupted``: the server stopped while it ran) - the store's own literal.
RunState = RunStatus


class RunInfo(BaseModel):
    """A run's state for status endpoints and pages."""

    id: str
    question: str
    mode: ReportMode
    state: RunState
    #: 1 for the next run to start; ``None`` unless queued.
    queue_position: int | None = None
    created_at: datetime
    finished_at: datetime | None = None
    error: str | None = None


@dataclass(frozen=True)
class EventBatch:
    """Events of a run after a given sequence number; ``finished`` once the run ended
    and every event was delivered."""

    events: list[tuple[int, Event]]
    finished: bool
    #: The server is stopping and will not see this run end: a stream should close
    #: now (its client reconnects with ``Last-Event-ID`` to a server that is up).
    draining: bool = False


class RunExecutor(Protocol):
    """Runs research requests in the background; every method is thread-safe."""

    @property
    def store(self) -> HistoryStore:
        """The history store the runs are recorded in (routes read results here)."""
        ...

    def submit(self, request: RunRequest) -> str:
        """Queue ``request``; returns the run id (the history store's id)."""
        ...

    def use_settings(self, settings: Settings) -> None:
        """Admit the runs submitted from now on with ``settings`` (the settings page
        saved a change); runs already submitted keep the settings they were given."""
        ...

    def cancel(self, run_id: str) -> bool:
        """Cancel a queued or running run; ``False`` when it had already ended."""
        ...

    def status(self, run_id: str) -> RunInfo:
        """The run's state; :class:`~deepcite.errors.UnknownRunError` for an unknown id
        (as for every method here that takes one)."""
        ...

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        """Events numbered above ``after`` (1-based, in order); waits up to ``timeout``
        seconds for new ones. Every caller sees the same ordered events."""
        ...

    def drain(self) -> None:
        """Stop taking runs and start ending the ones this process runs; returns at
        once (called when a stop signal arrives, while streams are still served)."""
        ...

    def shutdown(self) -> None:
        """Stop taking runs; cancel running ones (stored as interrupted, with their
        events and partial results) and wait for them to be stored."""
        ...
