"""Bringing a history database to the schema this deepcite version expects.

The Alembic revisions in ``migrations/versions`` are run programmatically every time a
store is opened (no ``alembic.ini``, no separate command for users to forget): a new
database is created, an older one upgraded in place, one that is current is left
alone. The upgrade is one transaction holding the database's write lock (``BEGIN
IMMEDIATE`` on SQLite, an advisory lock on PostgreSQL), so two processes opening an old
store at once do not both try to upgrade it, and a failed upgrade changes nothing.

A new revision is written by hand: copy the newest file in ``migrations/versions``,
set ``revision`` and ``down_revision``, keep the models in step, and add a test that
upgrades a database holding data from the revision before.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, exc, inspect, text

from deepcite.errors import StoreError
from deepcite.store.engine import WRITE, location, store_error

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
HEAD = "head"
HEAD_REVISION = "0010"
"""The newest revision in ``migrations/versions`` (a test keeps the two in step): a
database already there is opened without loading Alembic or taking the write lock."""
_PG_LOCK_KEY = 0x6465_6570_6369_7465 & 0x7FFF_FFFF_FFFF_FFFF
"""Advisory lock id of the upgrade on PostgreSQL ("deepcite" in ASCII)."""


def upgrade(engine: Engine, revision: str = HEAD) -> None:
    """Migrate the database of ``engine`` to ``revision`` (default: the newest).

    Raises :class:`StoreError` when the database cannot be reached, is not a database,
    or was written by a newer deepcite whose revisions this one does not know.
    """
    try:
        if revision == HEAD and _at_head(engine):
            return
    except exc.SQLAlchemyError as error:
        raise store_error(error, engine.url) from None
    from alembic import command  # imported here: only an upgrade needs Alembic
    from alembic.util.exc import CommandError

    config = _config()
    try:
        with engine.connect() as connection:
            connection.execution_options(**WRITE)
            with connection.begin():
                _lock(connection)
                config.attributes["connection"] = connection
                command.upgrade(config, revision)
    except CommandError as error:
        raise StoreError(f"The history {location(engine.url)} was written by a newer "
                         f"deepcite ({error}); upgrade deepcite, or set store.url to "
                         "another database") from None
    except exc.SQLAlchemyError as error:
        raise store_error(error, engine.url) from None


def _at_head(engine: Engine) -> bool:
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return False
        found = connection.execute(text("SELECT version_num FROM alembic_version")).all()
        return [row[0] for row in found] == [HEAD_REVISION]


def current_revision(connection: Connection) -> str | None:
    """The revision the database is at (``None``: no deepcite schema yet)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def _config() -> Config:
    from alembic.config import Config

    config = Config()
    # Config values are interpolated by configparser, where "%" is special.
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    return config


def _lock(connection: Connection) -> None:
    """Serialise upgrades on servers; SQLite's ``BEGIN IMMEDIATE`` already did."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})


def migrate(engine: Engine) -> tuple[str | None, str | None]:
    """Bring the database of ``engine`` to the newest revision, as :func:`upgrade`
    does; returns its revision before and after (``None``: no deepcite schema)."""
    before = database_revision(engine)
    upgrade(engine)
    return before, database_revision(engine)


def database_revision(engine: Engine) -> str | None:
    """The revision the database of ``engine`` is at (``None``: no deepcite schema),
    or a one-line :class:`StoreError` when it cannot be read."""
    try:
        with engine.connect() as connection:
            return current_revision(connection)
    except exc.SQLAlchemyError as error:
        raise store_error(error, engine.url) from None
