"""Ids that are never handed out twice: users, API tokens, the audit log, watch runs
and their deliveries.

SQLite gives an ``INTEGER PRIMARY KEY`` without ``AUTOINCREMENT`` the highest id in the
table plus one: after the newest user was removed, the next account got the same id -
and with it every row that still named that id (runs, watches, collections shared with
it). With ``AUTOINCREMENT`` SQLite keeps the highest id ever used in
``sqlite_sequence`` and never goes below it. An existing table cannot be altered to get
it, so each is rebuilt (a copy with the same columns, constraints and indexes).
PostgreSQL's sequences never go back already; nothing is rebuilt there.

On both, each table's counter is then raised above every id still *named* anywhere,
not only above those in the table: a store that already lost a removed user's row but
kept rows naming their id (``runs.owner_id``, ``watches.owner_id``,
``collection_access.owner_id`` and ``shared_with``, the owner in a stored request) never
gives that id to a new account. Token ids named by the audit log (``token.use``) and
watch-run ids named by the outbox count the same way.

Rebuilding a table on SQLite drops it, and dropping a table deletes its rows first,
which would cascade to the rows referring to them (``api_tokens`` to ``users``,
``watch_deliveries`` to ``watch_runs``). Those children are set aside in a temporary
table and put back once their parent is rebuilt, all in the one transaction of the
upgrade.

Revision ID: 0008
Revises: 0007
Create Date: 2027-03-01
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None

#: The tables whose ids are never reused, parents before the children that refer to
#: them (a child is set aside while its parent is rebuilt).
TABLES = ("users", "api_tokens", "audit_log", "watch_runs", "watch_deliveries")
#: Children that cascade from a table in :data:`TABLES`, and the columns they keep.
_CHILDREN = {
    "api_tokens": ("id", "user_id", "name", "token_hash", "created_at", "last_used_at",
                   "revoked_at"),
    "watch_deliveries": ("id", "watch_run_id", "watch_id", "kind", "target", "notice",
                         "status", "attempts", "next_attempt_at", "last_error",
                         "created_at", "sent_at"),
}


def upgrade() -> None:
    """Give each table of :data:`TABLES` a counter that never goes back, above every id
    named anywhere."""
    connection = op.get_bind()
    floors = _floors(connection)
    if connection.dialect.name == "sqlite":
        _rebuild_sqlite(connection)
        for table, floor in floors.items():
            _raise_sqlite_sequence(connection, table, floor)
    elif connection.dialect.name == "postgresql":
        for table, floor in floors.items():
            _raise_pg_sequence(connection, table, floor)


def downgrade() -> None:
    """Nothing to undo: revision 0007's code works the same on the rebuilt tables."""


def _floors(connection: sa.Connection) -> dict[str, int]:
    """The highest id each table's counter must stay above."""

    def highest(sql: str) -> int:
        return int(connection.execute(sa.text(sql)).scalar() or 0)

    users = max([highest("SELECT max(id) FROM users"),
                 highest("SELECT max(user_id) FROM api_tokens"),
                 highest("SELECT max(owner_id) FROM runs"),
                 highest("SELECT max(owner_id) FROM watches"),
                 highest("SELECT max(owner_id) FROM collection_access"),
                 *_json_ids(connection, "SELECT shared_with FROM collection_access"),
                 *_owner_ids(connection, "SELECT request FROM watches"),
                 *_owner_ids(connection, "SELECT request FROM runs WHERE request IS NOT NULL")])
    tokens = max([highest("SELECT max(id) FROM api_tokens"),
                  *(int(target) for (target,) in connection.execute(sa.text(
                      "SELECT target FROM audit_log WHERE action = 'token.use'"))
                    if str(target or "").isdigit())])
    return {"users": users, "api_tokens": tokens,
            "audit_log": highest("SELECT max(id) FROM audit_log"),
            "watch_runs": max(highest("SELECT max(id) FROM watch_runs"),
                              highest("SELECT max(watch_run_id) FROM watch_deliveries")),
            "watch_deliveries": highest("SELECT max(id) FROM watch_deliveries")}


def _loaded(value: Any) -> Any:
    """A JSON column's value (SQLite hands back text, PostgreSQL the data)."""
    if isinstance(value, str | bytes):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _json_ids(connection: sa.Connection, sql: str) -> list[int]:
    """The integers of the JSON lists in the one column ``sql`` selects."""
    found: list[int] = []
    for (value,) in connection.execute(sa.text(sql)):
        data = _loaded(value)
        if isinstance(data, list):
            found.extend(item for item in data if isinstance(item, int))
    return found


def _owner_ids(connection: sa.Connection, sql: str) -> list[int]:
    """The owner ids of the stored run requests (``{"owner": {"id": ...}}``) ``sql``
    selects."""
    found: list[int] = []
    for (value,) in connection.execute(sa.text(sql)):
        data = _loaded(value)
        owner = data.get("owner") if isinstance(data, dict) else None
        if isinstance(owner, dict) and isinstance(owner.get("id"), int):
            found.append(owner["id"])
    return found


def _rebuild_sqlite(connection: sa.Connection) -> None:
    """Rebuild each table with ``AUTOINCREMENT``, the cascading children set aside."""
    for child in _CHILDREN:
        connection.execute(sa.text(f"DROP TABLE IF EXISTS temp._keep_{child}"))
        connection.execute(sa.text(
            f"CREATE TEMP TABLE _keep_{child} AS SELECT * FROM {child}"))
        connection.execute(sa.text(f"DELETE FROM {child}"))
    for table in TABLES:
        with op.batch_alter_table(table, recreate="always",
                                  table_kwargs={"sqlite_autoincrement": True}):
            pass
    for child, columns in _CHILDREN.items():
        names = ", ".join(columns)
        connection.execute(sa.text(
            f"INSERT INTO {child} ({names}) SELECT {names} FROM temp._keep_{child}"))
        connection.execute(sa.text(f"DROP TABLE temp._keep_{child}"))


def _raise_sqlite_sequence(connection: sa.Connection, table: str, floor: int) -> None:
    """Make ``sqlite_sequence`` hold at least ``floor`` for ``table`` (the next id is
    above it)."""
    if floor <= 0:
        return
    updated = connection.execute(sa.text(
        "UPDATE sqlite_sequence SET seq = max(seq, :floor) WHERE name = :table"),
        {"floor": floor, "table": table})
    if not updated.rowcount:
        connection.execute(sa.text("INSERT INTO sqlite_sequence (name, seq) "
                                   "VALUES (:table, :floor)"),
                           {"floor": floor, "table": table})


def _raise_pg_sequence(connection: sa.Connection, table: str, floor: int) -> None:
    """Move the sequence of ``table.id`` past ``floor`` if it is not already."""
    sequence = connection.execute(sa.text("SELECT pg_get_serial_sequence(:table, 'id')"),
                                  {"table": table}).scalar()
    if sequence is None or floor <= 0:
        return
    last, called = connection.execute(sa.text(
        f"SELECT last_value, is_called FROM {sequence}")).one()
    if (last if called else last - 1) < floor:
        connection.execute(sa.text("SELECT setval(:sequence, :floor, true)"),
                           {"sequence": sequence, "floor": floor})
