"""The plumbing every history store operation shares: transactions, errors, run ids.

Each operation takes its own connection and transaction, so one store object is safe
to share between threads, and several processes can use one database at once. Every
database failure leaves a public method as a one-line :class:`StoreError`; a server
that is down or restarting says so (:func:`~deepcite.store.engine.unreachable`), and
the pool's pre-ping makes the first call after it is back work again.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

from sqlalchemy import CursorResult, Engine, Executable, exc, func, insert, select
from sqlalchemy.orm import Session

from deepcite.errors import StoreError, UnknownRunError
from deepcite.store.access import EVERYTHING, Access
from deepcite.store.convert import event_rows
from deepcite.store.engine import WRITE, operation_error
from deepcite.store.models import EventRow, Run
from deepcite.types import Event

MIN_PREFIX = 4
"""The shortest id prefix accepted: shorter ones match too many runs to be safe."""
_HEX = re.compile(r"[0-9a-f]{1,32}")


class StoreBase:
    """Transactions and error handling of :class:`~deepcite.store.HistoryStore`."""

    def __init__(self, engine: Engine) -> None:
        """Use ``HistoryStore.open`` or ``from_url``, which also bring the schema up to date."""
        self._engine = engine
        self._lock = threading.Lock()
        self._pending: dict[str, list[Event]] = {}
        #: Runs this object began and has not ended (see :mod:`deepcite.store.held`).
        self._held: set[str] = set()
        #: Held while buffered events are taken and written, before any transaction
        #: opens, so two writers never store one run's events out of order.
        self._flush_lock = threading.RLock()
        self._keeper: threading.Thread | None = None
        self._stopping = threading.Event()

    @staticmethod
    def _resolve(session: Session, ref: str, access: Access = EVERYTHING) -> str:
        """The full id of the one run ``ref`` names among those ``access`` may see, or a
        one-line :class:`StoreError` (:class:`UnknownRunError` when it names none of
        them: another user's run is not there, and never makes a prefix ambiguous)."""
        wanted = ref.strip().lower()
        if len(wanted) < MIN_PREFIX:
            raise StoreError(f"Run id {ref!r} is too short - give at least {MIN_PREFIX} "
                             "characters of an id from `deepcite history`")
        if not _HEX.fullmatch(wanted):
            raise UnknownRunError(f"No run {ref!r} in the history - ids are hexadecimal; "
                             "`deepcite history` lists them")
        found = list(session.scalars(select(Run.id).where(Run.id.startswith(wanted),
                                                         access.runs())
                                     .order_by(Run.id).limit(4)))
        if not found:
            raise UnknownRunError(f"No run {ref!r} in the history - `deepcite history` lists "
                             "the runs")
        if len(found) > 1:
            some = ", ".join(run_id[:12] for run_id in found[:3])
            raise StoreError(f"Run id {ref!r} matches several runs ({some}"
                             f"{', ...' if len(found) > 3 else ''}) - type more of the id")
        return found[0]

    @staticmethod
    def _unknown(run_id: str) -> UnknownRunError:
        """The error for a full id that names no run."""
        return UnknownRunError(f"No run {run_id!r} in the history - `deepcite history` lists "
                          "the runs")

    @staticmethod
    def _insert_events(session: Session, run_id: str, events: Sequence[Event]) -> int:
        """Insert ``events`` after the run's highest ``seq`` in ``session`` (whose
        transaction holds the run's row); the new highest seq."""
        last = session.scalar(select(func.max(EventRow.seq))
                              .where(EventRow.run_id == run_id)) or 0
        if events:
            session.execute(insert(EventRow), event_rows(run_id, last + 1, list(events)))
        return last + len(events)

    @staticmethod
    def _changed(session: Session, statement: Executable) -> int:
        """Run an UPDATE/DELETE; how many rows it changed (the test of a compare-and-set)."""
        result = session.execute(statement, execution_options={"synchronize_session": False})
        return cast(CursorResult[Any], result).rowcount

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        with self._database_errors(), Session(self._engine) as session:
            yield session

    @contextmanager
    def _writing(self) -> Iterator[Session]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite), committed on success."""
        with self._database_errors(), self._transaction() as session:
            yield session

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        """:meth:`_writing` without turning database errors into :class:`StoreError`, for
        callers that retry on some (an ``IntegrityError`` of a lost race)."""
        with self._engine.connect() as connection:
            connection.execution_options(**WRITE)
            with Session(bind=connection) as session, session.begin():
                yield session

    @contextmanager
    def _database_errors(self) -> Iterator[None]:
        try:
            yield
        except exc.SQLAlchemyError as error:
            raise operation_error(error, self._engine.url) from None
