"""The one owner of "run a watch": the CLI, the REST API and the scheduler all call here.

:class:`WatchService` adds, lists, pauses, resumes and removes watches (each caller sees
only their own, admins all: the store's :class:`~deepcite.store.user_rights.Access`), runs one
now - submitted to a :class:`~deepcite.runs.RunExecutor`, or in this thread for ``deepcite
watch run`` - and, once a watch's run has ended, compares it with the watch's previous
completed run, stores the change with the run and queues a notice for every delivery
target (:meth:`WatchService.finish`). A run of a watch is an ordinary stored run: it is in
the history, can be shown, exported, compared and deleted like any other.

Every run of a watch passes :func:`~deepcite.runs.admission.admit` (through the
executor, or here for ``watch run``) as its owner is *now*: the stored request names
who made the watch, never what they could do then. Budgets are checked before a run
starts: the watch's own runs per day (its
``max_runs_per_day``, at most ``watches.max_runs_per_watch_per_day``), and its owner's
runs per day over all their watches (``watches.max_runs_per_owner_per_day``); a user
may have ``watches.max_watches_per_owner`` watches. Each refusal is one line
(:class:`~deepcite.errors.BudgetError`) naming the budget and when it frees up. A
scheduled slot a budget refuses is kept as a ``refused`` watch run carrying that line
(shown by ``watch show``, the REST API's runs and the web inbox) - never counted toward
a budget itself, and not retried: the slot has moved on.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from deepcite.config import Settings
from deepcite.errors import (
    BudgetError,
    DeepciteError,
    InputError,
    RequestError,
    StoreError,
    UnknownRunError,
    error_line,
)
from deepcite.runs import CancelScope, Recorder, RunExecutor, RunRequest, RunSink, run_recorded
from deepcite.runs.admission import admit
from deepcite.runs.request import RunOwner
from deepcite.store import HistoryStore, RunStatus, StoredRun
from deepcite.store.user_rights import EVERYTHING, Access
from deepcite.store.watch_records import WatchInfo, WatchRunInfo, utc_minute
from deepcite.watches.changes import WatchChange, build_notice, watch_change
from deepcite.watches.channels import DeliveryTarget, checked_targets, parse_target, targets_of
from deepcite.watches.notice import Notice
from deepcite.watches.schedule import Schedule, parse_schedule

__all__ = ["WatchService", "WatchView", "feed_path", "targets_of"]

logger = logging.getLogger(__name__)

_DAY = timedelta(hours=24)
MAX_NAME_CHARS = 200


def feed_path(token: str) -> str:
    """Where the Atom feed of the watch with feed token ``token`` is served."""
    return f"/feeds/watches/{token}.atom"


@dataclass(frozen=True)
class WatchView:
    """A watch with its schedule parsed and its latest finished run (if any)."""

    watch: WatchInfo
    schedule: Schedule
    latest: WatchRunInfo | None = None


@dataclass
class TickReport:
    """What one scheduler tick did (for logs and tests)."""

    started: list[WatchRunInfo] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    finished: list[WatchRunInfo] = field(default_factory=list)


class WatchService:
    """Watches on ``store``, run with ``settings`` through ``executor`` (see the module
    docstring). ``executor`` may be ``None`` for a caller that only runs watches in its
    own thread (:meth:`run_here`)."""

    def __init__(self, store: HistoryStore, settings: Settings,
                 executor: RunExecutor | None = None) -> None:
        self.store = store
        self.settings = settings
        self.executor = executor

    def use_settings(self, settings: Settings) -> None:
        """Admit the watch runs due from now on with ``settings`` (a long-lived service,
        such as ``deepcite serve``'s scheduler's, told of a change saved on the
        settings page); its ``watches`` and ``delivery`` limits stay those it started
        with (:func:`deepcite.config.needs_restart`)."""
        self.settings = settings

    # ------------------------------------------------------------------ watches

    def add(self, request: RunRequest, schedule: str, *,
            targets: Sequence[DeliveryTarget | Mapping[str, Any]] = (),
            name: str | None = None, max_runs_per_day: int | None = None,
            now: datetime | None = None) -> tuple[WatchInfo, str]:
        """Store a watch of ``request`` (whose owner and origin the front end has set)
        on ``schedule``; returns it and its feed token, shown once.

        The request is checked now as at a submit (known collections and engines, what
        its owner may search), so a watch that could never run is refused at once."""
        if request.materials:
            raise InputError("A watch cannot carry materials (their text is never kept); "
                             "put the documents in a collection and watch that")
        if request.parent_id is not None:
            raise InputError("A watch asks its question afresh each time; it cannot be a "
                             "follow-up of a run")
        if max_runs_per_day is not None and not 1 <= max_runs_per_day <= 10_000:
            raise InputError("max_runs_per_day is between 1 and 10000")
        parsed = parse_schedule(schedule)
        checked = checked_targets(targets_of(targets), self.settings)
        request = admit(self.store, request, self.settings).request
        title = " ".join((name or request.question).split())[:MAX_NAME_CHARS]
        moment = now or datetime.now(UTC)
        limits = self.settings.watches
        return self.store.add_watch(
            name=title or "watch", request=request.stored(), schedule=parsed.text,
            targets=[t.model_dump(mode="json") for t in checked],
            next_run_at=parsed.next_after(moment), owner_id=request.owner_id,
            max_runs_per_day=max_runs_per_day,
            max_per_owner=limits.max_watches_per_owner)

    def list(self, access: Access = EVERYTHING) -> list[WatchInfo]:
        return self.store.watches(access)

    def get(self, ref: str, access: Access = EVERYTHING) -> WatchInfo:
        return self.store.watch(ref, access)

    def view(self, ref: str, access: Access = EVERYTHING) -> WatchView:
        """The watch, its schedule and its latest finished run."""
        watch = self.store.watch(ref, access)
        return WatchView(watch, parse_schedule(watch.schedule), self.latest(watch.id))

    def latest(self, watch_id: str) -> WatchRunInfo | None:
        """The newest watch run that has ended (its change stored), if any - a
        ``refused`` slot included, so that whoever shows the watch leads with it."""
        return next((run for run in self.store.watch_runs(watch_id, limit=20)
                     if run.status != "running"), None)

    def targets(self, watch: WatchInfo) -> builtins.list[DeliveryTarget]:
        """Where ``watch`` delivers, typed by channel; a stored target whose channel
        is gone (a plugin uninstalled) or no longer validates is left out, with a
        warning in the log - it stays stored, and counts again once its plugin is back."""
        found = []
        for index, data in enumerate(watch.targets):
            try:
                found.append(parse_target(data, index))
            except InputError as exc:
                logger.warning("watch %s: %s", watch.id[:8], error_line(exc))
        return found

    def notices(self, watch: WatchInfo, *, limit: int = 50) -> builtins.list[Notice]:
        """The notices of the watch's ended runs, newest first (its Atom feed and inbox):
        what each said when it ended, a failed run's one line included."""
        question = str(watch.request.get("question", ""))
        return [Notice(watch_id=watch.id, watch_name=watch.name, run_id=run.run_id,
                       previous_run_id=run.previous_run_id, question=question,
                       created_at=run.finished_at or run.created_at,
                       summary=run.summary or run.status, nothing_new=run.nothing_new,
                       changes_markdown=run.changes_markdown or "", url=self._url(run.run_id))
                for run in self.store.watch_runs(watch.id, limit=limit)
                if run.status != "running" and run.run_id is not None]

    def pause(self, ref: str, access: Access = EVERYTHING) -> WatchInfo:
        """Stop running on schedule (``run`` still works)."""
        return self.store.update_watch(ref, access, status="paused")

    def resume(self, ref: str, access: Access = EVERYTHING, *,
               now: datetime | None = None) -> WatchInfo:
        """Run on schedule again, from the next slot after now (slots missed while paused
        are not made up)."""
        watch = self.store.watch(ref, access)
        following = parse_schedule(watch.schedule).next_after(now or datetime.now(UTC))
        return self.store.update_watch(watch.id, access, status="active",
                                       next_run_at=following)

    def remove(self, ref: str, access: Access = EVERYTHING) -> str:
        """Delete the watch (its runs stay in the history); its full id."""
        return self.store.remove_watch(ref, access)

    def rotate_feed_token(self, ref: str, access: Access = EVERYTHING) -> str:
        return self.store.rotate_feed_token(ref, access)

    def rotate_webhook_secret(self, ref: str, access: Access = EVERYTHING) -> str:
        """A new key for the watch's webhook signatures (its receivers need it from the
        next delivery on); returned once, as at creation."""
        return self.store.rotate_webhook_secret(ref, access)

    # ------------------------------------------------------------------ running

    def run_now(self, ref: str, access: Access = EVERYTHING, *,
                now: datetime | None = None) -> WatchRunInfo:
        """Submit a run of the watch to the executor now (budgets apply); the change is
        stored when the run has ended (:meth:`finish_ended`, the scheduler's job)."""
        watch = self.store.watch(ref, access)
        return self._submit(watch, "manual", now or datetime.now(UTC))

    def run_here(self, ref: str, access: Access = EVERYTHING, *,
                 sink: RunSink | None = None, cancel: CancelScope | None = None,
                 now: datetime | None = None) -> WatchRunInfo:
        """Run the watch in this thread (``deepcite watch run``), then store its change
        and queue its notices; the finished watch run."""
        watch = self.store.watch(ref, access)
        moment = now or datetime.now(UTC)
        self.check_budgets(watch, moment)
        admitted = admit(self.store, _run_request(watch), self.settings)
        request, settings = admitted.request, admitted.settings
        run_id = self.store.begin(request.question, mode=request.mode, settings=settings,
                                  request=request.stored(), owner_id=request.owner_id)
        watch_run = self.store.record_watch_run(watch.id, run_id, trigger="manual",
                                                now=moment)
        try:
            with Recorder(self.store, run_id) as recorder:
                run_recorded(request, settings, recorder, sink, cancel)
        except DeepciteError as exc:  # stored as failed by run_recorded
            logger.warning("watch %s: run %s failed: %s", watch.id[:8], run_id[:8],
                           error_line(exc))
        self.finish(watch_run)
        finished = self.store.watch_run(watch_run.id)
        assert finished is not None
        return finished

    def check_budgets(self, watch: WatchInfo, now: datetime) -> None:
        """Refuse (:class:`BudgetError`) a run the watch's or its owner's daily budget
        has no room for; the line names the budget and when it frees up."""
        limits = self.settings.watches
        most = min(watch.max_runs_per_day or limits.max_runs_per_watch_per_day,
                   limits.max_runs_per_watch_per_day)
        since = now - _DAY
        done = self.store.watch_runs_started(since, watch_id=watch.id)
        if done >= most:
            frees = self._frees_at(since, done - most + 1, watch_id=watch.id)
            raise BudgetError(f"Watch {watch.id[:8]} has run {done} times in 24 hours, its "
                              f"limit ({most} a day) - it may run again from {frees}")
        if watch.owner_id is not None:
            owner = self.store.watch_runs_started(since, owner_id=watch.owner_id)
            most = limits.max_runs_per_owner_per_day
            if owner >= most:
                frees = self._frees_at(since, owner - most + 1, owner_id=watch.owner_id)
                raise BudgetError(
                    f"Your watches have run {owner} times in 24 hours, the most one user's "
                    f"may (watches.max_runs_per_owner_per_day = {most}) - they may run "
                    f"again from {frees}")

    def _frees_at(self, since: datetime, nth: int, *, watch_id: str | None = None,
                  owner_id: int | None = None) -> str:
        """When the ``nth`` oldest counted run turns a day old - the first moment a
        budget has room again - as shown (UTC, rounded up to the minute, so the time
        said is never too early)."""
        started = self.store.watch_run_started_at(since, nth, watch_id=watch_id,
                                                  owner_id=owner_id)
        if started is None:  # runs removed meanwhile: room now
            return "now"
        frees = (started if started.tzinfo else started.replace(tzinfo=UTC)) + _DAY
        if frees.second or frees.microsecond:
            frees = frees.replace(second=0, microsecond=0) + timedelta(minutes=1)
        return utc_minute(frees)

    def submit_due(self, now: datetime | None = None, report: TickReport | None = None
                   ) -> TickReport:
        """Claim the watches due now (each by one process only) and submit their runs.

        A slot a budget or admission refuses (the owner disabled or gone, a collection
        they may no longer read: :func:`~deepcite.runs.admission.admit`) is recorded as
        a ``refused`` watch run with its line
        (:meth:`~deepcite.store.HistoryStore.record_refused_slot`), so the owner sees
        it with the watch's runs; its claim has already moved the watch to its next slot,
        so it is not tried again each tick."""
        moment = now or datetime.now(UTC)
        report = report or TickReport()
        for watch in self.store.claim_due_watches(moment, self._next_slot):
            try:
                report.started.append(self._submit(watch, "schedule", moment))
            except (BudgetError, RequestError) as exc:  # a budget, or admission
                self._refused(watch, error_line(exc), moment)
                report.refused.append((watch.id, error_line(exc)))
            except DeepciteError as exc:
                logger.warning("watch %s was due but not run: %s", watch.id[:8],
                               error_line(exc))
                report.refused.append((watch.id, error_line(exc)))
        return report

    def _refused(self, watch: WatchInfo, reason: str, now: datetime) -> None:
        """Log and record a slot of ``watch`` a budget or admission refused (a store that fails here
        leaves the log line only, and the tick goes on with the next watch)."""
        logger.warning("watch %s was due but not run: %s", watch.id[:8], reason)
        try:
            self.store.record_refused_slot(watch.id, reason, trigger="schedule", now=now)
        except DeepciteError as exc:
            logger.warning("watch %s: the refused slot was not recorded: %s",
                           watch.id[:8], error_line(exc))

    def finish_ended(self, report: TickReport | None = None) -> TickReport:
        """Store the change of every watch run whose run has ended (once each)."""
        report = report or TickReport()
        for watch_run, status in self.store.ended_watch_runs():
            try:
                if self.finish(watch_run, status):
                    done = self.store.watch_run(watch_run.id)
                    if done is not None:
                        report.finished.append(done)
            except DeepciteError as exc:
                logger.warning("watch run %d: %s", watch_run.id, error_line(exc))
        return report

    def finish(self, watch_run: WatchRunInfo, status: RunStatus | None = None) -> bool:
        """Compare the ended run of ``watch_run`` with the watch's previous completed
        run, store the change and queue a notice per target; ``False`` when another
        process did it first (or the watch is gone)."""
        try:
            watch = self.store.watch(watch_run.watch_id)
        except StoreError:
            return False
        current = self._stored(watch_run.run_id)
        if current is None or current.status != "completed":
            state = current.status if current is not None else "deleted"
            error = (current.result.error if current is not None else None) or state
            return self.store.finish_watch_run(
                watch_run.id, status="failed", summary=f"The run {state}: {error}"[:500],
                error=error, ended_at=current.finished_at if current is not None else None)
        previous_id = self.store.previous_completed_run(watch.id, watch_run.id)
        previous = self._stored(previous_id)
        change = watch_change(previous, current)
        notice = build_notice(watch, change, created_at=current.created_at,
                              url=self._url(current.id))
        notice_data = notice.model_dump(mode="json")
        deliveries = [(target.channel(), target.model_dump(mode="json"), notice_data)
                      for target in self.targets(watch)]
        return self.store.finish_watch_run(
            watch_run.id, status="done", summary=notice.summary,
            nothing_new=change.nothing_new, change=change.model_dump(mode="json"),
            changes_markdown=notice.changes_markdown,
            previous_run_id=change.previous_run_id, deliveries=deliveries,
            ended_at=current.finished_at)

    def change_of(self, watch_run: WatchRunInfo) -> WatchChange | None:
        """The stored change of a finished watch run."""
        return WatchChange.model_validate(watch_run.change) if watch_run.change else None

    # ------------------------------------------------------------------ plumbing

    def _submit(self, watch: WatchInfo, trigger: str, now: datetime) -> WatchRunInfo:
        if self.executor is None:
            raise InputError("No executor to run the watch on - use `deepcite watch run`")
        self.check_budgets(watch, now)
        run_id = self.executor.submit(_run_request(watch))
        return self.store.record_watch_run(watch.id, run_id, trigger=trigger, now=now)

    @staticmethod
    def _next_slot(watch: WatchInfo, now: datetime) -> datetime | None:
        return parse_schedule(watch.schedule).next_after(now, anchor=watch.next_run_at)

    def _stored(self, run_id: str | None) -> StoredRun | None:
        if run_id is None:
            return None
        try:
            return self.store.get(run_id)
        except UnknownRunError:
            return None

    def _url(self, run_id: str) -> str | None:
        base = self.settings.watches.base_url
        return f"{base.rstrip('/')}/runs/{run_id}" if base else None


def _run_request(watch: WatchInfo) -> RunRequest:
    """The request of one run of ``watch``: its stored request with origin ``watch``.

    The stored request keeps the front end that made the watch (``cli``, ``api``,
    ``web``); its runs are the watch's, so that the history can tell a scheduled or
    ``watch run`` run from one a person asked for - and filter by it. The owner is the
    watch's owner now (the stored request may name whoever made it); what they may read
    is looked up when the run is admitted, never taken from the stored request."""
    request = RunRequest.model_validate(watch.request)
    owner = request.owner
    if watch.owner_id is not None and (owner is None or owner.id != watch.owner_id):
        owner = RunOwner(id=watch.owner_id, name=f"user {watch.owner_id}")
    return request.model_copy(update={"origin": "watch", "owner": owner})
