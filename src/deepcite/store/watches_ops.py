"""Watches, their runs and their deliveries, as the store keeps them (revision 0007).

Exactly once, across threads and processes, on SQLite and PostgreSQL alike, by
compare-and-set ``UPDATE ... WHERE`` statements whose row count says who won:

* :meth:`WatchOps.claim_due_watches` moves a due watch's ``next_run_at`` from the value it
  read to the next slot *after now* - the process whose UPDATE changed the row runs
  the watch; every other finds the row changed and leaves it. A watch missed while
  everything was down (``next_run_at`` long past) is claimed once and its next slot is
  after now: it runs once, not once per missed slot.
* :meth:`WatchOps.finish_watch_run` stores a run's change and queues its deliveries in
  the transaction that moves the watch run from ``running``, so a change is stored and
  its notices queued once however many schedulers see the run end.
* :meth:`WatchOps.claim_due_deliveries` leases a pending delivery (its
  ``next_attempt_at`` moved :data:`DELIVERY_LEASE_S` ahead, one attempt counted): a
  sender that dies mid-send leaves it to be tried again when the lease runs out.

On SQLite write transactions queue for the file's lock; on PostgreSQL the second
UPDATE waits for the first to commit and then finds the value it expected gone.
"""

from __future__ import annotations

import builtins
import hashlib
import secrets
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from types import EllipsisType
from typing import Any, cast

from sqlalchemy import ColumnElement, Select, delete, func, insert, select, true, update
from sqlalchemy.orm import Session

from deepcite.errors import BudgetError, StoreError, UnknownWatchError
from deepcite.store.base import IdKind, StoreBase, resolve_prefix
from deepcite.store.models import DeliveryRow, Run, UserRow, WatchRow, WatchRunRow
from deepcite.store.read_models import ENDED, RunStatus
from deepcite.store.user_rights import EVERYTHING, Access
from deepcite.store.watch_records import (
    DeliveryInfo,
    DeliveryStatus,
    WatchInfo,
    WatchRunInfo,
    WatchRunStatus,
    WatchStatus,
    utc_minute,
)

__all__ = ["DELIVERY_LEASE_S", "FEED_TOKEN_PREFIX", "WatchOps", "delivery_backoff",
           "feed_token_hash"]

#: How long a claimed delivery is a sender's before another may try it.
DELIVERY_LEASE_S = 300.0
#: Feed tokens start with this, so one pasted in the wrong place is recognised.
FEED_TOKEN_PREFIX = "dcf_"
_WATCH_IDS = IdKind("watch", "watches", "", "`deepcite watch list`", "them", UnknownWatchError)
_DAY = timedelta(hours=24)


def feed_token_hash(token: str) -> str:
    """The SHA-256 (hex) kept for a feed token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def delivery_backoff(attempts: int) -> timedelta:
    """The wait before try ``attempts + 1``: one minute, doubling, at most six hours."""
    return timedelta(seconds=min(60 * 2 ** max(attempts - 1, 0), 6 * 3600))


def _started(query: Select[Any], since: datetime, watch_id: str | None,
             owner_id: int | None) -> Select[Any]:
    """``query`` over the watch runs begun since ``since`` that count toward a budget
    (not refused slots): of one watch, or of every watch of one owner."""
    query = query.where(WatchRunRow.created_at >= since, WatchRunRow.status != "refused")
    if watch_id is not None:
        query = query.where(WatchRunRow.watch_id == watch_id)
    if owner_id is not None:
        query = query.join(WatchRow, WatchRow.id == WatchRunRow.watch_id).where(
            WatchRow.owner_id == owner_id)
    return query


def _owner_enabled() -> ColumnElement[bool]:
    """The watches whose owner may have them run: no owner (a server without accounts,
    the command line), or an owner who exists and is not disabled. A disabled user's
    watches are not due, send nothing and have no feed until they are enabled again;
    a removed user's leave with them (:mod:`deepcite.store.removal_ops`)."""
    return WatchRow.owner_id.is_(None) | WatchRow.owner_id.in_(
        select(UserRow.id).where(UserRow.disabled.is_(False)))


