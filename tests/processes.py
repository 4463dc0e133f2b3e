"""Real deepcite processes for multi-process tests: started through
``tests.worker_launcher`` (which installs the test doubles at the model boundary), each
with its own log, stopped with SIGTERM (then SIGKILL), their output shown on failure."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Proc:
    """One started process and where its output goes."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def tail(self, chars: int = 3000) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return f"--- {self.name} (pid {self.pid}, exit {self.process.poll()}) ---\n" \
               f"{text[-chars:]}"

    def stop(self, timeout: float = 20.0) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def launch(name: str, args: tuple[str, ...], *, env: dict[str, str], logs: Path) -> Proc:
    """``python -m tests.worker_launcher ARGS`` (a deepcite command line), logging to
    ``logs/<name>.log``."""
    log = logs / f"{name}.log"
    with log.open("ab") as out:
        process = subprocess.Popen([sys.executable, "-m", "tests.worker_launcher", *args],
                                   env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=subprocess.STDOUT)
    return Proc(name, process, log)


def wait_healthy(base: str, proc: Proc, diagnostics: Callable[[], str] | None = None,
                 timeout: float = 60.0) -> None:
    """Wait for ``deepcite serve`` at ``base`` to answer its health check; fail with the
    process's output (or what ``diagnostics`` says then) when it exits or does not
    answer in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.process.poll() is None:
        try:
            if httpx.get(f"{base}/api/v1/health", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    shown = diagnostics() if diagnostics is not None else proc.tail()
    pytest.fail(f"deepcite serve at {base} did not start:\n{shown}")
