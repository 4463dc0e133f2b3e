"""A real Redis server for the queue tests: ``redis-server`` in a subprocess.

:class:`RedisServer` runs one in a temporary folder under ``/tmp`` (a unix socket path
may not exceed about 100 bytes), listening on ``<folder>/redis.sock`` only - the tests
run with ``--disable-socket --allow-unix-socket`` - or, with ``tcp=True``, also on a
free loopback port (the test then needs ``@pytest.mark.enable_socket``). Nothing is
persisted (``--save "" --appendonly no``), so :meth:`RedisServer.restart` is a Redis
that lost its jobs, which is what the queue must survive; the socket path and port stay
the same across restarts, so clients reconnect to the same URL.

The ``redis_server`` fixture is session-scoped; a test that stops or restarts it must
leave it running (:meth:`RedisServer.ensure_running` does that in its teardown).

When no ``redis-server`` can be started the tests are skipped with the reason - except
when ``CI`` is set, where that is a failure (the rule of ``postgres_fixture``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from tests.servers import PATIENCE, NotReady, free_port, wait_until

IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
#: A guard against a redis-server that never answers, not a clock it must beat.
START_TIMEOUT_S = PATIENCE


class Unavailable(Exception):
    """No Redis server can be started here; the message says why."""


def unavailable(reason: str) -> NoReturn:
    """Skip the test, or fail it in CI (see the module docstring)."""
    if IN_CI:
        pytest.fail(f"Redis tests cannot run in CI: {reason}", pytrace=False)
    pytest.skip(f"no Redis server: {reason}")


def redis_binary() -> str:
    """The path of ``redis-server`` (Debian: /usr/bin/redis-server)."""
    found = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None)
    if not found:
        raise Unavailable("redis-server not found - install it (Debian: apt-get install "
                          "redis-server)")
    return found


def _ping_unix(path: Path) -> bool:
    """True when a Redis answers PING on the unix socket ``path``."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(1.0)
            client.connect(str(path))
            client.sendall(b"PING\r\n")
            return client.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One ``redis-server`` process that can be stopped and started again in place."""

    def __init__(self, *, tcp: bool = False, folder: Path | None = None) -> None:
        self.binary = redis_binary()
        self.folder = folder or Path(tempfile.mkdtemp(prefix="dcredis-", dir="/tmp"))
        self.socket_path = self.folder / "redis.sock"
        self.port = free_port() if tcp else 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log = self.folder / "redis.log"

    @property
    def url(self) -> str:
        """The unix socket URL (the same across restarts)."""
        return f"unix://{self.socket_path}?db=0"

    @property
    def tcp_url(self) -> str:
        """The loopback URL; only when made with ``tcp=True``."""
        if not self.port:
            raise RuntimeError("this RedisServer listens on its unix socket only")
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start it and wait until it answers PING; :class:`Unavailable` if it cannot."""
        if self.running:
            return
        command = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
                   "--unixsocket", str(self.socket_path), "--unixsocketperm", "700",
                   "--save", "", "--appendonly", "no", "--dir", str(self.folder),
                   "--logfile", str(self.log), "--daemonize", "no"]
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
        except OSError as error:
            raise Unavailable(f"redis-server cannot start: {error}") from None
        try:
            wait_until(lambda: _ping_unix(self.socket_path), "redis-server",
                       alive=lambda: self.running, patience=START_TIMEOUT_S, pause=0.02)
        except NotReady as error:
            tail = self.log.read_text(errors="replace")[-400:] if self.log.exists() else ""
            self.stop()
            raise Unavailable(f"{str(error).strip()}: {' '.join(tail.split())}") from None

    def stop(self) -> None:
        """Stop it at once (SIGKILL: nothing to save); the socket file goes with it."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait(timeout=10)
            self.process = None
        self.socket_path.unlink(missing_ok=True)

    def restart(self) -> None:
        """Stop and start again on the same socket (and port): every job is lost."""
        self.stop()
        self.start()

    def ensure_running(self) -> None:
        if not self.running:
            self.start()

    def close(self) -> None:
        """Stop it and remove its folder."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def started(*, tcp: bool = False) -> RedisServer:
    """A running server, or the skip/fail of :func:`unavailable`."""
    try:
        server = RedisServer(tcp=tcp)
    except Unavailable as error:
        unavailable(str(error))
    try:
        server.start()
    except Unavailable as error:
        server.close()
        unavailable(str(error))
    return server


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A Redis on a unix socket for the whole session (see the module docstring)."""
    try:
        import redis  # noqa: F401  (the client the queue uses)
    except ImportError:
        unavailable("redis-py is not installed - pip install 'deepcite[queue]'")
    server = started()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> Iterator[str]:
    """The session server's URL, emptied for this test and running again after it."""
    redis_server.ensure_running()
    _flush(redis_server)
    try:
        yield redis_server.url
    finally:
        redis_server.ensure_running()


def _flush(server: RedisServer) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(5.0)
        client.connect(str(server.socket_path))
        client.sendall(b"FLUSHALL\r\n")
        client.recv(64)
