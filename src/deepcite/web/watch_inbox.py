"""What the Watches pages show of a watch: its row in the list, and its inbox of changes.

Nothing here decides anything about a watch: the rows are the store's
(:class:`~deepcite.store.watch_records.WatchInfo`, :class:`~deepcite.store.watch_records.
WatchRunInfo`) and the change is the one :meth:`~deepcite.watches.service.WatchService.
finish` stored, read back through :meth:`~deepcite.watches.service.WatchService.
change_of`. This module only puts them in the shape the templates walk, so the
templates hold no logic beyond loops and ``if``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import ValidationError

from deepcite.errors import InputError, UnknownRunError
from deepcite.store import RunStatus
from deepcite.store.watch_records import WatchInfo, WatchRunInfo, utc_minute
from deepcite.watches.changes import WatchChange
from deepcite.watches.channels import loaded_channels
from deepcite.watches.schedule import parse_schedule
from deepcite.watches.service import WatchService

__all__ = ["InboxEntry", "WatchRow", "implicit_shown", "inbox_of", "moment", "signs",
           "targets_shown", "watch_row"]


@dataclass(frozen=True)
class WatchRow:
    """One watch in the list: what it asks, when it runs next, what it last found."""

    watch: WatchInfo
    #: The schedule as shown (``every 6h``, a cron expression, ``on demand``).
    schedule: str
    manual: bool
    #: The latest ended run's one-line summary (``None``: it has not run yet).
    last_summary: str | None
    last_at: datetime | None


@dataclass(frozen=True)
class InboxEntry:
    """One run of a watch in its inbox: the run, and - once it ended - its change.

    A watch run stays ``running`` in the store until the scheduler's next tick compares
    its ended run with the previous one; what the inbox says of it comes from the run's
    own state (``state``, ``ended_at``), so a run that ended a second ago reads as ended
    and is dated by its end, not by when its change was recorded."""

    run: WatchRunInfo
    #: The stored comparison (``None``: running, failed, or unreadable).
    change: WatchChange | None
    #: The research run's own status while the watch run waits for its change
    #: (``None``: the change is stored, there is no run, or the run was deleted).
    state: RunStatus | None = None
    #: When the research run ended, as the run itself recorded it.
    ended_at: datetime | None = None

    @property
    def running(self) -> bool:
        """The research run has not ended yet (queued or running; with no state to
        read, as the watch run's record says)."""
        return self.run.status == "running" and self.state in (None, "queued", "running")

    @property
    def comparing(self) -> bool:
        """The run ended; the change since the previous run is stored at the next tick."""
        return self.run.status == "running" and not self.running

    @property
    def at(self) -> datetime:
        """When the card is dated: the run's end, else when the watch run was made."""
        return self.ended_at or self.run.finished_at or self.run.created_at

    @property
    def failed(self) -> bool:
        return self.run.status == "failed"

    @property
    def refused(self) -> bool:
        """A slot a budget refused: no run was made, and the entry says which budget."""
        return self.run.status == "refused"


def watch_row(service: WatchService, watch: WatchInfo) -> WatchRow:
    """``watch`` as the list shows it, with its latest ended run."""
    latest = service.latest(watch.id)
    try:
        schedule = parse_schedule(watch.schedule)
        shown, manual = schedule.text, schedule.manual
    except InputError:  # stored by an older version: shown as stored
        shown, manual = watch.schedule, False
    return WatchRow(watch=watch, schedule=shown, manual=manual,
                    last_summary=(latest.summary or latest.status) if latest else None,
                    last_at=(latest.finished_at or latest.created_at) if latest else None)


def inbox_of(service: WatchService, watch: WatchInfo, *, limit: int = 50) -> list[InboxEntry]:
    """The watch's runs, newest first, each with its stored change."""
    entries = []
    for run in service.store.watch_runs(watch.id, limit=limit):
        try:
            change = service.change_of(run)
        except ValidationError:  # a change stored by another version: the summary stays
            change = None
        state, ended_at = _run_state(service, run)
        entries.append(InboxEntry(run=run, change=change, state=state, ended_at=ended_at))
    return entries


def _run_state(service: WatchService, run: WatchRunInfo
               ) -> tuple[RunStatus | None, datetime | None]:
    """The research run's status and end for a watch run still waiting for its change
    (read from the run history, which the executor writes as the run goes); ``None``s
    for one already finished, which carries its run's end itself."""
    if run.status != "running" or run.run_id is None:
        return None, None
    try:
        stored = service.store.run_state(run.run_id)
    except UnknownRunError:  # deleted: the next tick records the watch run as failed
        return None, None
    return stored.status, stored.finished_at


def targets_shown(service: WatchService, watch: WatchInfo) -> list[str]:
    """Where the watch delivers, one line a target, as its channel shows it (its inbox
    and the channels every watch has go without saying: :func:`implicit_shown`)."""
    return [target.shown() for target in service.targets(watch)]


def implicit_shown() -> list[str]:
    """The channels every watch has, as they are shown (``its Atom feed``)."""
    return [cls.model_construct(kind=cls.channel()).shown() for cls in loaded_channels()
            if cls.implicit]


def signs(service: WatchService, watch: WatchInfo) -> bool:
    """Whether a channel of the watch signs with its secret (the page then offers it)."""
    return any(target.signed for target in service.targets(watch))


def moment(value: datetime | None) -> str:
    """A stored time as the pages show it (UTC, to the minute); ``-`` for none."""
    return utc_minute(value) if value is not None else "-"
