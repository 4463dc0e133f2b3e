"""Alembic revisions of the history store (a package, so installs ship the files)."""
