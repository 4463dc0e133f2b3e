"""The history store: every research run kept to be listed, reopened, deleted and
followed up on.

One :class:`HistoryStore` per process is enough; it is safe to share between threads
(each operation takes its own connection and transaction) and between processes. A
run done in this process goes through :meth:`~HistoryStore.begin` (a ``running`` row,
so even a run that crashes leaves a trace), events as they happen
(:meth:`~HistoryStore.record_event`, buffered in memory because they arrive from
worker threads many times a second, and written with the result), and
:meth:`~HistoryStore.finish` or :meth:`~HistoryStore.fail`. A run done by a worker
process is queued, claimed, kept alive and ended with ``worker=`` - see
:mod:`deepcite.store.queue_ops`.

Users name runs as git names commits: the full id or any unique prefix of at least
:data:`MIN_PREFIX` characters.
"""

from __future__ import annotations

import builtins
import re
import uuid
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Self, cast

from pydantic import ValidationError
from sqlalchemy import Engine, delete, func, insert, select, update
from sqlalchemy.orm import Session

from deepcite.config import Settings
from deepcite.errors import StoreError
from deepcite.store.base import MIN_PREFIX
from deepcite.store.body import search_text
from deepcite.store.convert import (
    assemble,
    check_rows,
    event_rows,
    events_of,
    result_columns,
    source_rows,
)
from deepcite.store.engine import create_store_engine, sqlite_url
from deepcite.store.migrate import upgrade
from deepcite.store.models import CheckRow, EventRow, Run, SourceRow
from deepcite.store.queue_ops import QueueOps
from deepcite.store.records import RunStatus, RunSummary, StoredRun
from deepcite.store.snapshot import settings_snapshot
from deepcite.types import Event, ReportMode, ResearchResult

__all__ = ["FILE_NAME", "MIN_PREFIX", "HistoryStore"]

FILE_NAME = "history.db"
"""The SQLite file in ``settings.data_dir`` when ``store.url`` is not set."""
_LIKE_SPECIAL = re.compile(r"([\\%_])")


