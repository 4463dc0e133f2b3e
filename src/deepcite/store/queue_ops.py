"""Queued runs, the workers that run them, their events, and the collection registry.

With a queue, research runs on worker processes, and the store is where they, the web
servers and the reaper agree on every run's state::

    enqueue --> queued --claim--> running --finish/fail/interrupt(worker=...)--> ended
                  ^  |               |  (heartbeat every few seconds)
                  |  +--request_cancel--> cancelled
                  +------ reap: worker silent, tries left ---+ (else: interrupted)

Every change of state is one ``UPDATE ... WHERE`` naming the state it expects, its
row count telling whether it happened, so two workers or two reapers can never both
win: on SQLite write transactions queue for the file's write lock, on PostgreSQL the
second UPDATE waits for the first and then finds the state changed. Times are the
clocks of the processes (UTC); hosts sharing a store should keep them in sync.
"""

from __future__ import annotations

import builtins
import random
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from pydantic import ValidationError
from sqlalchemy import delete, exc, insert, select, update

from deepcite.config import Settings
from deepcite.errors import StoreError
from deepcite.store.base import StoreBase
from deepcite.store.body import search_text
from deepcite.store.convert import events_of
from deepcite.store.models import CollectionRow, EventRow, Run
from deepcite.store.read_models import ACTIVE, ClaimedRun, CollectionEntry, RunStateInfo, RunStatus
from deepcite.store.snapshot import settings_snapshot
from deepcite.types import Event, ReportMode, RunWarning

APPEND_TRIES = 8
"""How often :meth:`QueueOps.append_events` retries after losing a race for a seq."""
_RETRY_PAUSE_S = 0.01


