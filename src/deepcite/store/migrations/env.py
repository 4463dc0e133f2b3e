"""Alembic's entry point for the history store's migrations.

deepcite runs it through :func:`deepcite.store.migrate.upgrade`, which passes an open
connection in ``config.attributes["connection"]`` inside the transaction it holds. For
developers running Alembic's command line, ``-x url=...`` names the database instead.
Alembic's logging set-up from an ini file is deliberately absent: deepcite's front ends
own logging.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from deepcite.store.engine import create_store_engine
from deepcite.store.models import Base

config = context.config
target_metadata = Base.metadata


def _migrate(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite alters tables by copying them; autogenerate should write it that way.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run() -> None:
    """Migrate the passed connection, or the database named by ``-x url=...``."""
    connection = config.attributes.get("connection")
    if isinstance(connection, Connection):
        _migrate(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        raise SystemExit("name the database: alembic -x url=sqlite:///history.db ...")
    engine = create_store_engine(url)
    with engine.connect() as connection:
        _migrate(connection)
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; pass -x url=...")
run()
