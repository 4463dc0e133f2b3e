"""What the history store hands out: a summary per run for listings, a whole run to
reopen. Frozen pydantic records like those of :mod:`deepcite.types`, so front ends can
dump them to JSON as they are."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from deepcite.types import Event, ReportMode, ResearchResult

RunStatus = Literal["running", "completed", "cancelled", "failed", "interrupted"]
"""``running`` until the run ends - or forever, when its process died before it could
say how it ended (shown as it is: the store cannot tell a crash from a slow run).
``interrupted``: a server stopped while the run went on (at shutdown, or found still
``running`` when the next server started - see :meth:`HistoryStore.mark_interrupted`)."""


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
