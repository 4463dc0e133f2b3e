"""The web tier's :class:`~deepcite.web.contracts.RunExecutor` over the queue.

Nothing about a run lives in this process: its state and events are read from the
history store, so any number of ``deepcite serve`` processes behind one port serve the
same runs. A listener thread subscribed to every run's events channel wakes the SSE
streams waiting in :meth:`QueueExecutor.events` as soon as a worker announces new
events; when Redis is away the streams fall back to reading the store every second,
so they slow down instead of stopping.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from deepcite.config import Settings
from deepcite.errors import DeepciteError, QueueError, StoreError
from deepcite.runs import EventBatch, RunInfo, RunRequest
from deepcite.runs.admission import admit
from deepcite.runs.queue.connection import EVENTS_PREFIX, events_channel, redis_connection
from deepcite.runs.queue.reaper import Reaper, enqueue_run
from deepcite.store import ENDED, HistoryStore, RunStateInfo

if TYPE_CHECKING:
    from redis import Redis

logger = logging.getLogger(__name__)

#: Longest an events() call waits between two looks at the store when no wake-up came.
POLL_S = 1.0
#: Most events returned by one events() call; a full batch means more may follow.
BATCH = 1000
#: Pause before the listener reconnects to a Redis that went away.
RECONNECT_S = 1.0


class QueueExecutor:
    """Runs go to RQ workers; state and events come back through the store."""

    def __init__(self, settings: Settings, *, store: HistoryStore | None = None,
                 reap: bool = True) -> None:
        url = settings.queue.url
        if not url:
            raise QueueError("QueueExecutor needs queue.url (DEEPCITE_QUEUE_URL), e.g. "
                             "redis://localhost:6379/0")
        self._settings = settings
        self._url = url
        self._redis = redis_connection(url)
        self._store = store if store is not None else HistoryStore.open(settings)
        self._owns_store = store is None
        self._wake = threading.Condition()
        self._closing = threading.Event()
        self._listener = threading.Thread(target=self._listen, name="deepcite-events",
                                          daemon=True)
        self._listener.start()
        self._reaper = Reaper(settings, self._store, self._redis) if reap else None
        if self._reaper is not None:
            self._reaper.start()

    @property
    def store(self) -> HistoryStore:
        """The history store runs are recorded in."""
        return self._store

    # ------------------------------------------------------------------ protocol

    def use_settings(self, settings: Settings) -> None:
        # The run's snapshot carries them to the worker; its keys (never in a snapshot)
        # are the worker's own: they change when the worker is restarted.
        self._settings = settings

    def submit(self, request: RunRequest) -> str:
        admitted = admit(self._store, request, self._settings)  # now, and in the worker
        request, settings = admitted.request, admitted.settings
        run_id = self._store.enqueue(request.question, mode=request.mode, settings=settings,
                                     request=request.queued(), parent_id=request.parent_id,
                                     owner_id=request.owner_id)
        try:
            enqueue_run(self._redis, self._settings, run_id, attempt=1)
        except QueueError as exc:
            # Never leave a run "queued" that no worker will ever see.
            try:
                self._store.fail(run_id, str(exc))
            except StoreError:
                logger.warning("run %s could not be marked failed", run_id[:8])
            raise
        return run_id

    def cancel(self, run_id: str) -> bool:
        info = self._state(run_id)
        if info.status in ENDED:
            return False
        cancelled = self._store.request_cancel(run_id)
        self._announce(run_id)
        return cancelled

    def status(self, run_id: str) -> RunInfo:
        info = self._state(run_id)
        position = None
        if info.status == "queued":
            queued = self._store.queued_ids()
            position = queued.index(run_id) + 1 if run_id in queued else None
        return RunInfo(id=info.id, question=info.question, mode=info.mode,
                       state=info.status, queue_position=position,
                       created_at=info.created_at, finished_at=info.finished_at,
                       error=info.error)

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        after = max(after, 0)
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            # The state is read before the events: a run stores its last events before
            # it ends, so a run seen ended has all of them in the read that follows.
            ended = self._state(run_id).status in ENDED
            fresh = self._store.events_after(run_id, after, limit=BATCH)
            left = deadline - time.monotonic()
            draining = self._closing.is_set()
            if fresh or ended or left <= 0 or draining:
                return EventBatch(fresh, finished=ended and len(fresh) < BATCH,
                                  draining=draining and not ended)
            with self._wake:
                self._wake.wait(min(left, POLL_S))

    def drain(self) -> None:
        """End the event streams this server follows (their clients reconnect to
        another server); the runs go on on their workers."""
        self._closing.set()
        with self._wake:
            self._wake.notify_all()

    def shutdown(self) -> None:
        """Stop the listener and reaper; runs go on on their workers."""
        self._closing.set()
        if self._reaper is not None:
            self._reaper.stop()
        with self._wake:
            self._wake.notify_all()
        if self._owns_store:
            self._store.close()

    # ------------------------------------------------------------------ plumbing

    def _state(self, run_id: str) -> RunStateInfo:
        """The run's state; :class:`~deepcite.errors.UnknownRunError` for an unknown id
        (told apart by class from a store that is down)."""
        return self._store.run_state(run_id)

    def _announce(self, run_id: str) -> None:
        try:
            self._redis.publish(events_channel(run_id), "state")
        except RedisError as exc:  # redis errors: SSE clients still poll the store
            logger.info("could not announce run %s: %s", run_id[:8], exc)

    def _listen(self) -> None:
        """Wake waiting streams on every announcement; reconnect when Redis comes back."""
        while not self._closing.is_set():
            try:
                self._listen_once(redis_connection(self._url, timeout=None))
            except (DeepciteError, OSError) as exc:
                logger.info("events listener: %s", exc)
            except RedisError as exc:  # redis.ConnectionError and kin: retry, never die
                logger.info("events listener lost Redis: %s", exc)
            self._closing.wait(RECONNECT_S)

    def _listen_once(self, client: Redis) -> None:
        pubsub = client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8.2
        try:
            pubsub.psubscribe(f"{EVENTS_PREFIX}*")
            while not self._closing.is_set():
                message = pubsub.get_message(timeout=POLL_S)
                if message is not None:
                    with self._wake:
                        self._wake.notify_all()
        finally:
            pubsub.close()
            client.close()
