"""Watches: stored requests researched again on a schedule, their runs, and an outbox.

``watches`` holds one row per watch: the run request (JSON, no materials), the schedule
as text, the delivery targets (JSON), ``status`` (``active``/``paused``), ``next_run_at``
(the next due slot; claimed by a compare-and-set, so one process runs each due watch),
a per-watch daily run limit and the SHA-256 of its feed token. ``watch_runs`` holds each
run of a watch with the change since the previous one (JSON), its one-line summary and
Markdown; ``watch_deliveries`` is the outbox: one notice per target, ``pending`` /
``sent`` / ``failed``, with its attempts, next attempt and last error.

Revision ID: 0007
Revises: 0006
Create Date: 2027-02-20
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create ``watches``, ``watch_runs`` and ``watch_deliveries``."""
    op.create_table(
        "watches",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=True),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("schedule", sa.String(200), nullable=False),
        sa.Column("targets", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("next_run_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_run_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("max_runs_per_day", sa.Integer(), nullable=True),
        sa.Column("feed_token_hash", sa.String(64), nullable=True),
        sa.Column("webhook_secret", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_watches"),
        sa.UniqueConstraint("feed_token_hash", name="uq_watches_feed_token_hash"),
    )
    op.create_index("ix_watches_owner_id", "watches", ["owner_id"])
    op.create_index("ix_watches_status", "watches", ["status"])
    op.create_index("ix_watches_next_run_at", "watches", ["next_run_at"])
    op.create_table(
        "watch_runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("watch_id", sa.String(32), nullable=False),
        sa.Column("run_id", sa.String(32), nullable=True),
        sa.Column("previous_run_id", sa.String(32), nullable=True),
        sa.Column("trigger", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("nothing_new", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("change", sa.JSON(), nullable=True),
        sa.Column("changes_markdown", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["watch_id"], ["watches.id"], ondelete="CASCADE",
                                name="fk_watch_runs_watch_id_watches"),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], ondelete="SET NULL",
                                name="fk_watch_runs_run_id_runs"),
        sa.PrimaryKeyConstraint("id", name="pk_watch_runs"),
    )
    op.create_index("ix_watch_runs_watch_id", "watch_runs", ["watch_id"])
    op.create_index("ix_watch_runs_run_id", "watch_runs", ["run_id"])
    op.create_index("ix_watch_runs_status", "watch_runs", ["status"])
    op.create_index("ix_watch_runs_created_at", "watch_runs", ["created_at"])
    op.create_table(
        "watch_deliveries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("watch_run_id", sa.Integer(), nullable=False),
        sa.Column("watch_id", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("target", sa.JSON(), nullable=False),
        sa.Column("notice", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["watch_run_id"], ["watch_runs.id"], ondelete="CASCADE",
                                name="fk_watch_deliveries_watch_run_id_watch_runs"),
        sa.ForeignKeyConstraint(["watch_id"], ["watches.id"], ondelete="CASCADE",
                                name="fk_watch_deliveries_watch_id_watches"),
        sa.PrimaryKeyConstraint("id", name="pk_watch_deliveries"),
    )
    op.create_index("ix_watch_deliveries_watch_run_id", "watch_deliveries",
                    ["watch_run_id"])
    op.create_index("ix_watch_deliveries_watch_id", "watch_deliveries", ["watch_id"])
    op.create_index("ix_watch_deliveries_status", "watch_deliveries", ["status"])
    op.create_index("ix_watch_deliveries_next_attempt_at", "watch_deliveries",
                    ["next_attempt_at"])


def downgrade() -> None:
    """Drop the three tables (every watch, its runs' changes and its outbox)."""
    for index in ("ix_watch_deliveries_next_attempt_at", "ix_watch_deliveries_status",
                  "ix_watch_deliveries_watch_id", "ix_watch_deliveries_watch_run_id"):
        op.drop_index(index, table_name="watch_deliveries")
    op.drop_table("watch_deliveries")
    for index in ("ix_watch_runs_created_at", "ix_watch_runs_status", "ix_watch_runs_run_id",
                  "ix_watch_runs_watch_id"):
        op.drop_index(index, table_name="watch_runs")
    op.drop_table("watch_runs")
    for index in ("ix_watches_next_run_at", "ix_watches_status", "ix_watches_owner_id"):
        op.drop_index(index, table_name="watches")
    op.drop_table("watches")
