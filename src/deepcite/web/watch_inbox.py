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

from deepcite.errors import InputError
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
    """One run of a watch in its inbox: the run, and - once it ended - its change."""

    run: WatchRunInfo
    #: The stored comparison (``None``: running, failed, or unreadable).
    change: WatchChange | None

    @property
    def running(self) -> bool:
        return self.run.status == "running"

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
        entries.append(InboxEntry(run=run, change=change))
    return entries


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
