"""Research runs past one process: a Redis queue (RQ), worker processes, shared events.

With ``queue.url`` set, ``deepcite serve`` hands runs to :class:`QueueExecutor`, which
records each one in the history store as ``queued`` and enqueues its id on RQ;
``deepcite worker`` processes on any machine claim it, rebuild the settings from the
stored snapshot (secrets come from the worker's own environment, never the queue), run
it, and append its events to the store as they happen, announcing each batch on Redis
pub/sub so every web process wakes its SSE clients. The store is the source of truth:
a client that reconnects reads what it missed from there, in order.

Why RQ: runs are plain Python functions on one Redis, which this design already needs
for pub/sub; RQ adds no broker or result backend of its own, and its workers are
ordinary processes. A worker that dies mid-run stops heartbeating; the reaper (in
every worker and web process) re-queues the run once (``queue.max_attempts``) or marks
it interrupted.
"""

from deepcite.runs.queue.connection import events_channel, redis_connection

__all__ = ["events_channel", "redis_connection"]
