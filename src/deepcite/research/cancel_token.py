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

    def wait(self, timeout: float) -> bool:
        """Sleep up to ``timeout`` seconds, waking early on cancel; True if cancelled.

        For back-off pauses and slow polls that must not delay cancellation.
        """
        return self._event.wait(timeout)
