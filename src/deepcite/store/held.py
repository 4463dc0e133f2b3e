"""Runs this process holds: events written as they happen, a heartbeat, an honest end.

A run researched in this process (``deepcite ask``/``report``, the Python API, MCP, an
in-process ``deepcite serve``) is *held* by the store object that began it until it is
ended. While held:

- its events reach the database within :data:`FLUSH_S` seconds of happening, so a
  ``kill -9`` loses at most that much, and another process (a web server following a
  CLI run) can read them live;
- its row's ``heartbeat_at`` is refreshed every :data:`HEARTBEAT_S` seconds, the rule
  queue workers already follow: a starting server may mark a run ``interrupted`` only
  when nobody has said it is alive for :data:`STALE_S` seconds, never a run a live CLI,
  MCP or second server is still working on.

One daemon thread per store does both, started by the first run it holds. Closing the
store marks the runs it still holds ``interrupted`` (with their events): a process
closes its store on the way out, and a run it was holding can never end after that.

A process that dies without closing (``kill -9``) cannot say so. Each run records its
holder (:mod:`deepcite.store.holder`), so when that holder was a process of this host
that no longer exists, the run is marked ``interrupted`` at once - by a starting server
and by every read of a run's state - with no wait for the heartbeat to go stale; runs
held on other hosts keep the heartbeat rule.
"""

from __future__ import annotations

import builtins
import logging
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, or_, select, update
from sqlalchemy.orm import Session

from deepcite.errors import StoreError
from deepcite.store.base import StoreBase
from deepcite.store.holder import is_gone, this_host
from deepcite.store.models import Run
from deepcite.types import Event, RunWarning

logger = logging.getLogger(__name__)

FLUSH_S = 0.5
"""How often buffered events of held runs are written (the most a hard kill loses)."""
HEARTBEAT_S = 5.0
"""How often this process says the runs it holds are alive."""
STALE_S = 30.0
"""Silence after which an in-process run is taken for dead: six missed heartbeats, so a
busy machine or a slow database never gets a live run marked."""
_WARN_EVERY_S = 60.0


