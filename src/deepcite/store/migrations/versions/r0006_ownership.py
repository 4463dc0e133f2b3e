"""Ownership: session activity, shared collections, a server key, runs of the first admin.

``web_sessions.last_seen_at`` is when a logged-in session was last used, so a session
idle longer than ``web.session_idle_minutes`` ends even before its absolute expiry.
``collection_access`` says who may search a collection: its ``owner_id`` (a user id,
``NULL``: no owner, admins only), ``shared_all`` (everyone) and ``shared_with`` (a JSON
list of user ids). ``server_secrets`` holds random keys every web process sharing the
store must agree on (the accounts mode's cookie-signing key), created on first use.

Runs recorded before accounts existed have no owner: they go to the first admin (the
admin with the lowest id) if one exists now; otherwise creating the first admin gives
them to that admin (:meth:`~deepcite.store.users_ops.UserOps.add_user`).

Revision ID: 0006
Revises: 0005
Create Date: 2027-02-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the tables and column; give unowned runs to the first admin."""
    op.add_column("web_sessions",
                  sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "collection_access",
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=True),
        sa.Column("shared_all", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("shared_with", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_collection_access"),
    )
    op.create_index("ix_collection_access_owner_id", "collection_access", ["owner_id"])
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("value", sa.String(200), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_server_secrets"),
    )
    admin = op.get_bind().execute(sa.text(
        "SELECT id FROM users WHERE is_admin = :yes ORDER BY id LIMIT 1"),
        {"yes": True}).scalar()
    if admin is not None:
        op.execute(sa.text("UPDATE runs SET owner_id = :admin WHERE owner_id IS NULL")
                   .bindparams(admin=admin))


def downgrade() -> None:
    """Drop what :func:`upgrade` added (runs keep their owners)."""
    op.drop_table("server_secrets")
    op.drop_index("ix_collection_access_owner_id", table_name="collection_access")
    op.drop_table("collection_access")
    op.drop_column("web_sessions", "last_seen_at")
