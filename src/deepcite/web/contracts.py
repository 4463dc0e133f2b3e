"""What the web app's routes rely on: a run request, a run's state, the executor.

Routes (REST, SSE, pages) talk to runs only through :class:`RunExecutor`: submit,
cancel, status, events. The in-process pool (:mod:`deepcite.web.runs`) implements it
today; a distributed queue can replace it later without touching a route.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from deepcite.collections.collection import validate_name
from deepcite.config import Settings
from deepcite.errors import CollectionError
from deepcite.materials.limits import MAX_MATERIALS, MAX_TOTAL_CHARS
from deepcite.materials.model import MAX_FIELD_CHARS, MAX_URL_CHARS
from deepcite.run_checks import (
    MAX_COLLECTIONS,
    MAX_ENGINES,
    MAX_MODEL_CHARS,
    MAX_NAME_CHARS,
    MAX_QUESTION_CHARS,
    text_problem,
)
from deepcite.store.records import RunStatus
from deepcite.types import Event, ReportMode

#: Where a run is: waiting for a worker, working, or one of the ends the store keeps
#: (``interrupted``: the server stopped while it ran) - the store's own literal.
RunState = RunStatus


def _collection_name(name: str) -> str:
    """A collection name, never a path (``CollectionError`` is not a ValueError, so it is
    turned into one for pydantic to report against the list item)."""
    try:
        return validate_name(name)
    except CollectionError as exc:
        raise ValueError(str(exc)) from None


_Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)]
_CollectionName = Annotated[str, AfterValidator(_collection_name)]
#: Optional text fields of a material, and their cap (the material model's own).
_MATERIAL_TEXT: dict[str, int] = {"url": MAX_URL_CHARS, "material_id": 64,
                                  "title": MAX_FIELD_CHARS, "publish_time": MAX_FIELD_CHARS,
                                  "content_time": MAX_FIELD_CHARS}
#: Fields a material may have at all (the material model refuses others, by name).
_MATERIAL_FIELDS = len(_MATERIAL_TEXT) + 2  # + content, pages
#: Materials one request may carry: beyond :data:`MAX_MATERIALS` duplicates and extras
#: are dropped with a notice, far beyond it the request is refused.
MAX_REQUEST_MATERIALS = 4 * MAX_MATERIALS
#: Page spans one material may carry (a long PDF has a few thousand pages).
MAX_MATERIAL_PAGES = 20_000


class RunRequest(BaseModel):
    """A research request, as the form and ``POST /api/v1/research`` send it.

    Every string and list is capped, so a request cannot make the server hold or echo a
    megabyte "model name"; whether the names are *known* is checked at submit by
    :func:`deepcite.web.runs.checked_request` (see :mod:`deepcite.run_checks`).
    """

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    mode: ReportMode = "quick"
    strategy: _Name | None = None
    engines: list[_Name] = Field(default_factory=list, max_length=MAX_ENGINES)
    collections: list[_CollectionName] = Field(default_factory=list,
                                               max_length=MAX_COLLECTIONS)
    provider: _Name | None = None
    model: Annotated[str, Field(min_length=1, max_length=MAX_MODEL_CHARS)] | None = None
    iterations: int | None = Field(default=None, ge=1, le=20)
    #: The user's materials: ``{url, content, material_id?, title?, ...}`` objects.
    materials: list[dict[str, Any]] = Field(default_factory=list,
                                            max_length=MAX_REQUEST_MATERIALS)

    @field_validator("question")
    @classmethod
    def _has_text(cls, value: str) -> str:
        problem = text_problem(value, "question")  # the same test as every front end
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("materials")
    @classmethod
    def _material_sizes(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Size caps only; what a material must hold is checked at submit with the
        message naming it (:func:`~deepcite.materials.normalize_materials`)."""
        total = 0
        for number, item in enumerate(value, 1):
            if len(item) > _MATERIAL_FIELDS:
                raise ValueError(f"material {number} has {len(item)} fields; a material "
                                 f"has at most {_MATERIAL_FIELDS}")
            for key, most in _MATERIAL_TEXT.items():
                text = item.get(key)
                if isinstance(text, str) and len(text) > most:
                    raise ValueError(f"material {number}: {key} is longer than {most:,} "
                                     "characters")
            content = item.get("content")
            total += len(content) if isinstance(content, str) else 0
            pages = item.get("pages")
            if isinstance(pages, list) and len(pages) > MAX_MATERIAL_PAGES:
                raise ValueError(f"material {number} has {len(pages):,} pages; at most "
                                 f"{MAX_MATERIAL_PAGES:,}")
        if total > MAX_TOTAL_CHARS:
            raise ValueError(f"the materials hold more than {MAX_TOTAL_CHARS:,} characters "
                             "of content together - hand in fewer or shorter ones")
        return value


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

    def drain(self) -> None:
        """Stop taking runs and start ending the ones this process runs; returns at
        once (called when a stop signal arrives, while streams are still served)."""
        ...

    def shutdown(self) -> None:
        """Stop taking runs; cancel running ones (stored as interrupted, with their
        events and partial results) and wait for them to be stored."""
        ...


@dataclass
class WebState:
    """What every route gets: the settings snapshot, the executor and the access rules.

    ``token`` is required for the API (``Authorization: Bearer ...``) and as the pages'
    login password when the server binds to a non-loopback address; ``None`` on
    loopback. ``folder_roots`` are the server folders collections may be added from.

    ``allowed_hosts`` are the ``Host`` names the server answers (the forms are in
    :mod:`deepcite.web.guard`); others get 421, so a DNS-rebound page cannot read it.
    Empty means no host check - for in-process test clients; ``deepcite serve`` always
    passes its bind address's names (:func:`deepcite.web.guard.allowed_hosts_for`).
    """

    settings: Settings
    executor: RunExecutor
    token: str | None = None
    folder_roots: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()
