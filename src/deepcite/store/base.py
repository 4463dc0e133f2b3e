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
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import CursorResult, Engine, Executable, exc, func, insert, select
from sqlalchemy.orm import Session

from deepcite.errors import StoreError, UnknownRunError
from deepcite.store.convert import event_rows
from deepcite.store.engine import WRITE, operation_error
from deepcite.store.models import EventRow, Run
from deepcite.store.user_rights import EVERYTHING, Access
from deepcite.types import Event

MIN_PREFIX = 4
"""The shortest id prefix accepted: shorter ones match too many runs to be safe."""
_HEX = re.compile(r"[0-9a-f]{1,32}")


@dataclass(frozen=True)
class IdKind:
    """What :func:`resolve_prefix` says of the ids it resolves: ``noun`` ("run"),
    ``plural``, ``where`` they live (" in the history", or ""), the command that
    ``lists`` them, what that command lists (``listed``: "the runs", "them"), and the
    error for an id that names none."""

    noun: str
    plural: str
    where: str
    lists: str
    listed: str
    unknown: type[StoreError]


def resolve_prefix(session: Session, ref: str, column: Any, visible: Any, kind: IdKind
                   ) -> str:
    """The full id in ``column`` that ``ref`` (a full id or a unique prefix of at least
    :data:`MIN_PREFIX` hex characters) names among the rows ``visible`` selects, or a
    one-line ``kind.unknown`` error saying why it names none: too short, not hexadecimal,
    matching no row, or matching several. Runs and watches are named the same way.

    Every way of not naming exactly one row is the same error class on purpose: a front
    end answers a malformed id as an unknown one (the web's 404), never as the store
    being in trouble (a bare :class:`StoreError` is a 503); only the words differ."""
    wanted = ref.strip().lower()
    label = kind.noun.capitalize()
    if len(wanted) < MIN_PREFIX:
        raise kind.unknown(f"{label} id {ref!r} is too short - give at least {MIN_PREFIX} "
                           f"characters of an id from {kind.lists}")
    if not _HEX.fullmatch(wanted):
        raise kind.unknown(f"No {kind.noun} {ref!r}{kind.where} - ids are hexadecimal; "
                           f"{kind.lists} lists them")
    found = list(session.scalars(select(column).where(column.startswith(wanted), visible)
                                 .order_by(column).limit(4)))
    if not found:
        raise kind.unknown(f"No {kind.noun} {ref!r}{kind.where} - {kind.lists} lists "
                           f"{kind.listed}")
    if len(found) > 1:
        some = ", ".join(found_id[:12] for found_id in found[:3])
        raise kind.unknown(f"{label} id {ref!r} matches several {kind.plural} ({some}"
                           f"{', ...' if len(found) > 3 else ''}) - type more of the id")
    return str(found[0])


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

    def settle_dead_holders(self, run_id: str | None = None) -> list[str]:
        """Mark the runs of this host's stopped processes ``interrupted`` (all, or
        ``run_id`` alone); their ids. What every read of a run's state calls first -
        see :meth:`deepcite.store.held.HeldRuns.settle_dead_holders`, which does it."""
        return []

    @staticmethod
    def _resolve(session: Session, ref: str, access: Access = EVERYTHING) -> str:
        """The full id of the one run ``ref`` names among those ``access`` may see, or a
        one-line :class:`UnknownRunError` when it names none of
        them: another user's run is not there, and never makes a prefix ambiguous)."""
        return resolve_prefix(session, ref, Run.id, access.runs(), IdKind(
            "run", "runs", " in the history", "`deepcite history`", "the runs",
            UnknownRunError))

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