class HeldRuns(StoreBase):
    """The held-runs side of :class:`~deepcite.store.HistoryStore`."""

    def _hold(self, run_id: str) -> None:
        """Start keeping ``run_id`` alive (and its events flowing) from this process."""
        with self._lock:
            self._held.add(run_id)
            if self._keeper is None and not self._stopping.is_set():
                self._keeper = threading.Thread(target=self._keep, daemon=True,
                                                name="deepcite-store-keeper")
                self._keeper.start()

    def _release(self, run_id: str) -> None:
        with self._lock:
            self._held.discard(run_id)

    def held(self) -> builtins.list[str]:
        """The runs this store object began and has not ended yet."""
        with self._lock:
            return sorted(self._held)

    def flush_events(self) -> None:
        """Write every buffered event now (the keeper does it every :data:`FLUSH_S`).

        Events stay buffered, in order, when the database cannot be reached, and go
        with the next flush; events of a run deleted meanwhile are dropped."""
        with self._flush_lock:
            with self._lock:
                batches = {run: events for run, events in self._pending.items() if events}
                self._pending = {}
            if not batches:
                return
            try:
                with self._writing() as session:
                    for run_id, events in batches.items():
                        self._write_events(session, run_id, events)
            except StoreError:
                with self._lock:
                    for run_id, events in batches.items():
                        self._pending[run_id] = events + self._pending.get(run_id, [])
                raise

    def stop_requested(self, run_id: str, message: str) -> bool:
        """Record at once that the run was cancelled and why (its client cancelled or
        went away): status ``cancelled`` and a warning event, with every event so far.

        The run itself may take a while to notice (a model call in flight); when it
        ends, its partial result is stored over this. ``False`` when it had already
        ended."""
        with self._flush_lock:
            self.flush_events()
            with self._writing() as session:
                stopped = self._changed(session, update(Run).where(
                    Run.id == run_id, Run.status == "running").values(
                    status="cancelled", cancelled=True, finished_at=datetime.now(UTC)))
                if stopped:
                    self._write_events(session, run_id,
                                       [RunWarning(code="cancelled", message=message)])
        return bool(stopped)

    def _write_events(self, session: Session, run_id: str, events: Sequence[Event]) -> None:
        """Append ``events`` after the run's last, holding its row (no-op once deleted)."""
        if session.scalar(select(Run.id).where(Run.id == run_id).with_for_update()) is None:
            return
        self._insert_events(session, run_id, events)

    def beat(self) -> None:
        """Say now that every run this store holds is alive."""
        with self._lock:
            held = list(self._held)
        if not held:
            return
        with self._writing() as session:
            self._changed(session, update(Run).where(
                Run.id.in_(held), in_process_active(), Run.worker.is_(None))
                .values(heartbeat_at=datetime.now(UTC)))

    def _keep(self) -> None:
        """The keeper thread: flush every FLUSH_S, heartbeat every HEARTBEAT_S, and log
        (at most once a minute) when the database is away instead of dying."""
        last_beat = time.monotonic()
        last_warning = 0.0
        while not self._stopping.wait(FLUSH_S):
            try:
                self.flush_events()
                if time.monotonic() - last_beat >= HEARTBEAT_S:
                    self.beat()
                    last_beat = time.monotonic()
            except StoreError as exc:
                if time.monotonic() - last_warning >= _WARN_EVERY_S:
                    logger.warning("run events and heartbeats are not reaching the "
                                   "history store: %s", exc)
                    last_warning = time.monotonic()
            except Exception:  # never a silently dead keeper
                logger.exception("the history store's keeper failed; retrying")

    def _stop_keeper(self) -> None:
        self._stopping.set()
        with self._lock:
            keeper = self._keeper
        if keeper is not None and keeper is not threading.current_thread():
            keeper.join(timeout=10.0)

    def _orphaned(self, stale_after_s: float, dead: Sequence[str] = ()
                  ) -> tuple[ColumnElement[bool], ...]:
        """The test of a run no live process holds: running (or waiting in a pool)
        in-process (no worker), silent for ``stale_after_s`` (or with no heartbeat at
        all: an old deepcite) or one of ``dead`` (:meth:`_dead_holders`), and not one
        of ours."""
        cutoff = datetime.now(UTC) - timedelta(seconds=stale_after_s)
        with self._lock:
            ours = list(self._held)
        gone: builtins.list[ColumnElement[bool]] = [
            Run.heartbeat_at.is_(None), Run.heartbeat_at < cutoff]
        if dead:
            gone.append(Run.id.in_(dead))
        conditions: builtins.list[ColumnElement[bool]] = [
            in_process_active(), Run.worker.is_(None), or_(*gone)]
        if ours:
            conditions.append(Run.id.not_in(ours))
        return tuple(conditions)

    def _dead_holders(self, session: Session, run_id: str | None = None
                      ) -> builtins.list[str]:
        """The active in-process runs (``run_id`` alone, when given) whose holder was a
        process of this host that no longer exists - never one this object holds."""
        query = select(Run.id, Run.holder_pid, Run.holder_started).where(
            in_process_active(), Run.worker.is_(None), Run.holder_host == this_host())
        if run_id is not None:
            query = query.where(Run.id == run_id)
        with self._lock:
            ours = set(self._held)
        return [row.id for row in session.execute(query)
                if row.id not in ours and row.holder_pid is not None
                and is_gone(row.holder_pid, row.holder_started)]

    def settle_dead_holders(self, run_id: str | None = None) -> builtins.list[str]:
        """Mark ``interrupted`` now the active runs (``run_id`` alone, when given) whose
        holding process was of this host and is gone; returns their ids.

        What every read of a run's state calls first, so no reader ever sees a killed
        process's run as ``running``. A database that cannot be written (a read-only
        copy) leaves them as they are: the reading goes on, and is logged."""
        try:
            with self._reading() as session:
                if not self._dead_holders(session, run_id):
                    return []
            with self._flush_lock, self._writing() as session:
                dead = self._dead_holders(session, run_id)
                if dead:
                    self._changed(session, update(Run).where(
                        Run.id.in_(dead), in_process_active(), Run.worker.is_(None))
                        .values(status="interrupted", finished_at=datetime.now(UTC)))
        except StoreError as exc:
            logger.info("runs of stopped processes could not be marked: %s", exc)
            return []
        for run_id_ in dead:
            logger.warning("run %s lost its process: interrupted", run_id_[:8])
        return dead


def in_process_active() -> ColumnElement[bool]:
    """Not ended, and in-process (the caller adds ``worker IS NULL``): running, or
    queued in a process's own pool (a holder recorded) - a queued run without a holder
    waits for a queue worker, and is none of a process's business."""
    return or_(Run.status == "running",
               (Run.status == "queued") & Run.holder_host.is_not(None))
