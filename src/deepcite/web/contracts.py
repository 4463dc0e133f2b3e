"""What the web app's routes rely on: a run request, a run's state, the executor.

Routes (REST, SSE, pages) talk to runs only through :class:`RunExecutor`: submit,
cancel, status, events. The in-process pool (:mod:`deepcite.web.runs`) implements it
today; a distributed queue can replace it later without touching a route.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from deepcite.config import Settings
from deepcite.types import Event, ReportMode

#: Where a run is: waiting for a worker, working, or one of the ends the store keeps
#: (``interrupted``: the server stopped while it ran).
RunState = Literal["queued", "running", "completed", "cancelled", "failed", "interrupted"]


class RunRequest(BaseModel):
    """A research request, as the form and ``POST /api/v1/research`` send it."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=4000)
    mode: ReportMode = "quick"
    strategy: str | None = None
    engines: list[str] = Field(default_factory=list)
    collections: list[str] = Field(default_factory=list)
    provider: str | None = None
    model: str | None = None
    iterations: int | None = Field(default=None, ge=1, le=20)
    #: The user's materials: ``{url, content, material_id?, title?, ...}`` objects.
    materials: list[dict[str, Any]] = Field(default_factory=list)


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


class RunExecutor(Protocol):
    """Runs research requests in the background; every method is thread-safe."""

    def submit(self, request: RunRequest) -> str:
        """Queue ``request``; returns the run id (the history store's id)."""
        ...

    def cancel(self, run_id: str) -> bool:
        """Cancel a queued or running run; ``False`` when it had already ended."""
        ...

    def status(self, run_id: str) -> RunInfo:
        """The run's state; raises ``KeyError`` for an unknown id."""
        ...

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        """Events numbered above ``after`` (1-based, in order); waits up to ``timeout``
        seconds for new ones. Every caller sees the same ordered events."""
        ...

    def shutdown(self) -> None:
        """Stop taking runs; cancel running ones (stored as interrupted)."""
        ...


@dataclass
class WebState:
    """What every route gets: the settings snapshot, the executor and the access rules.

    ``token`` is required for the API (``Authorization: Bearer ...``) and as the pages'
    login password when the server binds to a non-loopback address; ``None`` on
    loopback. ``folder_roots`` are the server folders collections may be added from.
    """

    settings: Settings
    executor: RunExecutor
    token: str | None = None
    folder_roots: tuple[str, ...] = ()
