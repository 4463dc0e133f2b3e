"""Servers and processes that tests (and bench/) start, and how they wait for them.

A test waits for *readiness* - a health URL answering, a line printed, a socket
accepting, uvicorn saying it has started - never for a fixed time: on a loaded machine
start-up and the first requests are slow, and a short clock turns slowness into a red
test. Every wait has a guard, :data:`PATIENCE`, long enough that it is only reached by
something that would otherwise hang (a server that never starts), and then the failure
says what was awaited and shows the process's output. A started process that exits
fails the wait at once.

- :func:`serving` / :func:`running`: an ASGI app or a ``uvicorn.Config`` served by real
  uvicorn in a thread (for what crosses the wire: raw sockets, concurrent clients).
- :func:`launch` / :func:`start_process` and :class:`Proc`: a real process with its log;
  :func:`wait_healthy` waits for ``deepcite serve``'s health check.
- :func:`wait_until`, :func:`answers`, :func:`accepts`, :func:`printed`,
  :func:`free_port`: the parts.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvicorn
from starlette.types import ASGIApp

ROOT = Path(__file__).resolve().parents[1]

#: The most any wait for readiness (and any request a test makes to a server it started)
#: lasts before the test fails: only a server or process that would otherwise hang the
#: suite reaches it. ``DEEPCITE_TEST_PATIENCE`` (seconds) changes it.
PATIENCE = float(os.environ.get("DEEPCITE_TEST_PATIENCE", "300"))


class NotReady(AssertionError):
    """A server or process did not become ready (it exited, or :data:`PATIENCE` ran
    out); an ``AssertionError`` so that pytest reports it as a failed test."""


def wait_until(ready: Callable[[], bool], what: str, *,
               alive: Callable[[], bool] = lambda: True,
               details: Callable[[], str] = lambda: "",
               patience: float = PATIENCE, pause: float = 0.05) -> None:
    """Poll ``ready`` until it is true. Raise :class:`NotReady` naming ``what`` (with
    ``details()``, e.g. a log's tail) when ``alive`` turns false or ``patience`` seconds
    pass; the pause between polls grows to half a second, so a long wait costs little."""
    deadline = time.monotonic() + patience
    while not ready():
        if not alive():
            raise NotReady(f"{what}: exited before it was ready\n{details()}")
        if time.monotonic() > deadline:
            raise NotReady(f"{what}: not ready after {patience:.0f} s\n{details()}")
        time.sleep(pause)
        pause = min(pause * 1.5, 0.5)


def answers(url: str, status: int = 200) -> Callable[[], bool]:
    """A readiness check: ``url`` answers a GET with ``status``. A slow or refused
    request counts as not yet."""
    def check() -> bool:
        try:
            return httpx.get(url, timeout=10).status_code == status
        except httpx.HTTPError:
            return False
    return check


def accepts(host: str, port: int) -> Callable[[], bool]:
    """A readiness check: something accepts TCP connections on ``host:port``."""
    def check() -> bool:
        try:
            with socket.create_connection((host, port), timeout=5):
                return True
        except OSError:
            return False
    return check


def printed(proc: Proc, *needles: str) -> Callable[[], bool]:
    """A readiness check: the process's log holds one of ``needles`` (for a test that
    may not open sockets itself, such as a module-scoped browser fixture)."""
    def check() -> bool:
        text = proc.log.read_text(errors="replace") if proc.log.exists() else ""
        return any(needle in text for needle in needles)
    return check


def free_port(host: str = "127.0.0.1") -> int:
    """A port on ``host`` that is free at the time of asking."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def _in_thread(server: uvicorn.Server, **run: object) -> Iterator[None]:
    """``server`` run in a daemon thread until the block ends, entered once uvicorn says
    it has started."""
    thread = threading.Thread(target=server.run, kwargs=run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, "uvicorn in a thread", alive=thread.is_alive)
        yield
    finally:
        server.should_exit = True
        thread.join(PATIENCE)


@contextmanager
def serving(app: ASGIApp) -> Iterator[int]:
    """Serve ``app`` on a free loopback port until the block ends; yields the port once
    ``/api/v1/health`` answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    try:
        with _in_thread(server, sockets=[sock]):
            wait_until(answers(f"http://127.0.0.1:{port}/api/v1/health"),
                       f"the app on port {port}")
            yield port
    finally:
        sock.close()


@contextmanager
def running(config: uvicorn.Config) -> Iterator[str]:
    """``config`` served in a thread until the block ends; yields its base URL once
    uvicorn says it has started."""
    with _in_thread(uvicorn.Server(config)):
        yield f"http://{config.host}:{config.port}"


@dataclass
class Proc:
    """One started process and where its output goes."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def tail(self, chars: int = 3000) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return f"--- {self.name} (pid {self.pid}, exit {self.process.poll()}) ---\n" \
               f"{text[-chars:]}"

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM, then SIGKILL if it has not exited after ``timeout`` seconds."""
        stop(self.process, timeout)


def stop(process: subprocess.Popen[bytes] | subprocess.Popen[str],
         timeout: float = 20.0) -> None:
    """End ``process``: SIGTERM, then SIGKILL if it has not exited after ``timeout``."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=PATIENCE)


def start_process(name: str, command: Sequence[str], *, logs: Path,
                  env: Mapping[str, str] | None = None, cwd: Path = ROOT) -> Proc:
    """``command`` started with its stdout and stderr in ``logs/<name>.log``."""
    log = logs / f"{name}.log"
    with log.open("ab") as out:
        process = subprocess.Popen(list(command), env=None if env is None else dict(env),
                                   cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=subprocess.STDOUT)
    return Proc(name, process, log)


def launch(name: str, args: tuple[str, ...], *, env: dict[str, str], logs: Path) -> Proc:
    """``python -m tests.worker_launcher ARGS`` (a deepcite command line with the test
    doubles installed at the model boundary), logging to ``logs/<name>.log``."""
    return start_process(name, [sys.executable, "-m", "tests.worker_launcher", *args],
                         env=env, logs=logs)


def wait_healthy(base: str, proc: Proc, diagnostics: Callable[[], str] | None = None,
                 patience: float = PATIENCE) -> None:
    """Wait for ``deepcite serve`` at ``base`` to answer its health check; fail with the
    process's output (or what ``diagnostics`` says then) when it exits or never
    answers."""
    wait_until(answers(f"{base}/api/v1/health"), f"deepcite serve at {base}",
               alive=proc.alive, details=diagnostics or proc.tail, patience=patience)