class HistoryStore(QueueOps):
    """Runs kept in a SQLAlchemy database (see the module docstring)."""

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, settings: Settings) -> HistoryStore:
        """The store ``settings`` name: ``store.url``, else ``history.db`` in the data dir."""
        if settings.store.url:
            return cls.from_url(settings.store.url, pool_size=settings.store.pool_size,
                                max_overflow=settings.store.max_overflow,
                                pool_timeout=settings.store.pool_timeout_seconds)
        return cls._migrated(create_store_engine(sqlite_url(settings.data_dir / FILE_NAME)))

    @classmethod
    def from_url(cls, url: str, *, pool_size: int = 5, max_overflow: int = 10,
                 pool_timeout: float = 10.0) -> HistoryStore:
        """The store at a SQLAlchemy ``url`` (``sqlite:///path``, ``postgresql+psycopg://``);
        the pool options apply to server databases."""
        return cls._migrated(create_store_engine(url, pool_size=pool_size,
                                                 max_overflow=max_overflow,
                                                 pool_timeout=pool_timeout))

    @classmethod
    def _migrated(cls, engine: Engine) -> HistoryStore:
        try:
            upgrade(engine)
        except BaseException:
            engine.dispose()
            raise
        return cls(engine)

    def close(self) -> None:
        """Write events still buffered (of runs that never finished), then disconnect."""
        try:
            with self._lock:
                pending = list(self._pending)
            if pending:
                with self._writing() as session:
                    for run_id in pending:
                        if session.get(Run, run_id) is not None:
                            self._flush_events(session, run_id)
        finally:
            self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    # ------------------------------------------------------------------ writing

    def begin(self, question: str, *, mode: ReportMode, settings: Settings,
              parent_id: str | None = None) -> str:
        """Record a run that starts now; returns its id. ``parent_id`` (an id or unique
        prefix) makes it a follow-up of that run."""
        run_id = uuid.uuid4().hex
        with self._writing() as session:
            parent = self._resolve(session, parent_id) if parent_id else None
            session.add(Run(
                id=run_id, question=question, mode=mode, status="running",
                created_at=datetime.now(UTC), finished_at=None, parent_id=parent,
                settings=settings_snapshot(settings), cancelled=False, warnings=[],
                warning_codes=[], unsupported_sentences=[], outline=[],
                questions_by_iteration={}, findings=[],
                search_text=search_text(question, None, None)))
        return run_id

    def record_event(self, run_id: str, event: Event) -> None:
        """Keep ``event`` for the run; written by :meth:`finish`/:meth:`fail` (or
        :meth:`close`). Safe to call from any thread; order of arrival is kept."""
        with self._lock:
            self._pending.setdefault(run_id, []).append(event)

    def finish(self, run_id: str, result: ResearchResult, *, worker: str | None = None) -> None:
        """Store the run's result; its status is ``cancelled`` when the result says so,
        ``failed`` when it carries an error, else ``completed``.

        With ``worker`` (a run it claimed) the result is stored only while that worker
        still holds the run; else :class:`StoreError` - and the same for :meth:`fail`
        and :meth:`interrupt`.
        """
        status: RunStatus = ("cancelled" if result.cancelled
                             else "failed" if result.error else "completed")
        self._end(run_id, status, result.error, result, worker)

    def fail(self, run_id: str, error: str, result: ResearchResult | None = None, *,
             worker: str | None = None) -> None:
        """The run crashed with ``error``: status ``failed``, keeping its events and
        whatever ``result`` there was."""
        self._end(run_id, "failed", error, result, worker)

    def interrupt(self, run_id: str, result: ResearchResult | None = None, *,
                  worker: str | None = None) -> None:
        """The server running the run stopped: status ``interrupted``, keeping its events
        and whatever ``result`` it had when it was cancelled."""
        self._end(run_id, "interrupted", None, result, worker)

    def mark_interrupted(self) -> builtins.list[str]:
        """Mark every run ``running`` without a worker heartbeat as ``interrupted``;
        returns their ids.

        For a server starting up: a run it finds ``running`` with no heartbeat was run
        in-process by a previous server that stopped without ending it, and no one will
        ever end it now. Queued runs and runs held by workers (they have a heartbeat)
        are left alone - a silent worker's runs are :meth:`reap`'s business. Only call
        it when no other process runs research in-process on this store.
        """
        now = datetime.now(UTC)
        orphaned = (Run.status == "running", Run.heartbeat_at.is_(None))
        with self._writing() as session:
            ids = list(session.scalars(select(Run.id).where(*orphaned)
                                       .order_by(Run.created_at)))
            if ids:
                self._changed(session, update(Run).where(Run.id.in_(ids), *orphaned)
                              .values(status="interrupted", finished_at=now))
                for run_id in ids:
                    self._flush_events(session, run_id)
        return ids

    def _end(self, run_id: str, status: RunStatus, error: str | None,
             result: ResearchResult | None, worker: str | None = None) -> None:
        with self._writing() as session:
            if session.scalar(select(Run.id).where(Run.id == run_id)) is None:
                raise StoreError(f"Run {run_id} is not in the history (was it deleted "
                                 "while it ran?); its result was not stored")
            values: dict[str, Any] = {"status": status, "error": error,
                                      "finished_at": datetime.now(UTC)}
            if result is not None:
                values.update(result_columns(result))
            held = update(Run).where(Run.id == run_id)
            if worker is not None:
                held = held.where(Run.status == "running", Run.worker == worker)
            if not self._changed(session, held.values(**values)):
                raise StoreError(f"Run {run_id} is no longer held by this worker (it was "
                                 "re-queued or ended elsewhere); its result was not stored")
            if result is not None:
                session.execute(delete(SourceRow).where(SourceRow.run_id == run_id))
                session.execute(delete(CheckRow).where(CheckRow.run_id == run_id))
                sources = source_rows(run_id, result.sources)
                if sources:
                    session.execute(insert(SourceRow), sources)
                checks = check_rows(run_id, result.citation_checks)
                if checks:
                    session.execute(insert(CheckRow), checks)
            self._flush_events(session, run_id)

    def _flush_events(self, session: Session, run_id: str) -> None:
        with self._lock:
            events = self._pending.pop(run_id, [])
        if not events:
            return
        # the run's row lock orders this after any append_events to the same run
        session.scalar(select(Run.id).where(Run.id == run_id).with_for_update())
        last = session.scalar(select(func.max(EventRow.seq)).where(EventRow.run_id == run_id))
        session.execute(insert(EventRow), event_rows(run_id, (last or 0) + 1, events))

    def delete(self, ref: str) -> str:
        """Delete a run with its sources, checks and events; returns its full id.
        Follow-ups of it stay, no longer linked to it."""
        with self._writing() as session:
            run_id = self._resolve(session, ref)
            session.execute(delete(Run).where(Run.id == run_id))
        with self._lock:
            self._pending.pop(run_id, None)
        return run_id

    # ------------------------------------------------------------------ reading

    def get(self, ref: str) -> StoredRun:
        """The run ``ref`` names (an id or a unique prefix), re-assembled."""
        with self._reading() as session:
            run_id = self._resolve(session, ref)
            run = session.get_one(Run, run_id)
            sources = list(session.scalars(select(SourceRow).where(SourceRow.run_id == run_id)
                                           .order_by(SourceRow.number)))
            checks = list(session.scalars(select(CheckRow).where(CheckRow.run_id == run_id)
                                          .order_by(CheckRow.position)))
            events = list(session.scalars(select(EventRow).where(EventRow.run_id == run_id)
                                          .order_by(EventRow.seq)))
            try:
                return StoredRun(
                    id=run.id, created_at=run.created_at, finished_at=run.finished_at,
                    status=cast(RunStatus, run.status), mode=cast(ReportMode, run.mode),
                    parent_id=run.parent_id, settings=run.settings,
                    result=assemble(run, sources, checks), events=events_of(events))
            except ValidationError as error:
                problem = error.errors()[0]
                where = ".".join(str(part) for part in problem["loc"])
                raise StoreError(f"Run {run_id[:8]} cannot be read by this deepcite "
                                 f"({where}: {problem['msg']}); upgrade deepcite, or "
                                 f"`deepcite rm {run_id[:8]}`") from None

    def list(self, *, search: str | None = None,
             limit: int | None = None) -> builtins.list[RunSummary]:
        """Runs newest first; ``search`` keeps those whose question, title or body holds
        it (case-insensitive); ``limit`` keeps the first so many."""
        sources = (select(func.count(SourceRow.id)).where(SourceRow.run_id == Run.id)
                   .correlate(Run).scalar_subquery())
        query = (select(Run.id, Run.created_at, Run.question, Run.mode, Run.status,
                        sources, Run.parent_id, Run.strategy, Run.title)
                 .order_by(Run.created_at.desc(), Run.id.desc()))
        if search and search.strip():
            pattern = _LIKE_SPECIAL.sub(r"\\\1", search.strip().casefold())
            query = query.where(Run.search_text.like(f"%{pattern}%", escape="\\"))
        if limit is not None:
            query = query.limit(max(limit, 0))
        with self._reading() as session:
            rows = session.execute(query).all()
        return [RunSummary(id=row[0], created_at=row[1], question=row[2], mode=row[3],
                           status=row[4], sources=row[5], parent_id=row[6],
                           strategy=row[7], title=row[8]) for row in rows]
