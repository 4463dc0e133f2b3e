"""The history store: every research run kept to be listed, reopened, deleted and
followed up on.

One :class:`HistoryStore` per process is enough; it is safe to share between threads
(each operation takes its own connection and transaction) and between processes. A
run done in this process goes through :meth:`~HistoryStore.begin` (a ``running`` row,
so even a run that crashes leaves a trace), events as they happen
(:meth:`~HistoryStore.record_event`, buffered because they arrive from worker threads
many times a second, and written within half a second by the store's keeper thread,
which also keeps the run's heartbeat - see :mod:`deepcite.store.held`), and
:meth:`~HistoryStore.finish` or :meth:`~HistoryStore.fail`. A run done by a worker
process is queued, claimed, kept alive and ended with ``worker=`` - see
:mod:`deepcite.store.queue_ops`.

Users name runs as git names commits: the full id or any unique prefix of at least
:data:`MIN_PREFIX` characters.
"""

from __future__ import annotations

import builtins
import json
import logging
import re
import uuid
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Self, cast

from pydantic import ValidationError
from sqlalchemy import Engine, delete, func, insert, select, update
from sqlalchemy.orm import Session

from deepcite.config import Settings
from deepcite.errors import StoreError, UnknownRunError, UnreadableRunError, error_line
from deepcite.store import held
from deepcite.store.base import MIN_PREFIX
from deepcite.store.body import search_text
from deepcite.store.convert import assemble, events_of, result_columns, stored_rows
from deepcite.store.engine import create_store_engine, sqlite_url
from deepcite.store.held import HeldRuns, in_process_active
from deepcite.store.holder import this_process
from deepcite.store.migrate import upgrade
from deepcite.store.models import CheckRow, EventRow, Run, SourceRow, UserRow
from deepcite.store.queue_ops import QueueOps
from deepcite.store.read_models import RunStatus, RunSummary, StoredRun
from deepcite.store.removal_ops import RemovalOps
from deepcite.store.sessions_ops import SessionOps
from deepcite.store.sharing_ops import SharingOps
from deepcite.store.snapshot import settings_snapshot, snapshot_collections
from deepcite.store.usage_ops import UsageOps
from deepcite.store.user_rights import EVERYTHING, Access
from deepcite.store.users_ops import UserOps
from deepcite.store.watches_ops import WatchOps
from deepcite.types import Event, ReportMode, ResearchResult

__all__ = ["FILE_NAME", "MIN_PREFIX", "HistoryStore"]

FILE_NAME = "history.db"
"""The SQLite file in ``settings.data_dir`` when ``store.url`` is not set."""
logger = logging.getLogger(__name__)
_LIKE_SPECIAL = re.compile(r"([\\%_])")


