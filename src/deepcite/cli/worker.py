"""``deepcite worker``: execute the runs ``deepcite serve`` queues (``queue.url``)."""

from __future__ import annotations

import logging
import signal
from types import FrameType
from typing import Annotated

import typer

from deepcite.cli.common import err, fail, settings_from, user_errors
from deepcite.runs.queue.connection import redis_connection, shown_url


def _terminate_as_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def worker_command(
    concurrency: Annotated[int, typer.Option(
        "--concurrency", "-c", help="Runs at a time (one worker process each).")] = 1,
    burst: Annotated[bool, typer.Option(
        "--burst", help="Stop when the queue is empty (for scripts and tests).")] = False,
) -> None:
    """Take research runs from the queue and execute them, until stopped (Ctrl-C lets
    the runs in progress finish; a second Ctrl-C stops at once)."""
    if concurrency < 1:
        fail("--concurrency must be at least 1", 2)
    # Until RQ installs its own handlers, SIGTERM stops the worker like Ctrl-C does
    # (a service manager may stop it while it is still starting).
    previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        _run(concurrency, burst)
    except KeyboardInterrupt:
        err.print("deepcite worker: stopped", markup=False)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(concurrency: int, burst: bool) -> None:
    from deepcite.runs.heap import limit_malloc_arenas

    limit_malloc_arenas()  # before any thread or fork: see deepcite.runs.heap
    with user_errors():
        settings = settings_from({})
        if not settings.queue.url:
            fail("deepcite worker needs queue.url - set DEEPCITE_QUEUE_URL=redis://host:6379/0"
                 " (the same as `deepcite serve` uses)", 2)
        if not settings.store.url:
            err.print("Warning: store.url is not set, so runs are read from this machine's "
                      "SQLite history; workers on other machines need a shared PostgreSQL "
                      "store (DEEPCITE_STORE_URL)", markup=False)
        redis_connection(settings.queue.url).close()  # a wrong URL fails here, in one line
        logging.getLogger("deepcite").setLevel(logging.INFO)
        err.print(f"deepcite worker: {concurrency} process(es) on "
                  f"{shown_url(settings.queue.url)}, queue {settings.queue.queue_name!r}",
                  markup=False)
        from deepcite.runs.queue.worker import supervise

        if burst:  # scripts and tests: only the queued runs, no schedule
            supervise(settings, concurrency, burst=burst)
            return
        # Due watches are queued from here too (exactly once however many workers and
        # web servers tick: the store's claims decide), and their changes stored.
        from deepcite.runs.queue.executor import QueueExecutor
        from deepcite.watches.scheduler import WatchScheduler
        from deepcite.watches.service import WatchService

        running: list[tuple[QueueExecutor, WatchScheduler]] = []

        def start_scheduler() -> None:  # after the fork: its threads stay in this process
            executor = QueueExecutor(settings, reap=False)  # the workers reap already
            scheduler = WatchScheduler(WatchService(executor.store, settings, executor))
            running.append((executor, scheduler))
            scheduler.start()

        try:
            supervise(settings, concurrency, started=start_scheduler)
        finally:
            for executor, scheduler in running:
                scheduler.stop()
                executor.shutdown()
