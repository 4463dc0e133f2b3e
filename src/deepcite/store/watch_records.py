"""What the store says about watches, their runs and their outbox (revision 0007).

Plain data, as the rows are: requests, targets, changes and notices are JSON-ready
dicts here - :mod:`deepcite.watches` gives them their types (the store sits below it).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "DeliveryInfo",
    "DeliveryStatus",
    "WatchInfo",
    "WatchRunInfo",
    "WatchRunStatus",
    "WatchStatus",
    "utc_minute",
]

WatchStatus = Literal["active", "paused"]
#: ``refused``: a due slot a budget did not let run - no run, the reason in ``error``.
WatchRunStatus = Literal["running", "done", "failed", "refused"]
DeliveryStatus = Literal["pending", "sent", "failed"]


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class WatchInfo(_Record):
    """One watch."""

    id: str
    name: str
    owner_id: int | None
    request: dict[str, Any]
    schedule: str
    targets: list[dict[str, Any]]
    status: WatchStatus
    next_run_at: datetime | None
    last_run_at: datetime | None
    max_runs_per_day: int | None
    created_at: datetime
    updated_at: datetime
    #: Whether a feed token exists (the token itself is shown once, never kept).
    has_feed_token: bool = False

    @property
    def question(self) -> str:
        return str(self.request.get("question", ""))


class WatchRunInfo(_Record):
    """One run of a watch, and - once it ended - the change since the previous one; or,
    with status ``refused`` (and no ``run_id``), scheduled slots a budget refused: the
    first at ``created_at``, the latest at ``finished_at``, the budget's line in
    ``error`` (which budget, when it frees up) and ``summary``."""

    id: int
    watch_id: str
    run_id: str | None
    previous_run_id: str | None
    trigger: Literal["schedule", "manual"]
    status: WatchRunStatus
    created_at: datetime
    finished_at: datetime | None
    summary: str | None
    nothing_new: bool
    change: dict[str, Any] | None
    changes_markdown: str | None
    error: str | None


class DeliveryInfo(_Record):
    """One notice to one target, in the outbox."""

    id: int
    watch_run_id: int
    watch_id: str
    kind: str
    target: dict[str, Any]
    notice: dict[str, Any]
    status: DeliveryStatus
    attempts: int
    next_attempt_at: datetime | None
    last_error: str | None
    created_at: datetime
    sent_at: datetime | None


def utc_minute(moment: datetime) -> str:
    """A watch's time as every front end shows it: UTC, to the minute ("2026-12-02 16:44
    UTC"). A naive time is UTC: SQLite keeps no zone, and the store writes UTC."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
