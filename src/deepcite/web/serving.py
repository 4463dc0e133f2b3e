"""Serving the app with uvicorn so that a stop signal never loses a run.

Uvicorn alone loses them to SIGTERM (systemd, ``docker stop``): it waits for open
connections - event streams of runs that go on for minutes - and afterwards re-raises
the signal, whose default action kills the process before any ``finally`` runs. So:

1. On the first SIGTERM, SIGINT or SIGHUP (a closed terminal) the executor is *drained*
   at once: it stops taking runs and cancels the queued and running ones. Their streams
   get the last events and end, so uvicorn's graceful shutdown can finish.
2. Uvicorn stops; a stream still open after :data:`GRACE_S` is cut.
3. The executor's shutdown waits for the cancelled runs to store their partial results
   and events (``interrupted``), and the process exits with status 0.

A second SIGINT forces uvicorn's exit as usual; the runs are still stored by step 3, and
signals that arrive while they are being stored are logged, never fatal.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Generator
from contextlib import contextmanager
from types import FrameType

import uvicorn
from fastapi import FastAPI

from deepcite.runs import RunExecutor
from deepcite.security.http_server import server_config

logger = logging.getLogger(__name__)

GRACE_S = 20.0
"""How long open connections may take to finish once a stop signal arrived."""
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class DrainingServer(uvicorn.Server):
    """A uvicorn server that drains ``executor`` on the first stop signal and does not
    re-raise the signal afterwards (the caller still has runs to store)."""

    def __init__(self, config: uvicorn.Config, executor: RunExecutor) -> None:
        super().__init__(config)
        self._executor = executor
        self._draining = False
        self.stop_signals: list[int] = []

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.stop_signals.append(sig)
        if not self._draining:
            self._draining = True
            logger.info("stopping: no new runs; cancelling the runs in progress")
            # A thread: signal handlers run between bytecodes of the event loop's
            # thread, which may be inside the executor's lock at that moment.
            threading.Thread(target=self._executor.drain, name="deepcite-drain",
                             daemon=True).start()
        super().handle_exit(sig, frame)

    @contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        if threading.current_thread() is not threading.main_thread():
            yield  # signals reach only the main thread; the caller stops us then
            return
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in _SIGNALS}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def uvicorn_config(app: FastAPI, *, host: str, port: int,
                   log_level: str = "info") -> uvicorn.Config:
    """How ``deepcite serve`` runs ``app``: deepcite's uvicorn settings (no proxy headers
    believed but the named proxies', no secret in the access log - see
    :mod:`deepcite.security.http_server`) and :data:`GRACE_S` for open connections."""
    return server_config(app, host=host, port=port, log_level=log_level,
                         timeout_graceful_shutdown=int(GRACE_S))


def serve_app(app: FastAPI, executor: RunExecutor, *, host: str, port: int,
              log_level: str = "info",
              on_stop: Callable[[], None] | None = None,
              on_start: Callable[[], None] | None = None) -> list[int]:
    """Serve ``app`` until a stop signal, then store every run ``executor`` held before
    returning; the signals that stopped it. ``on_stop`` (the watch scheduler's stop) is
    called once uvicorn has stopped, before the executor shuts down; ``on_start`` (the
    warm-up: demo index, model) runs in a daemon thread while uvicorn starts."""
    if on_start is not None:
        threading.Thread(target=on_start, name="deepcite-warm-up", daemon=True).start()
    server = DrainingServer(uvicorn_config(app, host=host, port=port, log_level=log_level),
                            executor)
    late: list[int] = []

    def storing(sig: int, frame: FrameType | None) -> None:
        # uvicorn has stopped (its own handlers are gone): a second `kill`, or a
        # service manager repeating itself, must not end the process mid-store
        late.append(sig)
        logger.warning("still storing the runs in progress; exiting once they are stored")

    main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, storing) for sig in _SIGNALS} if main else {}
    try:
        try:
            server.run()
        finally:
            try:
                if on_stop is not None:
                    on_stop()
            finally:
                executor.shutdown()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return server.stop_signals + late
