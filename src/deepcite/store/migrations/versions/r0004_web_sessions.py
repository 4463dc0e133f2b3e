"""Server-side records of logged-in web sessions.

Until now a page session was only an HMAC-signed cookie, so logging out could not end
the copies of it (a stolen cookie opened the pages for a week). A new table
``web_sessions`` holds one row per logged-in session - keyed by the SHA-256 of its id,
never the id - with when it was opened, when it expires and when it was revoked, so
every web process sharing the store refuses a session logged out in any of them.
``token_tag`` binds a session to the access token it was opened under;
``user_name`` is left for a later accounts feature (``NULL`` until then). Anonymous
visitors (loopback, or not logged in yet) get no row.

Revision ID: 0004
Revises: 0003
Create Date: 2027-01-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create ``web_sessions`` and its indexes (expiry for the clean-up, user name)."""
    op.create_table(
        "web_sessions",
        sa.Column("id_hash", sa.String(64), nullable=False),
        sa.Column("token_tag", sa.String(64), nullable=False),
        sa.Column("user_name", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id_hash", name="pk_web_sessions"),
    )
    op.create_index("ix_web_sessions_expires_at", "web_sessions", ["expires_at"])
    op.create_index("ix_web_sessions_user_name", "web_sessions", ["user_name"])


def downgrade() -> None:
    """Drop ``web_sessions``: every logged-in session ends (users log in again)."""
    op.drop_index("ix_web_sessions_user_name", table_name="web_sessions")
    op.drop_index("ix_web_sessions_expires_at", table_name="web_sessions")
    op.drop_table("web_sessions")
