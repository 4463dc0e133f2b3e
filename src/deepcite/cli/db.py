"""``deepcite db upgrade`` and ``deepcite db current``: the history database's schema.

Every deepcite brings the store it opens up to date on its own; these commands are for
operators who migrate a shared database (PostgreSQL) once, before starting new servers
and workers, and for checking where a database stands. The database is ``--url``, else
``store.url``, else ``history.db`` in the data dir. Passwords are never printed.

The store (SQLAlchemy, Alembic) is imported when one of these commands runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from deepcite.cli.common import out, settings_from, user_errors

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

db_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None)

UrlOption = Annotated[str | None, typer.Option(
    "--url", help="SQLAlchemy URL of the database; default: store.url, else history.db "
                  "in the data dir.")]


def _url(url: str | None) -> str | URL:
    if url:
        return url
    settings = settings_from({})
    if settings.store.url:
        return settings.store.url
    from deepcite.store.engine import sqlite_url
    from deepcite.store.history import FILE_NAME

    return sqlite_url(settings.data_dir / FILE_NAME)


@db_app.command("upgrade", help="Bring the history database to this deepcite's schema.")
def upgrade_command(url: UrlOption = None) -> None:
    """Run the schema migrations on the history database."""
    from deepcite.store.engine import create_store_engine, location
    from deepcite.store.migrate import migrate

    with user_errors():
        where = _url(url)
        engine = create_store_engine(where)
        try:
            before, after = migrate(engine)
        finally:
            engine.dispose()
    head = f"history store at {location(where)}"
    if before == after:
        out.print(Text(f"{head}: already at {after}"))
    elif before is None:
        out.print(Text(f"{head}: at revision {after} (created)"))
    else:
        out.print(Text(f"{head}: at revision {after} (upgraded from {before})"))


@db_app.command("current", help="Print the history database's schema revision.")
def current_command(url: UrlOption = None) -> None:
    """Print the revision the history database is at."""
    from sqlalchemy import make_url

    from deepcite.store.engine import create_store_engine, location
    from deepcite.store.migrate import HEAD_REVISION, database_revision

    with user_errors():
        where = _url(url)
        parsed = make_url(where) if _is_url(where) else None
        revision = None
        if not (parsed is not None and parsed.get_backend_name() == "sqlite"
                and parsed.database and not Path(parsed.database).expanduser().exists()):
            engine = create_store_engine(where)  # never creates a SQLite file that is not there
            try:
                revision = database_revision(engine)
            finally:
                engine.dispose()
    head = f"history store at {location(where)}"
    if revision is None:
        out.print(Text(f"{head}: no deepcite schema yet - `deepcite db upgrade` creates it"))
    elif revision == HEAD_REVISION:
        out.print(Text(f"{head}: at revision {revision} (current)"))
    else:
        note = ("`deepcite db upgrade` brings it to " + HEAD_REVISION
                if revision < HEAD_REVISION else "written by a newer deepcite")
        out.print(Text(f"{head}: at revision {revision} ({note})"))


def _is_url(value: str | URL) -> bool:
    from sqlalchemy import exc, make_url

    try:
        make_url(value)
    except exc.ArgumentError:
        return False
    return True
