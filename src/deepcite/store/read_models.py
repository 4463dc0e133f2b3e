"""What the history store hands out: a summary per run for listings, a whole run to
reopen, a queued run's state for workers, the registered collections. Frozen pydantic
records like those of :mod:`deepcite.types`, so front ends can dump them to JSON as
they are."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from deepcite.types import Event, ReportMode, ResearchResult

RunStatus = Literal["queued", "running", "completed", "cancelled", "failed", "interrupted"]
"""``queued``: waiting for a worker process to claim it (:meth:`HistoryStore.enqueue`;
a run whose worker stopped answering comes back here when it has tries left - see
:meth:`HistoryStore.reap`). ``running`` until the run ends - or, for a run with no
worker heartbeat, forever when its process died before it could say how it ended
(shown as it is: the store cannot tell a crash from a slow run). ``interrupted``: a
server stopped while the run went on (at shutdown, or found still ``running`` when the
next server started - see :meth:`HistoryStore.mark_interrupted`), or its worker
stopped answering after its last try."""

ENDED: frozenset[RunStatus] = frozenset({"completed", "cancelled", "failed", "interrupted"})
"""The states a run never leaves: the one "ended" set every executor and route uses."""
ACTIVE: frozenset[RunStatus] = frozenset({"queued", "running"})
"""The states of a run that has not ended yet (every other state is in :data:`ENDED`)."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class RunSummary(_Record):
    """One line of ``deepcite history``; ``sources`` counts the run's sources."""

    id: str
    created_at: datetime
    question: str
    mode: ReportMode
    status: RunStatus
    sources: int
    parent_id: str | None
    strategy: str | None
    title: str | None
    #: When the run ended (UTC); ``None`` while it runs or when it never said.
    finished_at: datetime | None = None
    #: The front end that started it (``RunRequest.origin``; ``python`` when the stored
    #: request does not say).
    origin: str | None = None
    #: The collections it searched (its settings snapshot's, else its request's).
    collections: list[str] = Field(default_factory=list)
    #: The name of the user it belongs to (``None``: no one; shown to admins).
    owner: str | None = None


class StoredRun(_Record):
    """A run as stored: its result re-assembled from the rows, and its events.

    ``result.answer`` is the stored body (never a Sources block: output renders that
    from ``result.sources``). A run that never ended has an empty answer, and empty
    ``strategy``/``handler`` (what really ran is not known). ``settings`` is the
    snapshot without secrets; ``created_at``/``finished_at`` are UTC.
    """

    id: str
    created_at: datetime
    finished_at: datetime | None
    status: RunStatus
    mode: ReportMode
    parent_id: str | None
    settings: dict[str, Any]
    result: ResearchResult
    events: list[Event]
    #: The run request as kept (no materials' text; ``None`` for runs stored before
    #: requests were kept): what ``deepcite rerun`` runs again.
    request: dict[str, Any] | None = None


class ClaimedRun(_Record):
    """A queued run a worker now holds (:meth:`HistoryStore.claim`): what to research.

    ``request`` is the run request as queued, ``settings`` the stored snapshot (no
    secrets), ``attempts`` counts this try (1 the first time).
    """

    id: str
    question: str
    mode: ReportMode
    request: dict[str, Any]
    settings: dict[str, Any]
    attempts: int


class RunStateInfo(_Record):
    """Where a run stands, read cheaply (no sources, checks or events).

    ``worker`` and ``heartbeat_at`` are those of the worker holding it (or that last
    held it); ``cancel_requested``: a cancel is asked of that worker.
    """

    id: str
    question: str
    mode: ReportMode
    status: RunStatus
    created_at: datetime
    finished_at: datetime | None
    error: str | None
    attempts: int
    cancel_requested: bool
    worker: str | None
    heartbeat_at: datetime | None


class CollectionEntry(_Record):
    """A document collection registered with the store, so every process can list it.

    ``location`` is where it lives for its ``backend`` (a file path, an index name).
    """

    name: str
    backend: str
    location: str
    documents: int
    chunks: int
    created_at: datetime
    updated_at: datetime
    #: What was recorded with it: the chunk sizes, and for one the web app indexed
    #: (``web``) the folder it came from and the last indexing outcome.
    settings: dict[str, Any] = Field(default_factory=dict)


class UserInfo(_Record):
    """A user account as the store hands it out: never its password hash."""

    id: int
    name: str
    is_admin: bool
    disabled: bool
    created_at: datetime
    #: How many of the user's API tokens are not revoked.
    tokens: int = 0


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


class UserBelongings(_Record):
    """What a user owns, as removing them must decide: their ``runs``, ``watches`` and
    the ``collections`` recorded as theirs (names); and their live API ``tokens``,
    which end with the account whatever is decided."""

    runs: int = 0
    watches: int = 0
    collections: list[str] = Field(default_factory=list)
    tokens: int = 0

    @property
    def any_data(self) -> bool:
        """Whether there is anything to delete or hand over (tokens are not: they end)."""
        return bool(self.runs or self.watches or self.collections)

    def summary(self) -> str:
        """``3 runs, 1 watch and 2 collections`` (``nothing`` when there is none)."""
        parts = [_counted(self.runs, "run"), _counted(self.watches, "watch"),
                 _counted(len(self.collections), "collection")]
        parts = [part for part in parts if not part.startswith("0 ")]
        if not parts:
            return "nothing"
        return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


class UserRemoval(_Record):
    """What removing a user did: whose account (``user``), what they ``owned``, who it
    went to (``transferred_to``; ``None``: it was deleted, or there was nothing), and
    the collections whose files are still to be deleted (``delete_collections``: their
    records are gone from the store; :func:`deepcite.store.user_removal.remove_user`
    deletes the files)."""

    user: str
    owned: UserBelongings
    transferred_to: str | None = None
    delete_collections: list[str] = Field(default_factory=list)


class CollectionSharing(_Record):
    """Who may search a collection: its ``owner`` (a user name; ``None``: no one, admins
    only), ``everyone``, the named ``users``; ``public`` for the bundled demo."""

    name: str
    owner: str | None = None
    everyone: bool = False
    users: list[str] = Field(default_factory=list)
    public: bool = False


class TokenInfo(_Record):
    """An API token of a user: its id and label, never the token nor its hash."""

    id: int
    user: str
    label: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class AuditEntry(_Record):
    """One entry of the audit log: who (``actor``: a user name, ``cli``, or ``None``)
    did what (``action``, such as ``user.add``) to what (``target``), and from where."""

    id: int
    at: datetime
    actor: str | None
    action: str
    target: str | None
    detail: dict[str, Any] | None
    address: str | None
