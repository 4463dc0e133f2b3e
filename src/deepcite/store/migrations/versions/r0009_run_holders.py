"""Who holds an in-process run: host, pid and process start time.

``runs.holder_host``, ``holder_pid`` and ``holder_started`` name the process that began
an in-process run (see :mod:`deepcite.store.holder`), so a reader on the same host can
tell at once that a run whose process was killed will never end, instead of waiting
for its heartbeat to go stale. Older runs have none and keep the heartbeat rule.

Revision ID: 0009
Revises: 0008
Create Date: 2027-03-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the three nullable columns."""
    op.add_column("runs", sa.Column("holder_host", sa.String(200), nullable=True))
    op.add_column("runs", sa.Column("holder_pid", sa.Integer(), nullable=True))
    op.add_column("runs", sa.Column("holder_started", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    """Drop them (not a batch, a table copy: on SQLite that would cascade-delete every
    source)."""
    for column in ("holder_started", "holder_pid", "holder_host"):
        op.drop_column("runs", column)