class HistoryStore(QueueOps, HeldRuns, SessionOps, RemovalOps, UserOps, SharingOps,
                   WatchOps, UsageOps):
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
        """Write events still buffered, mark the runs this object still holds
        ``interrupted`` (nothing can end them once it is closed), then disconnect."""
        try:
            self._stop_keeper()
            self.flush_events()
            held = self.held()
            if held:
                logger.warning("%d run(s) still running when the history store closed; "
                               "stored as interrupted", len(held))
                with self._flush_lock, self._writing() as session:
                    self._changed(session, update(Run).where(
                        Run.id.in_(held), in_process_active(), Run.worker.is_(None))
                        .values(status="interrupted", finished_at=datetime.now(UTC)))
                with self._lock:
                    self._held.clear()
        finally:
            self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    # ------------------------------------------------------------------ writing

    def begin(self, question: str, *, mode: ReportMode, settings: Settings,
              parent_id: str | None = None, request: dict[str, Any] | None = None,
              owner_id: int | None = None, queued: bool = False) -> str:
        """Record a run that starts now; returns its id. ``parent_id`` (an id or unique
        prefix; the front end has checked its asker may see it) makes it a follow-up of
        that run; ``request`` (the run request as JSON-ready data) is kept so the run
        can be made again (``deepcite rerun``); the run belongs to user ``owner_id``.

        ``queued``: the run waits for a free slot of this process's own pool, and reads
        ``queued`` until :meth:`start` (held all the same: it is this process's to
        run, never a queue worker's). The run records this process as its holder."""
        run_id = uuid.uuid4().hex
        now = datetime.now(UTC)
        holder = this_process()
        with self._writing() as session:
            parent = self._resolve(session, parent_id) if parent_id else None
            session.add(Run(
                id=run_id, question=question, mode=mode,
                status="queued" if queued else "running", holder_host=holder.host,
                holder_pid=holder.pid, holder_started=holder.started,
                created_at=now, finished_at=None, parent_id=parent, heartbeat_at=now,
                settings=settings_snapshot(settings), cancelled=False, warnings=[],
                warning_codes=[], unsupported_sentences=[], outline=[],
                questions_by_iteration={}, findings=[], request=request,
                search_text=search_text(question, None, None), owner_id=owner_id))
        self._hold(run_id)
        return run_id

    def start(self, run_id: str) -> bool:
        """A run :meth:`begin` recorded ``queued`` got its slot: it reads ``running``
        from now. ``False`` when it is no longer queued (cancelled, deleted)."""
        with self._writing() as session:
            return bool(self._changed(session, update(Run).where(
                Run.id == run_id, Run.status == "queued", Run.worker.is_(None))
                .values(status="running", heartbeat_at=datetime.now(UTC))))

    def record_event(self, run_id: str, event: Event) -> None:
        """Keep ``event`` for the run; written within :data:`~deepcite.store.held.FLUSH_S`
        seconds (and at the latest by :meth:`finish`/:meth:`fail`/:meth:`close`). Safe to
        call from any thread; order of arrival is kept."""
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

    def mark_interrupted(self, stale_after_s: float | None = None) -> builtins.list[str]:
        """Mark every in-process run no live process holds as ``interrupted``; returns
        their ids.

        A run researched in-process has a heartbeat while its process lives (see
        :mod:`deepcite.store.held`); one silent for ``stale_after_s`` seconds was left by
        a process that died, and no one will ever end it now (default:
        :data:`~deepcite.store.held.STALE_S`). One whose holder was a process of this
        host that is gone is marked at once, silent or not. Runs a live CLI, MCP
        server or second web server holds are left alone, and so are runs queued for
        workers and runs held by workers - a silent worker's runs are :meth:`reap`'s
        business.
        """
        now = datetime.now(UTC)
        with self._reading() as session:
            dead = self._dead_holders(session)
        orphaned = self._orphaned(held.STALE_S if stale_after_s is None else stale_after_s,
                                  dead)
        with self._flush_lock, self._writing() as session:
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
        try:
            self._end_held(run_id, status, error, result, worker)
        finally:
            if worker is None:
                self._release(run_id)

    def _end_held(self, run_id: str, status: RunStatus, error: str | None,
                  result: ResearchResult | None, worker: str | None) -> None:
        with self._flush_lock, self._writing() as session:
            found = session.execute(select(Run.request, Run.settings)
                                    .where(Run.id == run_id)).one_or_none()
            if found is None:
                with self._lock:
                    self._pending.pop(run_id, None)
                raise UnknownRunError(f"Run {run_id} is not in the history (was it deleted "
                                      "while it ran?); its result was not stored")
            request, snapshot = found
            values: dict[str, Any] = {"status": status, "error": error,
                                      "finished_at": datetime.now(UTC)}
            if isinstance(request, dict) and "materials" in request:
                # a queued run carried its materials for the worker; once it has ended
                # their text leaves the history, as for a run begun in process
                values["request"] = {k: v for k, v in request.items() if k != "materials"}
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
                sources, checks = stored_rows(run_id, result,
                                              keep_material_text=_keeps_text(snapshot))
                if sources:
                    session.execute(insert(SourceRow), sources)
                if checks:
                    session.execute(insert(CheckRow), checks)
            self._flush_events(session, run_id)

    def _flush_events(self, session: Session, run_id: str) -> None:
        with self._lock:
            events = self._pending.pop(run_id, [])
        if events:
            # the run's row lock orders this after any append_events to the same run
            self._write_events(session, run_id, events)

    def delete(self, ref: str, access: Access = EVERYTHING) -> str:
        """Delete a run ``access`` may see with its sources, checks and events; returns
        its full id. Follow-ups of it stay, no longer linked to it."""
        with self._writing() as session:
            run_id = self._resolve(session, ref, access)
            session.execute(delete(Run).where(Run.id == run_id))
        with self._lock:
            self._pending.pop(run_id, None)
            self._held.discard(run_id)
        return run_id

    # ------------------------------------------------------------------ reading

    def visible(self, ref: str, access: Access = EVERYTHING) -> str:
        """The full id of the run ``ref`` names if ``access`` may see it, else an
        :class:`UnknownRunError` (the same whether it is another user's or absent)."""
        with self._reading() as session:
            return self._resolve(session, ref, access)

    def get(self, ref: str, access: Access = EVERYTHING) -> StoredRun:
        """The run ``ref`` names (an id or a unique prefix of a run ``access`` may see),
        re-assembled.

        A row that cannot be read back - values a newer deepcite wrote, or a column
        damaged by something else (invalid JSON, a timestamp that is not one) - is one
        :class:`StoreError` naming the run and what to do, never a traceback: the rows
        are decoded as they load, so the loading is guarded as well as the assembling.
        """
        with self._reading() as session:
            run_id = self._resolve(session, ref, access)
        self.settle_dead_holders(run_id)
        with self._reading() as session:
            try:
                run = session.get_one(Run, run_id)
                sources = list(session.scalars(
                    select(SourceRow).where(SourceRow.run_id == run_id)
                    .order_by(SourceRow.number)))
                checks = list(session.scalars(
                    select(CheckRow).where(CheckRow.run_id == run_id)
                    .order_by(CheckRow.position)))
                events = list(session.scalars(
                    select(EventRow).where(EventRow.run_id == run_id)
                    .order_by(EventRow.seq)))
                return StoredRun(
                    id=run.id, created_at=run.created_at, finished_at=run.finished_at,
                    status=cast(RunStatus, run.status), mode=cast(ReportMode, run.mode),
                    parent_id=run.parent_id, settings=run.settings,
                    result=assemble(run, sources, checks), events=events_of(events),
                    request=run.request)
            except ValidationError as error:
                problem = error.errors()[0]
                where = ".".join(str(part) for part in problem["loc"])
                raise UnreadableRunError(f"Run {run_id[:8]} cannot be read by this deepcite "
                                 f"({where}: {problem['msg']}); upgrade deepcite, or "
                                 f"`deepcite rm {run_id[:8]}`") from None
            except json.JSONDecodeError:
                raise UnreadableRunError(f"Run {run_id[:8]} is damaged in the history (a stored "
                                 "column is not valid JSON); `deepcite rm "
                                 f"{run_id[:8]}` removes it") from None
            except (ValueError, TypeError, KeyError, AttributeError) as error:
                detail = error_line(error)
                raise UnreadableRunError(f"Run {run_id[:8]} is damaged in the history "
                                 f"({detail[:120]}); `deepcite rm {run_id[:8]}` "
                                 "removes it") from None

    def thread_ids(self, ref: str, access: Access = EVERYTHING, *,
                   limit: int = 100) -> builtins.list[str]:
        """The ids of the thread ``ref`` (an id or prefix of a run ``access`` may see)
        belongs to: its root first, then every follow-up of the root, of those
        follow-ups and so on, oldest first - at most ``limit`` runs.

        The root is the furthest parent ``access`` may see (a deleted parent, or one
        another user owns, ends the climb); only follow-ups ``access`` may see are
        listed. An :class:`UnknownRunError` when ``ref`` names no run it may see.
        """
        with self._reading() as session:
            root = self._resolve(session, ref, access)
            climbed = {root}
            while len(climbed) < limit:
                parent = session.scalar(select(Run.parent_id).where(Run.id == root))
                if parent is None or parent in climbed or session.scalar(
                        select(Run.id).where(Run.id == parent, access.runs())) is None:
                    break
                climbed.add(parent)
                root = parent
            found: dict[str, datetime] = {}
            frontier = [root]
            while frontier and len(found) + 1 < limit:
                rows = session.execute(
                    select(Run.id, Run.created_at)
                    .where(Run.parent_id.in_(frontier), access.runs(), Run.id != root))
                frontier = []
                for run_id, created_at in rows:
                    if run_id not in found:  # a cycle cannot list a run twice
                        found[run_id] = created_at
                        frontier.append(run_id)
        later = sorted(found, key=lambda run_id: (_naive(found[run_id]), run_id))
        return [root, *later][:limit]

    def list(self, *, search: str | None = None, limit: int | None = None,
             offset: int = 0, status: str | None = None, mode: str | None = None,
             collection: str | None = None, origin: str | None = None,
             access: Access = EVERYTHING) -> builtins.list[RunSummary]:
        """Runs newest first; ``search`` keeps those whose question, title or body holds
        it (case-insensitive); ``limit`` keeps the first so many after skipping
        ``offset``.

        ``status`` and ``mode`` are filtered in SQL. ``collection`` (one of the
        collections in the run's settings snapshot, else its request) and ``origin``
        (the request's ``origin``; ``python`` when absent) live in JSON columns whose
        query syntax differs between SQLite and PostgreSQL, so they are filtered here
        in Python, and ``offset``/``limit`` then apply to what is kept. Only the runs
        ``access`` may see are listed (in SQL, on the indexed ``owner_id``); each names
        its owner.
        """
        sources = (select(func.count(SourceRow.id)).where(SourceRow.run_id == Run.id)
                   .correlate(Run).scalar_subquery())
        query = (select(Run.id, Run.created_at, Run.question, Run.mode, Run.status,
                        sources, Run.parent_id, Run.strategy, Run.title, Run.finished_at,
                        Run.request, Run.settings, UserRow.name)
                 .outerjoin(UserRow, UserRow.id == Run.owner_id)
                 .where(access.runs())
                 .order_by(Run.created_at.desc(), Run.id.desc()))
        if search and search.strip():
            pattern = _LIKE_SPECIAL.sub(r"\\\1", search.strip().casefold())
            query = query.where(Run.search_text.like(f"%{pattern}%", escape="\\"))
        if status:
            query = query.where(Run.status == status)
        if mode:
            query = query.where(Run.mode == mode)
        in_python = bool(collection or origin)
        if not in_python:
            if offset > 0:
                query = query.offset(offset)
            if limit is not None:
                query = query.limit(max(limit, 0))
        self.settle_dead_holders()  # no run of a killed process listed as running
        # A damaged row (a value decoding refuses, or one no run can have) is left out
        # and logged, so one bad run never hides the whole history; `show` names it.
        with self._reading() as session:
            try:
                rows = list(session.execute(query).all())
            except (ValueError, TypeError):  # decoding failed: read the rows one by one
                rows = []
                for run_id in session.scalars(query.with_only_columns(Run.id)):
                    try:
                        rows.append(session.execute(query.where(Run.id == run_id)).one())
                    except (ValueError, TypeError) as error:
                        logger.warning("run %s is damaged in the history and left out of "
                                       "the listing (%s); `deepcite rm %s` removes it",
                                       run_id[:8], type(error).__name__, run_id[:8])
        summaries = []
        for row in rows:
            request = row[10] if isinstance(row[10], dict) else {}
            run_origin = request.get("origin")
            run_origin = run_origin if isinstance(run_origin, str) else "python"
            if origin and run_origin != origin:
                continue
            searched = _run_collections(row[11], request)
            if collection and collection not in searched:
                continue
            try:
                summaries.append(RunSummary(
                    id=row[0], created_at=row[1], question=row[2], mode=row[3],
                    status=row[4], sources=row[5], parent_id=row[6], strategy=row[7],
                    title=row[8], finished_at=row[9], origin=run_origin,
                    collections=searched, owner=row[12]))
            except ValidationError:
                logger.warning("run %s has values this deepcite cannot read and is left "
                               "out of the listing; `deepcite show %s` says why",
                               str(row[0])[:8], str(row[0])[:8])
        if in_python:
            end = None if limit is None else max(offset, 0) + max(limit, 0)
            summaries = summaries[max(offset, 0):end]
        return summaries


def _naive(moment: datetime) -> datetime:
    """``moment`` without its zone (rows written before times carried one are naive),
    so that old and new rows sort together."""
    return moment.replace(tzinfo=None)


def _keeps_text(snapshot: Any) -> bool:
    """``store.keep_material_text`` of the settings a run was begun with (the run's
    own, so a worker ending it keeps what its asker chose); absent: the default."""
    section = snapshot.get("store") if isinstance(snapshot, dict) else None
    value = section.get("keep_material_text") if isinstance(section, dict) else None
    return value if isinstance(value, bool) else True


def _run_collections(snapshot: Any, request: dict[str, Any]) -> builtins.list[str]:
    """The collections a run searched: its settings snapshot's, else its request's."""
    names = snapshot_collections(snapshot) or request.get("collections") or ()
    return [name for name in names if isinstance(name, str)]
