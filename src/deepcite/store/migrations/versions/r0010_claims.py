"""A document check's claims.

``runs.claims`` holds a document check's verdicts (``ResearchResult.claims``: one
``ClaimVerdict`` each, as JSON, in document order) so a check read back from the
history shows, exports and compares its claims as it did when it ended. The checked
document itself is kept in the run's stored ``request`` (its ``document`` field), from
which ``deepcite rerun`` checks it again. One JSON column, like ``outline``: claims are
read and written with their run, never queried one by one. Nullable, so adding it
rebuilds nothing; runs from before it (and every run that is not a check) read as
having no claims.

Revision ID: 0010
Revises: 0009
Create Date: 2027-03-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the nullable JSON column."""
    op.add_column("runs", sa.Column("claims", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Drop it (not a batch, a table copy: on SQLite that would cascade-delete every
    source)."""
    op.drop_column("runs", "claims")
