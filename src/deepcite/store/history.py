"""The history store: every research run kept to be listed, reopened, deleted and
followed up on.

One :class:`HistoryStore` per process is enough; it is safe to share between threads
(each operation takes its own connection and transaction). A run goes through
:meth:`~HistoryStore.begin` (a ``running`` row, so even a run that crashes leaves a
trace), events as they happen (:meth:`~HistoryStore.record_event`, buffered in memory
because they arrive from worker threads many times a second, and written with the
result), and :meth:`~HistoryStore.finish` or :meth:`~HistoryStore.fail`.

Users name runs as git names commits: the full id or any unique prefix of at least
:data:`MIN_PREFIX` characters.
"""

from __future__ import annotations

import builtins
import re
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Self, cast

from pydantic import ValidationError
from sqlalchemy import Engine, delete, exc, func, insert, select, update
from sqlalchemy.orm import Session

from deepcite.config import Settings
from deepcite.errors import StoreError
from deepcite.store.body import search_text
from deepcite.store.convert import (
    assemble,
    check_rows,
    event_rows,
    events_of,
    result_columns,
    source_rows,
)
from deepcite.store.engine import WRITE, create_store_engine, sqlite_url, store_error
from deepcite.store.migrate import upgrade
from deepcite.store.models import CheckRow, EventRow, Run, SourceRow
from deepcite.store.records import RunStatus, RunSummary, StoredRun
from deepcite.store.snapshot import settings_snapshot
from deepcite.types import Event, ReportMode, ResearchResult

FILE_NAME = "history.db"
"""The SQLite file in ``settings.data_dir`` when ``store.url`` is not set."""
MIN_PREFIX = 4
"""The shortest id prefix accepted: shorter ones match too many runs to be safe."""
_HEX = re.compile(r"[0-9a-f]{1,32}")
_LIKE_SPECIAL = re.compile(r"([\\%_])")


class HistoryStore:
    """Runs kept in a SQLAlchemy database (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        """Use :meth:`open` or :meth:`from_url`, which also bring the schema up to date."""
        self._engine = engine
        self._lock = threading.Lock()
        self._pending: dict[str, list[Event]] = {}

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, settings: Settings) -> HistoryStore:
        """The store ``settings`` name: ``store.url``, else ``history.db`` in the data dir."""
        if settings.store.url:
            return cls.from_url(settings.store.url)
        return cls._migrated(create_store_engine(sqlite_url(settings.data_dir / FILE_NAME)))

    @classmethod
    def from_url(cls, url: str) -> HistoryStore:
        """The store at a SQLAlchemy ``url`` (``sqlite:///path``, ``postgresql+psycopg://``)."""
        return cls._migrated(create_store_engine(url))

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

    def finish(self, run_id: str, result: ResearchResult) -> None:
        """Store the run's result; its status is ``cancelled`` when the result says so,
        ``failed`` when it carries an error, else ``completed``."""
        status: RunStatus = ("cancelled" if result.cancelled
                             else "failed" if result.error else "completed")
        self._end(run_id, status, result.error, result)

    def fail(self, run_id: str, error: str, result: ResearchResult | None = None) -> None:
        """The run crashed with ``error``: status ``failed``, keeping its events and
        whatever ``result`` there was."""
        self._end(run_id, "failed", error, result)

    def interrupt(self, run_id: str, result: ResearchResult | None = None) -> None:
        """The server running the run stopped: status ``interrupted``, keeping its events
        and whatever ``result`` it had when it was cancelled."""
        self._end(run_id, "interrupted", None, result)

    def mark_interrupted(self) -> builtins.list[str]:
        """Mark every run still ``running`` as ``interrupted``; returns their ids.

        For a server starting up: a run it finds ``running`` belonged to a previous
        process that stopped without ending it, and no one will ever end it now. Only
        call it when no other process runs research on this store.
        """
        now = datetime.now(UTC)
        with self._writing() as session:
            ids = list(session.scalars(select(Run.id).where(Run.status == "running")
                                       .order_by(Run.created_at)))
            if ids:
                session.execute(update(Run).where(Run.id.in_(ids))
                                .values(status="interrupted", finished_at=now))
                for run_id in ids:
                    self._flush_events(session, run_id)
        return ids

    def _end(self, run_id: str, status: RunStatus, error: str | None,
             result: ResearchResult | None) -> None:
        with self._writing() as session:
            if session.get(Run, run_id) is None:
                raise StoreError(f"Run {run_id} is not in the history (was it deleted "
                                 "while it ran?); its result was not stored")
            values: dict[str, Any] = {"status": status, "error": error,
                                      "finished_at": datetime.now(UTC)}
            if result is not None:
                values.update(result_columns(result))
                session.execute(delete(SourceRow).where(SourceRow.run_id == run_id))
                session.execute(delete(CheckRow).where(CheckRow.run_id == run_id))
                sources = source_rows(run_id, result.sources)
                if sources:
                    session.execute(insert(SourceRow), sources)
                checks = check_rows(run_id, result.citation_checks)
                if checks:
                    session.execute(insert(CheckRow), checks)
            session.execute(update(Run).where(Run.id == run_id).values(**values))
            self._flush_events(session, run_id)

    def _flush_events(self, session: Session, run_id: str) -> None:
        with self._lock:
            events = self._pending.pop(run_id, [])
        if not events:
            return
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

    # ------------------------------------------------------------------ plumbing

    @staticmethod
    def _resolve(session: Session, ref: str) -> str:
        """The full id of the one run ``ref`` names, or a one-line :class:`StoreError`."""
        wanted = ref.strip().lower()
        if len(wanted) < MIN_PREFIX:
            raise StoreError(f"Run id {ref!r} is too short - give at least {MIN_PREFIX} "
                             "characters of an id from `deepcite history`")
        if not _HEX.fullmatch(wanted):
            raise StoreError(f"No run {ref!r} in the history - ids are hexadecimal; "
                             "`deepcite history` lists them")
        found = list(session.scalars(select(Run.id).where(Run.id.startswith(wanted))
                                     .order_by(Run.id).limit(4)))
        if not found:
            raise StoreError(f"No run {ref!r} in the history - `deepcite history` lists "
                             "the runs")
        if len(found) > 1:
            some = ", ".join(run_id[:12] for run_id in found[:3])
            raise StoreError(f"Run id {ref!r} matches several runs ({some}"
                             f"{', ...' if len(found) > 3 else ''}) - type more of the id")
        return found[0]

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        with self._database_errors(), Session(self._engine) as session:
            yield session

    @contextmanager
    def _writing(self) -> Iterator[Session]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite), committed on success."""
        with self._database_errors(), self._engine.connect() as connection:
            connection.execution_options(**WRITE)
            with Session(bind=connection) as session, session.begin():
                yield session

    @contextmanager
    def _database_errors(self) -> Iterator[None]:
        try:
            yield
        except exc.SQLAlchemyError as error:
            raise store_error(error, self._engine.url) from None
