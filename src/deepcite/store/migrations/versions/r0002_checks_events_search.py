"""Citation checks, events, and a search column.

Adds ``citation_checks`` (one row per ``CitationCheck``, in the result's order) and
``events`` (one row per run event, in arrival order, the event itself as JSON), both
deleted with their run.

``runs.search_text`` holds question, title and body case-folded by Python. Why a column
rather than ``lower(question) LIKE ...`` over three columns at query time: SQLite's
``lower()`` and ``LIKE`` fold ASCII only, and PostgreSQL's ``LIKE`` folds nothing while
``ILIKE`` folds by the database's locale; with the text folded once, on write, by
``str.casefold`` (and the query folded the same way), "STRASSE" finds "Straße" and
"É" finds "é" identically on every backend, with one plain ``LIKE``. No index is put on
it - a B-tree cannot serve ``LIKE '%word%'`` - but ``ix_runs_created_at`` is added for
what every listing does: newest first, often with a limit. The column is NOT NULL with
an empty default so it can be added without rebuilding ``runs`` (on SQLite a rebuild
drops the table, which with foreign keys on would cascade-delete every source). Rows
already there are filled with the same folding, frozen below as it was at this
revision rather than imported, so this migration never changes meaning later.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def _search_text(question: str, title: str | None, body: str | None) -> str:
    return "\n".join(part for part in (question, title, body) if part).casefold()


def upgrade() -> None:
    """Add the two tables, the search column (filled for existing runs) and the index."""
    op.create_table(
        "citation_checks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("sentence", sa.Text(), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("method", sa.String(16), nullable=False),
        sa.Column("source_number", sa.Integer(), nullable=True),
        sa.Column("span_start", sa.Integer(), nullable=True),
        sa.Column("span_end", sa.Integer(), nullable=True),
        sa.Column("quote", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_citation_checks"),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], ondelete="CASCADE",
                                name="fk_citation_checks_run_id_runs"),
        sa.UniqueConstraint("run_id", "position", name="uq_citation_checks_run_id"),
    )
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_events"),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], ondelete="CASCADE",
                                name="fk_events_run_id_runs"),
        sa.UniqueConstraint("run_id", "seq", name="uq_events_run_id"),
    )
    op.add_column("runs", sa.Column("search_text", sa.Text(), nullable=False,
                                    server_default=""))
    op.create_index("ix_runs_created_at", "runs", ["created_at"])
    runs = sa.table("runs", sa.column("id", sa.String), sa.column("question", sa.Text),
                    sa.column("title", sa.Text), sa.column("body", sa.Text),
                    sa.column("search_text", sa.Text))
    bind = op.get_bind()
    rows = bind.execute(sa.select(runs.c.id, runs.c.question, runs.c.title, runs.c.body))
    filled = [{"run": row.id, "text": _search_text(row.question, row.title, row.body)}
              for row in rows]
    if filled:
        bind.execute(runs.update().where(runs.c.id == sa.bindparam("run"))
                     .values(search_text=sa.bindparam("text")), filled)


def downgrade() -> None:
    """Remove what :func:`upgrade` added."""
    op.drop_index("ix_runs_created_at", table_name="runs")
    # not a batch (table copy): on SQLite that would cascade-delete every source
    op.drop_column("runs", "search_text")
    op.drop_table("events")
    op.drop_table("citation_checks")
