"""A real PostgreSQL server for the history store tests.

``DEEPCITE_TEST_POSTGRES_URL`` (a SQLAlchemy URL whose user may create databases) names
a server to use. Without it a throwaway cluster is made with ``initdb`` and ``pg_ctl``
in a temporary folder, listening on a unix socket only (the tests run with
``--disable-socket --allow-unix-socket``), and stopped at the end of the session.
PostgreSQL refuses to run as root, so as root the cluster runs as the ``postgres``
user (``runuser``, else ``su``). Each test gets a database of its own.

When no server can be had the tests are skipped with the reason - except when ``CI``
is set, where that is a failure: CI must never pass by silently skipping them.

The environment is read at import: the suite's autouse fixture removes every
``DEEPCITE_*`` variable before each test runs.
"""

from __future__ import annotations

import glob
import os
import pwd
import shlex
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from tests.servers import PATIENCE

ENV_URL = os.environ.get("DEEPCITE_TEST_POSTGRES_URL") or None
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
SERVER_USER = "postgres"
#: pg_ctl -w waits for the server to accept connections; this only guards a hang.
START_TIMEOUT_S = int(PATIENCE)


class Unavailable(Exception):
    """No PostgreSQL server can be started here; the message says why."""


def unavailable(reason: str) -> NoReturn:
    """Skip the test, or fail it in CI (see the module docstring)."""
    if IN_CI:
        pytest.fail(f"PostgreSQL tests cannot run in CI: {reason}", pytrace=False)
    pytest.skip(f"no PostgreSQL server: {reason}")


def _binaries() -> Path:
    """The folder of ``initdb`` and ``pg_ctl`` (Debian keeps them off the PATH)."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl", path=str(Path(found).resolve().parent)):
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if versions:
        return Path(versions[-1]).parent
    raise Unavailable("initdb/pg_ctl not found - install PostgreSQL (Debian: apt-get install "
                      "postgresql) or set DEEPCITE_TEST_POSTGRES_URL")


def _as_server_user(command: list[str]) -> list[str]:
    """``command`` run as a non-root user when we are root (postgres refuses root)."""
    if os.geteuid() != 0:
        return command
    if shutil.which("runuser"):
        return ["runuser", "-u", SERVER_USER, "--", *command]
    return ["su", SERVER_USER, "-s", "/bin/sh", "-c", shlex.join(command)]


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(_as_server_user(command), capture_output=True, text=True,
                              timeout=START_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise Unavailable(f"{what} failed: {error}") from None
    if done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).split())[-400:]
        raise Unavailable(f"{what} failed (exit {done.returncode}): {tail}")


class Cluster:
    """A throwaway cluster in a temporary folder; its socket is in the same folder."""

    def __init__(self) -> None:
        self.bin = _binaries()
        if os.geteuid() == 0:
            try:
                account = pwd.getpwnam(SERVER_USER)
            except KeyError:
                raise Unavailable(f"running as root and there is no {SERVER_USER!r} user to "
                                  "run the server as - create it or set "
                                  "DEEPCITE_TEST_POSTGRES_URL") from None
        # Short, under /tmp: a unix socket path may not exceed about 100 bytes.
        self.folder = Path(tempfile.mkdtemp(prefix="dcpg-", dir="/tmp"))
        if os.geteuid() == 0:
            os.chown(self.folder, account.pw_uid, account.pw_gid)
        self.data = self.folder / "data"
        self.started = False

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@/postgres?host={self.folder}"

    def start(self) -> None:
        _run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
              "-E", "UTF8", "--no-locale", "--no-sync"], "initdb")
        options = f"-k {self.folder} -c listen_addresses='' -F"
        _run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log"),
              "-w", "-t", str(START_TIMEOUT_S), "-o", options, "start"], "pg_ctl start")
        self.started = True

    def stop(self) -> None:
        try:
            if self.started:
                _run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                      "-w", "stop"], "pg_ctl stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a server's maintenance database (see the module docstring)."""
    try:
        import psycopg  # noqa: F401  (the driver the store URL names)
    except ImportError:
        unavailable("psycopg is not installed - pip install 'deepcite[postgres]'")
    if ENV_URL:
        yield ENV_URL
        return
    try:
        cluster = Cluster()
    except Unavailable as error:
        unavailable(str(error))
    try:
        cluster.start()
    except Unavailable as error:
        cluster.stop()
        unavailable(str(error))
    try:
        yield cluster.url
    finally:
        cluster.stop()


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database on the server for one test; dropped afterwards."""
    from sqlalchemy import create_engine, exc, make_url

    server = make_url(postgres_server)
    name = f"deepcite_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except exc.SQLAlchemyError as error:
        admin.dispose()
        unavailable(f"cannot create a database on {server!r}: {error}")
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