class QueueOps(StoreBase):
    """The queue side of :class:`~deepcite.store.HistoryStore` (see the module docstring)."""

    # ------------------------------------------------------------------ queue

    def enqueue(self, question: str, *, mode: ReportMode, settings: Settings,
                request: dict[str, Any], parent_id: str | None = None,
                owner_id: int | None = None) -> str:
        """Record a run that waits for a worker (status ``queued``); returns its id.

        ``request`` (the run request as JSON-ready data) is stored as given, for the
        worker that claims the run; ``settings`` as a snapshot without secrets. The run
        belongs to user ``owner_id``.
        """
        run_id = uuid.uuid4().hex
        with self._writing() as session:
            parent = self._resolve(session, parent_id) if parent_id else None
            session.add(Run(
                id=run_id, question=question, mode=mode, status="queued", owner_id=owner_id,
                created_at=datetime.now(UTC), finished_at=None, parent_id=parent,
                settings=settings_snapshot(settings), cancelled=False, warnings=[],
                warning_codes=[], unsupported_sentences=[], outline=[],
                questions_by_iteration={}, findings=[], request=request, attempts=0,
                cancel_requested=False, search_text=search_text(question, None, None)))
        return run_id

    def claim(self, run_id: str, worker: str) -> ClaimedRun | None:
        """Take the queued run for ``worker`` (``running``, one more attempt, a fresh
        heartbeat); ``None`` when it is not queued (cancelled, claimed by another)."""
        with self._writing() as session:
            claimed = self._changed(session, update(Run).where(
                Run.id == run_id, Run.status == "queued", Run.holder_host.is_(None)).values(
                status="running", attempts=Run.attempts + 1,
                heartbeat_at=datetime.now(UTC), worker=worker))
            if not claimed:
                return None
            row = session.execute(select(Run.question, Run.mode, Run.request, Run.settings,
                                         Run.attempts).where(Run.id == run_id)).one()
        return ClaimedRun(id=run_id, question=row.question, mode=cast(ReportMode, row.mode),
                          request=row.request or {}, settings=row.settings,
                          attempts=row.attempts)

    def heartbeat(self, run_id: str, worker: str) -> bool:
        """Say ``worker`` still runs the run; ``False`` when the run is no longer its
        (re-queued by the reaper, ended, deleted) - the worker should stop then."""
        with self._writing() as session:
            return bool(self._changed(session, update(Run).where(
                Run.id == run_id, Run.status == "running", Run.worker == worker)
                .values(heartbeat_at=datetime.now(UTC))))

    def request_cancel(self, run_id: str) -> bool:
        """Cancel the run: a queued one at once (``cancelled``), a running one by asking
        its worker (``cancel_requested``); ``False`` when it has already ended."""
        now = datetime.now(UTC)
        with self._writing() as session:
            for _ in range(3):  # the state may change between the two compare-and-sets
                if self._changed(session, update(Run).where(
                        Run.id == run_id, Run.status == "queued").values(
                        status="cancelled", cancelled=True, finished_at=now)):
                    return True
                if self._changed(session, update(Run).where(
                        Run.id == run_id, Run.status == "running").values(
                        cancel_requested=True)):
                    return True
                status = session.scalar(select(Run.status).where(Run.id == run_id))
                if status is None:
                    raise self._unknown(run_id)
                if status not in ACTIVE:
                    return False
        return False

    def queued_ids(self, limit: int = 1000) -> builtins.list[str]:
        """The ids of the runs queued for workers, oldest first (a run's queue position
        is its index); runs waiting in a process's own pool (a holder recorded) are
        that process's, never a worker's."""
        with self._reading() as session:
            return list(session.scalars(
                select(Run.id).where(Run.status == "queued", Run.holder_host.is_(None))
                .order_by(Run.created_at, Run.id).limit(max(limit, 0))))

    def run_state(self, run_id: str) -> RunStateInfo:
        """Where the run with this full id stands (cheap: no sources, checks, events)."""
        self.settle_dead_holders(run_id)
        with self._reading() as session:
            row = session.execute(select(
                Run.question, Run.mode, Run.status, Run.created_at, Run.finished_at,
                Run.error, Run.attempts, Run.cancel_requested, Run.worker, Run.heartbeat_at,
            ).where(Run.id == run_id)).one_or_none()
        if row is None:
            raise self._unknown(run_id)
        return RunStateInfo(
            id=run_id, question=row.question, mode=cast(ReportMode, row.mode),
            status=cast(RunStatus, row.status), created_at=row.created_at,
            finished_at=row.finished_at, error=row.error, attempts=row.attempts,
            cancel_requested=row.cancel_requested, worker=row.worker,
            heartbeat_at=row.heartbeat_at)

    def reap(self, timeout_s: float, max_attempts: int) -> builtins.list[tuple[str, str]]:
        """Take back the runs whose worker went silent for ``timeout_s`` seconds.

        A run with tries left (fewer than ``max_attempts``) and no cancel asked goes
        back to ``queued``; any other becomes ``interrupted``. Returns ``(id,
        "requeued" | "interrupted")`` for each run this call changed (one reaper wins
        a run, however many run at once), and tells the run's followers why with a
        ``run_failed`` warning event.
        """
        now = datetime.now(UTC)
        cutoff = now - timedelta(seconds=timeout_s)
        with self._reading() as session:
            stale = list(session.scalars(
                # in-process runs (no worker) heartbeat too, but are never re-queued:
                # nothing but their own process could run them (mark_interrupted's job)
                select(Run.id).where(Run.status == "running", Run.worker.is_not(None),
                                     Run.heartbeat_at.is_not(None), Run.heartbeat_at < cutoff)
                .order_by(Run.created_at)))
        reaped: builtins.list[tuple[str, str]] = []
        for run_id in stale:
            silent = (Run.id == run_id, Run.status == "running", Run.heartbeat_at < cutoff)
            with self._writing() as session:
                if self._changed(session, update(Run).where(
                        *silent, Run.attempts < max_attempts, Run.cancel_requested.is_(False))
                        .values(status="queued", worker=None, heartbeat_at=None)):
                    outcome = "requeued"
                elif self._changed(session, update(Run).where(*silent).values(
                        status="interrupted", finished_at=now)):
                    outcome = "interrupted"
                else:
                    continue  # another reaper, or a late heartbeat, got there first
                attempts = session.scalar(select(Run.attempts).where(Run.id == run_id)) or 0
                message = ("The worker running this run stopped answering; it was "
                           f"re-queued (attempt {attempts + 1} of {max_attempts})"
                           if outcome == "requeued" else
                           "The worker running this run stopped answering; it was marked "
                           "interrupted")
                # In the transaction of the change itself, so a follower that sees the
                # run interrupted has the warning saying why in the same read.
                self._insert_events(session, run_id,
                                    [RunWarning(code="run_failed", message=message)])
            reaped.append((run_id, outcome))
        return reaped

    # ------------------------------------------------------------------ events

    def append_events(self, run_id: str, events: Sequence[Event]) -> int:
        """Store ``events`` now, numbered on from the run's highest ``seq``; returns the
        new highest (the current one for no events).

        Appends to one run are serialised by a lock on its row (PostgreSQL; SQLite's
        write lock does it there), and a lost race on the unique ``(run_id, seq)`` is
        retried, so processes appending at once never leave gaps or duplicates.
        """
        with self._database_errors():
            for attempt in range(APPEND_TRIES):
                try:
                    with self._transaction() as session:
                        held = session.scalar(select(Run.id).where(Run.id == run_id)
                                              .with_for_update())
                        if held is None:
                            raise StoreError(f"Run {run_id} is not in the history (was it "
                                             "deleted while it ran?); its events were not "
                                             "stored")
                        return self._insert_events(session, run_id, events)
                except exc.IntegrityError:
                    if attempt == APPEND_TRIES - 1:
                        raise
                    time.sleep(random.uniform(0, _RETRY_PAUSE_S * (attempt + 1)))
        raise AssertionError("unreachable")  # pragma: no cover

    def events_after(self, run_id: str, after: int = 0,
                     limit: int = 1000) -> builtins.list[tuple[int, Event]]:
        """The run's stored events with ``seq`` above ``after``, in order, with their seq."""
        with self._reading() as session:
            rows = list(session.scalars(
                select(EventRow).where(EventRow.run_id == run_id, EventRow.seq > after)
                .order_by(EventRow.seq).limit(max(limit, 0))))
            try:
                decoded = events_of(rows)
            except ValidationError as error:
                problem = error.errors()[0]
                where = ".".join(str(part) for part in problem["loc"])
                raise StoreError(f"An event of run {run_id[:8]} cannot be read by this "
                                 f"deepcite ({where}: {problem['msg']}); upgrade "
                                 "deepcite") from None
            return [(row.seq, event) for row, event in zip(rows, decoded, strict=True)]

    # ------------------------------------------------------------------ collections

    def register_collection(self, name: str, *, backend: str, location: str, documents: int,
                            chunks: int, settings: dict[str, Any] | None = None) -> None:
        """Add the collection ``name`` to the registry, or update it (``updated_at`` now)."""
        values = {"backend": backend, "location": location, "documents": documents,
                  "chunks": chunks, "settings": dict(settings or {})}
        with self._database_errors():
            for attempt in range(3):
                now = datetime.now(UTC)
                try:
                    with self._transaction() as session:
                        if not self._changed(session, update(CollectionRow).where(
                                CollectionRow.name == name).values(**values, updated_at=now)):
                            session.execute(insert(CollectionRow).values(
                                name=name, created_at=now, updated_at=now, **values))
                    return
                except exc.IntegrityError:  # registered by another process meanwhile
                    if attempt == 2:
                        raise

    def collections(self) -> builtins.list[CollectionEntry]:
        """The registered collections, by name."""
        with self._reading() as session:
            rows = list(session.scalars(select(CollectionRow).order_by(CollectionRow.name)))
            return [CollectionEntry(name=row.name, backend=row.backend, location=row.location,
                                    documents=row.documents, chunks=row.chunks,
                                    created_at=row.created_at, updated_at=row.updated_at,
                                    settings=dict(row.settings or {}))
                    for row in rows]

    def remove_collection(self, name: str) -> bool:
        """Take ``name`` out of the registry (its files stay); ``False`` if it was not in."""
        with self._writing() as session:
            return bool(self._changed(session, delete(CollectionRow)
                                      .where(CollectionRow.name == name)))
