"""Cancellation that a run checks between steps."""

from __future__ import annotations

import threading


class CancelToken:
    """Set once by anyone (Ctrl-C handler, web request); checked by the run."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the run to stop at its next check; it returns what it has."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether cancellation was asked for."""
        return self._event.is_set()