def _sees(access: Access) -> ColumnElement[bool]:
    return true() if access.sees_all else WatchRow.owner_id == access.user_id


def _watch(row: WatchRow) -> WatchInfo:
    return WatchInfo(id=row.id, name=row.name, owner_id=row.owner_id, request=row.request,
                     schedule=row.schedule, targets=list(row.targets),
                     status=cast(WatchStatus, row.status), next_run_at=row.next_run_at,
                     last_run_at=row.last_run_at, max_runs_per_day=row.max_runs_per_day,
                     created_at=row.created_at, updated_at=row.updated_at,
                     has_feed_token=row.feed_token_hash is not None)


def _watch_run(row: WatchRunRow) -> WatchRunInfo:
    return WatchRunInfo(id=row.id, watch_id=row.watch_id, run_id=row.run_id,
                        previous_run_id=row.previous_run_id,
                        trigger=cast(Any, row.trigger),
                        status=cast(WatchRunStatus, row.status), created_at=row.created_at,
                        finished_at=row.finished_at, summary=row.summary,
                        nothing_new=row.nothing_new, change=row.change,
                        changes_markdown=row.changes_markdown, error=row.error)


def _delivery(row: DeliveryRow) -> DeliveryInfo:
    return DeliveryInfo(id=row.id, watch_run_id=row.watch_run_id, watch_id=row.watch_id,
                        kind=row.kind, target=row.target, notice=row.notice,
                        status=cast(DeliveryStatus, row.status), attempts=row.attempts,
                        next_attempt_at=row.next_attempt_at, last_error=row.last_error,
                        created_at=row.created_at, sent_at=row.sent_at)


