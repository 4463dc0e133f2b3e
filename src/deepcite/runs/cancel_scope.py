"""One cancel scope per run, cancellable before, during and after the run starts.

A front end learns it must stop a run at any moment - Ctrl-C before the model is
loaded, an MCP client that goes away, a cancel request found by a worker's holder -
while the thing that can stop the research (the Researcher, or the report built on
it) only exists once the run is set up. Every front end used to keep its own
"late-bound cancel" for that gap. A :class:`CancelScope` is that once: the front end
creates it and may call :meth:`CancelScope.cancel` whenever it likes; the run binds
what can stop it (:meth:`CancelScope.bind`) as soon as it exists, and a cancel that
came first is applied at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["CancelScope"]


class CancelScope:
    """Set once by anyone; every stopper bound to it is called exactly once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stoppers: list[Callable[[], None]] = []
        self._cancelled = False

    def cancel(self) -> None:
        """Stop the run: it returns what it has found (``result.cancelled``)."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            stoppers = list(self._stoppers)
        for stop in stoppers:
            stop()

    def bind(self, stop: Callable[[], None]) -> None:
        """Call ``stop`` when the scope is cancelled - now, if it already was."""
        with self._lock:
            self._stoppers.append(stop)
            cancelled = self._cancelled
        if cancelled:
            stop()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        with self._lock:
            return self._cancelled
