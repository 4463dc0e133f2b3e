"""Finding runs whose worker died, and putting them back on the queue.

A worker heartbeats every run it holds (``queue.heartbeat_seconds``). A run silent
for ``queue.heartbeat_timeout_seconds`` lost its worker (SIGKILL, a crashed machine,
a network split): the store moves it back to ``queued`` while it has attempts left
(``queue.max_attempts``), else to ``interrupted``, in one atomic update per run - so
of all the reapers running (one in every worker and web process) exactly one wins
each run, and only the winner enqueues it again. The retry starts from scratch; the
events of the lost attempt stay, followed by a warning that says what happened. Runs
the store holds as ``queued`` whose job Redis lost (a restart without persistence, an
enqueue that failed) are enqueued again by the same pass.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from deepcite.config import Settings
from deepcite.errors import DeepciteError, QueueError
from deepcite.runs.queue.connection import events_channel, unreachable
from deepcite.store import HistoryStore

if TYPE_CHECKING:
    from redis import Redis

logger = logging.getLogger(__name__)

#: The job function workers run (imported by RQ from its dotted name).
JOB_FUNCTION = "deepcite.runs.queue.worker.run_queued"


def enqueue_run(client: Redis, settings: Settings, run_id: str, *, attempt: int) -> None:
    """Put ``run_id`` on the queue (``attempt`` makes the RQ job id unique per try)."""
    from rq import Queue

    queue = Queue(settings.queue.queue_name, connection=client)
    try:
        queue.enqueue_call(JOB_FUNCTION, args=(run_id,), job_id=f"{run_id}-{attempt}",
                           timeout=settings.queue.job_timeout_seconds, result_ttl=3600,
                           failure_ttl=86400, description=f"deepcite run {run_id[:8]}")
    except RedisError as exc:  # redis.RedisError and kin: one clear line for the caller
        raise unreachable(settings.queue.url or "", exc) from exc


class Reaper:
    """A daemon thread that reaps every ``heartbeat_timeout / 3`` seconds."""

    def __init__(self, settings: Settings, store: HistoryStore, client: Redis) -> None:
        self._settings = settings
        self._store = store
        self._client = client
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="deepcite-reaper",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def reap_once(self) -> list[tuple[str, str]]:
        """One pass: re-queue or interrupt the silent runs; what was done to which."""
        queue = self._settings.queue
        done = self._store.reap(queue.heartbeat_timeout_seconds, queue.max_attempts)
        for run_id, action in done:
            logger.warning("run %s lost its worker: %s", run_id[:8], action)
            if action == "requeued":
                attempt = self._store.run_state(run_id).attempts + 1
                try:
                    enqueue_run(self._client, self._settings, run_id, attempt=attempt)
                except QueueError as exc:
                    # Still "queued" in the store: the next pass cannot see it, so say it.
                    logger.error("run %s could not be re-queued: %s", run_id[:8], exc)
            try:
                self._client.publish(events_channel(run_id), "state")
            except RedisError as exc:  # redis errors: clients still poll the store
                logger.info("could not announce run %s: %s", run_id[:8], exc)
        # In-process runs (a CLI report, an MCP run) on the same store whose process
        # died: no worker will ever take them, so they are marked, never re-queued.
        for run_id in self._store.mark_interrupted():
            logger.warning("run %s lost its process: interrupted", run_id[:8])
            done.append((run_id, "interrupted"))
        self.sweep_queued()
        return done

    def sweep_queued(self) -> list[str]:
        """Enqueue again the queued runs whose job is not in Redis (an enqueue that
        failed, or a Redis restarted without persistence); returns their ids.

        A job enqueued twice is harmless: only one worker can claim the run.
        """
        from rq.job import Job

        again = []
        for run_id in self._store.queued_ids():
            attempt = self._store.run_state(run_id).attempts + 1
            try:
                exists = Job.exists(f"{run_id}-{attempt}", connection=self._client)
            except RedisError as exc:  # redis errors: the next pass tries again
                raise unreachable(self._settings.queue.url or "", exc) from exc
            if not exists:
                enqueue_run(self._client, self._settings, run_id, attempt=attempt)
                again.append(run_id)
        if again:
            logger.warning("re-enqueued %d queued run(s) missing from the queue", len(again))
        return again

    def _loop(self) -> None:
        interval = max(self._settings.queue.heartbeat_timeout_seconds / 3, 0.2)
        while not self._stop.wait(interval):
            try:
                self.reap_once()
            except DeepciteError as exc:  # store or queue away: try again next pass
                logger.info("reaper: %s", exc)
