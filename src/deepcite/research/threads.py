"""Running a callable in a daemon thread that the caller can walk away from.

A research run must stay responsive while one of its steps cannot be interrupted (a
model call in prompt evaluation, a slow web request): the Researcher waits for its
strategy only a short grace period after a cancel, and the CLI's main thread must stay
free to take Ctrl-C and SIGTERM. Both run the work in a :class:`Worker` and poll it.

The caller polls with short sleeps, never with ``Thread.join``: a KeyboardInterrupt
landing inside ``join`` can leave the thread looking finished while it still runs. An
error in the work is kept and raised again in the caller by :meth:`Worker.result`,
with the traceback it had in the worker, so a bug is reported where it happened.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

POLL_SECONDS = 0.05


class Worker(Generic[T]):
    """One call of ``work`` in a daemon thread; its result or its error for the caller."""

    def __init__(self, work: Callable[[], T], *, name: str) -> None:
        self._work = work
        self._done = threading.Event()
        self._value: list[T] = []  # a box: T itself may allow None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)

    def _main(self) -> None:
        try:
            self._value.append(self._work())
        except BaseException as exc:  # noqa: BLE001 - kept, raised again in the caller
            self._error = exc
        finally:
            self._done.set()

    def start(self) -> Worker[T]:
        """Start the thread; returns the worker, to chain ``Worker(...).start()``."""
        self._thread.start()
        return self

    @property
    def started(self) -> bool:
        """Whether the thread was started (an interrupt may land before it is)."""
        return self._thread.ident is not None

    @property
    def done(self) -> bool:
        """Whether the work finished, with a result or an error."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None, *,
             stop: Callable[[], bool] | None = None) -> bool:
        """Sleep until the work is done; True if it is.

        Returns early (False) after ``timeout`` seconds, or as soon as ``stop()`` is
        true, or at once when the thread never started. Sleeps in short slices so that
        signals reach the calling thread promptly.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._done.is_set():
            if not self.started or (stop is not None and stop()):
                return False
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(POLL_SECONDS)
        return True

    def result(self) -> T:
        """The work's return value; its error raised again, with the worker's traceback.

        Call only once :attr:`done` is true.
        """
        if not self._done.is_set():
            raise RuntimeError("the worker has not finished")
        if self._error is not None:
            raise self._error.with_traceback(self._error.__traceback__)
        return self._value[0]


def run_cancellable(work: Callable[[], T], *, cancelled: Callable[[], bool],
                    grace: float, name: str) -> tuple[bool, T | None]:
    """Run ``work`` in a worker until it ends, or until ``grace`` seconds after a cancel.

    Returns ``(True, value)`` when the work finished (its error is raised here, with
    its traceback) and ``(False, None)`` when it was cancelled and still running after
    the grace period; it then finishes in the background and its result is dropped.
    """
    worker = Worker(work, name=name).start()
    if not worker.wait(stop=cancelled) and not worker.wait(grace):
        return False, None
    return True, worker.result()
