"""User accounts: users, their API tokens, an audit log, and an owner for each run.

``users`` holds one row per person: ``name`` as it was typed, ``name_key`` its
case-folded form (unique, so ``Bob`` and ``bob`` are one user on every backend without
a functional index), the Argon2id ``password_hash``, ``is_admin`` and ``disabled``.
``api_tokens`` keeps only the SHA-256 (hex) of each token, never the token, with when
it was made, last used and revoked. ``audit_log`` records who changed what (``actor``
is a user name, ``cli`` for the command line, or ``NULL``), with a JSON ``detail`` and
the client ``address`` where there is one.

``runs.owner_id`` (the ``users.id`` of the run's owner, no foreign key: removing a user
may keep their runs) is added nullable and left ``NULL`` for every existing run: giving
them to the first admin, and enforcing ownership in the web app, API and MCP, come in
a later step.

Revision ID: 0005
Revises: 0004
Create Date: 2027-02-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create ``users``, ``api_tokens`` and ``audit_log``; add ``runs.owner_id``."""
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("name_key", sa.String(200), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("is_admin", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name_key", name="uq_users_name_key"),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE",
                                name="fk_api_tokens_user_id_users"),
        sa.PrimaryKeyConstraint("id", name="pk_api_tokens"),
        sa.UniqueConstraint("token_hash", name="uq_api_tokens_token_hash"),
    )
    op.create_index("ix_api_tokens_user_id", "api_tokens", ["user_id"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(200), nullable=True),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("target", sa.Text(), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=True),
        sa.Column("address", sa.String(100), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_audit_log"),
    )
    op.create_index("ix_audit_log_at", "audit_log", ["at"])
    op.create_index("ix_audit_log_actor", "audit_log", ["actor"])
    op.create_index("ix_audit_log_action", "audit_log", ["action"])
    # plain ADD COLUMN, not a batch (a table copy cascade-deletes on SQLite)
    op.add_column("runs", sa.Column("owner_id", sa.Integer(), nullable=True))
    op.create_index("ix_runs_owner_id", "runs", ["owner_id"])


def downgrade() -> None:
    """Drop the accounts tables and ``runs.owner_id`` (every run becomes unowned)."""
    op.drop_index("ix_runs_owner_id", table_name="runs")
    op.drop_column("runs", "owner_id")
    for index in ("ix_audit_log_action", "ix_audit_log_actor", "ix_audit_log_at"):
        op.drop_index(index, table_name="audit_log")
    op.drop_table("audit_log")
    op.drop_index("ix_api_tokens_user_id", table_name="api_tokens")
    op.drop_table("api_tokens")
    op.drop_table("users")