class WatchOps(StoreBase):
    """The watches side of :class:`~deepcite.store.HistoryStore` (see the module
    docstring)."""

    # ------------------------------------------------------------------ watches

    def add_watch(self, *, name: str, request: dict[str, Any], schedule: str,
                  targets: Sequence[dict[str, Any]], next_run_at: datetime | None,
                  owner_id: int | None = None, max_runs_per_day: int | None = None,
                  max_per_owner: int | None = None) -> tuple[WatchInfo, str]:
        """Store a new active watch; returns it and its feed token (shown once: only
        its hash is kept). With ``max_per_owner``, an owner who has that many watches
        already is refused (:class:`~deepcite.errors.BudgetError`)."""
        now = datetime.now(UTC)
        token = FEED_TOKEN_PREFIX + secrets.token_urlsafe(24)
        row = WatchRow(id=uuid.uuid4().hex, name=name, owner_id=owner_id, request=request,
                       schedule=schedule, targets=list(targets), status="active",
                       next_run_at=next_run_at, last_run_at=None,
                       max_runs_per_day=max_runs_per_day,
                       feed_token_hash=feed_token_hash(token),
                       webhook_secret=secrets.token_hex(32), created_at=now,
                       updated_at=now)
        with self._writing() as session:
            if max_per_owner is not None and owner_id is not None:
                held = session.scalar(select(func.count()).select_from(WatchRow)
                                      .where(WatchRow.owner_id == owner_id)) or 0
                if held >= max_per_owner:
                    raise BudgetError(f"You have {held} watches, the most one user may "
                                      f"have (watches.max_watches_per_owner = "
                                      f"{max_per_owner}) - remove one first")
            session.add(row)
            session.flush()
            return _watch(row), token

    def watches(self, access: Access = EVERYTHING, *, limit: int = 500
                ) -> builtins.list[WatchInfo]:
        """The watches ``access`` may see, newest first."""
        with self._reading() as session:
            rows = session.scalars(select(WatchRow).where(_sees(access))
                                   .order_by(WatchRow.created_at.desc(), WatchRow.id)
                                   .limit(max(limit, 0)))
            return [_watch(row) for row in rows]

    def watch(self, ref: str, access: Access = EVERYTHING) -> WatchInfo:
        """The watch ``ref`` (its id or a unique prefix) names among those ``access``
        may see; :class:`~deepcite.errors.UnknownWatchError` otherwise."""
        with self._reading() as session:
            row = session.get(WatchRow, self._resolve_watch(session, ref, access))
            if row is None:
                raise UnknownWatchError(f"No watch {ref!r} - `deepcite watch list` lists them")
            return _watch(row)

    def update_watch(self, watch_id: str, access: Access = EVERYTHING, *,
                     status: WatchStatus | None = None,
                     next_run_at: datetime | EllipsisType | None = ...,
                     name: str | None = None, schedule: str | None = None,
                     targets: Sequence[dict[str, Any]] | None = None,
                     max_runs_per_day: int | EllipsisType | None = ...) -> WatchInfo:
        """Change the fields given (``...``: leave as is) of a watch ``access`` may see."""
        values: dict[str, Any] = {"updated_at": datetime.now(UTC)}
        if status is not None:
            values["status"] = status
        if next_run_at is not ...:
            values["next_run_at"] = next_run_at
        if max_runs_per_day is not ...:
            values["max_runs_per_day"] = max_runs_per_day
        if name is not None:
            values["name"] = name
        if schedule is not None:
            values["schedule"] = schedule
        if targets is not None:
            values["targets"] = list(targets)
        with self._writing() as session:
            full = self._resolve_watch(session, watch_id, access)
            self._changed(session, update(WatchRow).where(WatchRow.id == full)
                          .values(**values))
            row = session.get(WatchRow, full)
            assert row is not None
            session.refresh(row)
            return _watch(row)

    def remove_watch(self, watch_id: str, access: Access = EVERYTHING) -> str:
        """Delete a watch ``access`` may see, with its watch runs and outbox (its runs
        stay in the history); returns its full id."""
        with self._writing() as session:
            full = self._resolve_watch(session, watch_id, access)
            session.execute(delete(DeliveryRow).where(DeliveryRow.watch_id == full))
            session.execute(delete(WatchRunRow).where(WatchRunRow.watch_id == full))
            self._changed(session, delete(WatchRow).where(WatchRow.id == full))
            return full

    def rotate_feed_token(self, watch_id: str, access: Access = EVERYTHING) -> str:
        """A new feed token for the watch (the old one stops working); shown once."""
        token = FEED_TOKEN_PREFIX + secrets.token_urlsafe(24)
        with self._writing() as session:
            full = self._resolve_watch(session, watch_id, access)
            self._changed(session, update(WatchRow).where(WatchRow.id == full).values(
                feed_token_hash=feed_token_hash(token), updated_at=datetime.now(UTC)))
        return token

    def rotate_webhook_secret(self, watch_id: str, access: Access = EVERYTHING) -> str:
        """A new webhook secret for the watch, used from its next delivery attempt (the
        old one stops signing); shown once by the front end that asked."""
        secret = secrets.token_hex(32)
        with self._writing() as session:
            full = self._resolve_watch(session, watch_id, access)
            self._changed(session, update(WatchRow).where(WatchRow.id == full).values(
                webhook_secret=secret, updated_at=datetime.now(UTC)))
        return secret

    def webhook_secret(self, watch_id: str) -> str | None:
        """The key the watch's webhook bodies are signed with (its full id; ``None``:
        no such watch). Not access-checked: the senders ask, for a watch they deliver."""
        with self._reading() as session:
            row = session.get(WatchRow, watch_id)
            return row.webhook_secret if row is not None else None

    def watch_for_feed_token(self, token: str) -> WatchInfo | None:
        """The watch whose feed token ``token`` is (``None``: none, rotated away, or its
        owner is disabled - answered exactly as an unknown token)."""
        if not token.startswith(FEED_TOKEN_PREFIX):
            return None
        with self._reading() as session:
            row = session.scalar(select(WatchRow).where(
                WatchRow.feed_token_hash == feed_token_hash(token), _owner_enabled()))
            return _watch(row) if row is not None else None

    # ------------------------------------------------------------------ due watches

    def claim_due_watches(self, now: datetime,
                          next_run: Callable[[WatchInfo, datetime], datetime | None],
                          *, limit: int = 100) -> builtins.list[WatchInfo]:
        """The active watches due at ``now`` that this call claimed (each exactly once,
        however many processes call at once), as they were when due. A watch of a
        disabled owner is never due: it stays where it is, and once its owner is
        enabled again a slot it missed runs once, as after downtime.

        ``next_run(watch, now)`` is the watch's next slot after ``now`` (from its
        schedule); a claimed watch's ``next_run_at`` is set to it, so a watch whose
        slot passed long ago runs once and is due next at its first slot after now.
        """
        with self._reading() as session:
            due = [_watch(row) for row in session.scalars(
                select(WatchRow).where(WatchRow.status == "active",
                                       WatchRow.next_run_at.is_not(None),
                                       WatchRow.next_run_at <= now, _owner_enabled())
                .order_by(WatchRow.next_run_at, WatchRow.id).limit(max(limit, 0)))]
        claimed: builtins.list[WatchInfo] = []
        for watch in due:
            following = next_run(watch, now)
            with self._writing() as session:
                if self._changed(session, update(WatchRow).where(
                        WatchRow.id == watch.id, WatchRow.status == "active",
                        WatchRow.next_run_at == watch.next_run_at, _owner_enabled())
                        .values(next_run_at=following)):
                    claimed.append(watch)
        return claimed

    # ------------------------------------------------------------------ watch runs

    def record_watch_run(self, watch_id: str, run_id: str, *, trigger: str,
                         now: datetime | None = None) -> WatchRunInfo:
        """Record that the watch started run ``run_id`` (``running`` until it ends)."""
        now = now or datetime.now(UTC)
        with self._writing() as session:
            row = WatchRunRow(watch_id=watch_id, run_id=run_id, previous_run_id=None,
                              trigger=trigger, status="running", created_at=now,
                              finished_at=None, summary=None, nothing_new=False,
                              change=None, changes_markdown=None, error=None)
            session.add(row)
            self._changed(session, update(WatchRow).where(WatchRow.id == watch_id)
                          .values(last_run_at=now))
            session.flush()
            return _watch_run(row)

    def record_refused_slot(self, watch_id: str, reason: str, *, trigger: str,
                            now: datetime | None = None) -> WatchRunInfo:
        """Record that a due slot of the watch was not run, for ``reason`` (a budget's
        one line): a ``refused`` watch run with no run, so the owner sees it where they
        see the watch's runs instead of in a log only.

        It is no run: it never counts toward a budget (:meth:`watch_runs_started`) nor
        moves ``last_run_at``. Refusals in a row are one record - its ``created_at`` the
        first refused slot, ``finished_at``, ``error`` and ``summary`` the latest - so a
        frequent schedule over its budget does not bury the watch's runs under them."""
        now = now or datetime.now(UTC)
        with self._writing() as session:
            newest = session.scalar(select(WatchRunRow).where(WatchRunRow.watch_id == watch_id)
                                    .order_by(WatchRunRow.id.desc()).limit(1))
            if newest is not None and newest.status == "refused":
                since = utc_minute(newest.created_at)
                newest.summary = f"Not run since {since}: {reason}"[:500]
                newest.error, newest.finished_at = reason[:2000], now
                session.flush()
                return _watch_run(newest)
            row = WatchRunRow(watch_id=watch_id, run_id=None, previous_run_id=None,
                              trigger=trigger, status="refused", created_at=now,
                              finished_at=now, summary=f"Not run: {reason}"[:500],
                              nothing_new=False, change=None, changes_markdown=None,
                              error=reason[:2000])
            session.add(row)
            session.flush()
            return _watch_run(row)

    def watch_runs_started(self, since: datetime, *, watch_id: str | None = None,
                           owner_id: int | None = None) -> int:
        """How many watch runs began since ``since``: of one watch, or of every watch
        of one owner (the daily budgets). Refused slots are not runs and do not count."""
        with self._reading() as session:
            return session.scalar(_started(select(func.count()).select_from(WatchRunRow),
                                           since, watch_id, owner_id)) or 0

    def watch_run_started_at(self, since: datetime, nth: int, *,
                             watch_id: str | None = None, owner_id: int | None = None
                             ) -> datetime | None:
        """When the ``nth`` oldest (1: the oldest) of the watch runs counted by
        :meth:`watch_runs_started` began (``None``: fewer than ``nth``) - a day later it
        stops counting, which is when a budget frees up."""
        query = _started(select(WatchRunRow.created_at), since, watch_id, owner_id)
        with self._reading() as session:
            found: datetime | None = session.scalar(
                query.order_by(WatchRunRow.created_at, WatchRunRow.id)
                .offset(max(nth - 1, 0)).limit(1))
            return found

    def watch_runs(self, watch_id: str, *, limit: int = 50) -> builtins.list[WatchRunInfo]:
        """The runs of a watch (its full id), newest first."""
        with self._reading() as session:
            rows = session.scalars(select(WatchRunRow).where(WatchRunRow.watch_id == watch_id)
                                   .order_by(WatchRunRow.id.desc()).limit(max(limit, 0)))
            return [_watch_run(row) for row in rows]

    def watch_run(self, watch_run_id: int) -> WatchRunInfo | None:
        with self._reading() as session:
            row = session.get(WatchRunRow, watch_run_id)
            return _watch_run(row) if row is not None else None

    def ended_watch_runs(self, *, limit: int = 100
                         ) -> builtins.list[tuple[WatchRunInfo, RunStatus | None]]:
        """Watch runs still ``running`` whose run has ended (or was deleted: ``None``),
        oldest first, with the run's status."""
        with self._reading() as session:
            rows = session.execute(
                select(WatchRunRow, Run.status).outerjoin(Run, Run.id == WatchRunRow.run_id)
                .where(WatchRunRow.status == "running")
                .order_by(WatchRunRow.id).limit(max(limit, 0))).all()
            return [(_watch_run(row), cast(RunStatus | None, status)) for row, status in rows
                    if status is None or status in ENDED]

    def previous_completed_run(self, watch_id: str, before: int) -> str | None:
        """The run id of the watch's latest completed run among its watch runs older
        than watch run ``before`` (``None``: this is its first)."""
        with self._reading() as session:
            return session.scalar(
                select(WatchRunRow.run_id).join(Run, Run.id == WatchRunRow.run_id)
                .where(WatchRunRow.watch_id == watch_id, WatchRunRow.id < before,
                       WatchRunRow.status == "done", Run.status == "completed")
                .order_by(WatchRunRow.id.desc()).limit(1))

    def finish_watch_run(self, watch_run_id: int, *, status: WatchRunStatus,
                         summary: str, nothing_new: bool = False,
                         change: dict[str, Any] | None = None,
                         changes_markdown: str | None = None,
                         previous_run_id: str | None = None, error: str | None = None,
                         deliveries: Sequence[tuple[str, dict[str, Any], dict[str, Any]]] = (),
                         now: datetime | None = None, ended_at: datetime | None = None
                         ) -> bool:
        """End a ``running`` watch run with its change and queue ``deliveries`` ((kind,
        target, notice) each) in one transaction; ``False`` (nothing written) when
        another process ended it first. ``ended_at``: when its run ended, stored as the
        watch run's ``finished_at`` (the change is recorded up to a scheduler tick
        later, and the inbox and feed date a run by its end, not by that bookkeeping);
        ``now`` when not given."""
        now = now or datetime.now(UTC)
        with self._writing() as session:
            watch_id = session.scalar(select(WatchRunRow.watch_id)
                                      .where(WatchRunRow.id == watch_run_id))
            if watch_id is None or not self._changed(session, update(WatchRunRow).where(
                    WatchRunRow.id == watch_run_id, WatchRunRow.status == "running").values(
                    status=status, summary=summary, nothing_new=nothing_new, change=change,
                    changes_markdown=changes_markdown, previous_run_id=previous_run_id,
                    error=error, finished_at=ended_at or now)):
                return False
            if deliveries:
                session.execute(insert(DeliveryRow), [
                    {"watch_run_id": watch_run_id, "watch_id": watch_id, "kind": kind,
                     "target": target, "notice": notice, "status": "pending", "attempts": 0,
                     "next_attempt_at": now, "last_error": None, "created_at": now,
                     "sent_at": None}
                    for kind, target, notice in deliveries])
            return True

    # ------------------------------------------------------------------ outbox

    def claim_due_deliveries(self, now: datetime, *, lease_s: float = DELIVERY_LEASE_S,
                             limit: int = 100, watch_id: str | None = None
                             ) -> builtins.list[DeliveryInfo]:
        """Pending deliveries due at ``now`` that this call leased (each once, however
        many processes call): one attempt counted, ``next_attempt_at`` moved ``lease_s``
        ahead - :meth:`mark_delivery` says how it went. ``watch_id``: that watch's only
        (``deepcite watch run`` sends what its run queued, nobody else's). The
        deliveries of a disabled owner's watches wait until the owner is enabled."""
        query = select(DeliveryRow).join(WatchRow, WatchRow.id == DeliveryRow.watch_id).where(
            DeliveryRow.status == "pending", DeliveryRow.next_attempt_at <= now,
            _owner_enabled())
        if watch_id is not None:
            query = query.where(DeliveryRow.watch_id == watch_id)
        with self._reading() as session:
            due = [(row.id, row.next_attempt_at) for row in session.scalars(
                query.order_by(DeliveryRow.next_attempt_at, DeliveryRow.id)
                .limit(max(limit, 0)))]
        leased: builtins.list[DeliveryInfo] = []
        until = now + timedelta(seconds=lease_s)
        for delivery_id, expected in due:
            with self._writing() as session:
                if self._changed(session, update(DeliveryRow).where(
                        DeliveryRow.id == delivery_id, DeliveryRow.status == "pending",
                        DeliveryRow.next_attempt_at == expected).values(
                        next_attempt_at=until, attempts=DeliveryRow.attempts + 1)):
                    row = session.get(DeliveryRow, delivery_id)
                    assert row is not None
                    session.refresh(row)
                    leased.append(_delivery(row))
        return leased

    def mark_delivery(self, delivery_id: int, outcome: str, *, error: str | None = None,
                      max_attempts: int = 5, now: datetime | None = None,
                      retry_at: datetime | None = None) -> DeliveryStatus:
        """Say how a leased delivery went: ``sent``; or ``retry`` (it failed with
        ``error``): pending again after :func:`delivery_backoff`, or ``failed`` once it
        has had ``max_attempts`` tries; ``retry_at`` sets the next try's time (the senders'
        backoff, :func:`deepcite.watches.delivery.next_attempt`). Returns its status now."""
        now = now or datetime.now(UTC)
        with self._writing() as session:
            row = session.get(DeliveryRow, delivery_id)
            if row is None:
                raise StoreError(f"No delivery {delivery_id} (its watch was removed?)")
            if outcome == "sent":
                row.status, row.sent_at, row.last_error = "sent", now, None
            elif outcome in ("retry", "failed"):
                row.last_error = (error or "delivery failed")[:2000]
                if outcome == "failed" or row.attempts >= max_attempts:
                    row.status, row.next_attempt_at = "failed", None
                else:
                    row.status = "pending"
                    row.next_attempt_at = retry_at or now + delivery_backoff(row.attempts)
            else:
                raise ValueError(f"unknown delivery outcome {outcome!r}")
            return cast(DeliveryStatus, row.status)

    def deliveries(self, watch_id: str, *, limit: int = 200) -> builtins.list[DeliveryInfo]:
        """The outbox rows of a watch (its full id), newest first."""
        with self._reading() as session:
            rows = session.scalars(select(DeliveryRow).where(DeliveryRow.watch_id == watch_id)
                                   .order_by(DeliveryRow.id.desc()).limit(max(limit, 0)))
            return [_delivery(row) for row in rows]

    # ------------------------------------------------------------------ plumbing

    @staticmethod
    def _resolve_watch(session: Session, ref: str, access: Access) -> str:
        return resolve_prefix(session, ref, WatchRow.id, _sees(access), _WATCH_IDS)
