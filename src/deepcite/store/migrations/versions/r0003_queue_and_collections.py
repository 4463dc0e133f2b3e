"""Queued runs, worker heartbeats, and a registry of collections.

Research can now run on worker processes, with the store as the one place they agree
on. ``runs`` gains what a queue needs: ``request`` (the run request of a queued run,
as JSON), ``attempts`` (how many times a worker claimed it), ``heartbeat_at`` and
``worker`` (who holds it and when it last said so), ``cancel_requested`` (a cancel
asked of that worker), and an index on ``status`` for the queue's and the reaper's
``WHERE status = ...``. A new table ``collections`` lists the document collections
every process may search.

The columns are added with plain ``ADD COLUMN`` on every backend, not a batch (table
copy): on SQLite a copy drops ``runs``, which with foreign keys on would
cascade-delete every source, check and event. Each new NOT NULL column has a server
default, so rows already there are valid at once (no attempts, no cancel asked).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-14
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the queue columns and index to ``runs``, and the ``collections`` table."""
    op.add_column("runs", sa.Column("request", sa.JSON(), nullable=True))
    op.add_column("runs", sa.Column("attempts", sa.Integer(), nullable=False,
                                    server_default="0"))
    op.add_column("runs", sa.Column("heartbeat_at", sa.DateTime(timezone=True),
                                    nullable=True))
    op.add_column("runs", sa.Column("worker", sa.String(200), nullable=True))
    op.add_column("runs", sa.Column("cancel_requested", sa.Boolean(), nullable=False,
                                    server_default=sa.false()))
    op.create_index("ix_runs_status", "runs", ["status"])
    op.create_table(
        "collections",
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("backend", sa.String(32), nullable=False),
        sa.Column("location", sa.Text(), nullable=False),
        sa.Column("documents", sa.Integer(), nullable=False),
        sa.Column("chunks", sa.Integer(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_collections"),
    )


def downgrade() -> None:
    """Remove what :func:`upgrade` added (queued runs keep their rows, as ``queued``)."""
    op.drop_table("collections")
    op.drop_index("ix_runs_status", table_name="runs")
    # not a batch (table copy): on SQLite that would cascade-delete every source
    for column in ("cancel_requested", "worker", "heartbeat_at", "attempts", "request"):
        op.drop_column("runs", column)
