"""The history store: every ``deepcite ask`` and ``deepcite report`` run, kept.

Runs live in a SQL database - a SQLite file ``history.db`` in the data dir by default,
any SQLAlchemy URL (PostgreSQL) when ``store.url`` is set - whose schema Alembic keeps
current whenever a store is opened. What is kept: the question, the settings without
secrets, the answer body without a Sources block, the sources (with full text, so
citations can be checked again later), the citation checks and the run's events.

    with HistoryStore.open(settings) as store:
        run_id = store.begin(question, mode="quick", settings=settings)
        ...
        store.finish(run_id, result)
        again = store.get(run_id[:8]).result
"""

from deepcite.store.history import HistoryStore
from deepcite.store.read_models import (
    ACTIVE,
    ENDED,
    AuditEntry,
    ClaimedRun,
    CollectionEntry,
    CollectionSharing,
    RunStateInfo,
    RunStatus,
    RunSummary,
    StoredRun,
    TokenInfo,
    UserBelongings,
    UserInfo,
    UserRemoval,
)

__all__ = ["ACTIVE", "ENDED", "AuditEntry", "ClaimedRun", "CollectionEntry", "CollectionSharing",
           "HistoryStore",
           "RunStateInfo", "RunStatus", "RunSummary", "StoredRun", "TokenInfo", "UserBelongings",
           "UserInfo", "UserRemoval"]
