"""The Redis connection of the queue, and the names everything agrees on.

A Redis that is down or restarting must give a clear one-line error (and the next
request works once it is back), so every connection is made with short timeouts and
a health check, and connection errors become :class:`~deepcite.errors.QueueError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from deepcite.errors import QueueError, error_line

if TYPE_CHECKING:
    from redis import Redis

EXTRA_HINT = "pip install 'deepcite[queue]'"
#: Seconds to connect to Redis, and to wait for a reply, before calling it unreachable.
SOCKET_TIMEOUT_S = 5.0
#: Pub/sub channel prefix: ``deepcite:events:<run id>`` carries "new events" wake-ups.
EVENTS_PREFIX = "deepcite:events:"


def events_channel(run_id: str) -> str:
    """The channel announcing new stored events of ``run_id``."""
    return f"{EVENTS_PREFIX}{run_id}"


def shown_url(url: str) -> str:
    """``url`` without a password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def unreachable(url: str, error: BaseException) -> QueueError:
    """The one-line error for a Redis that cannot be used right now."""
    reason = error_line(error)
    return QueueError(f"The job queue at {shown_url(url)} is unreachable ({reason}) - check "
                      f"that Redis is running and queue.url / DEEPCITE_QUEUE_URL")


def redis_connection(url: str, *, check: bool = True, timeout: float | None = SOCKET_TIMEOUT_S
                     ) -> Redis:
    """A client for ``url``; ``check`` pings it so a wrong URL fails here, in one line.

    ``timeout`` bounds each reply (``None`` for connections that block on purpose, such
    as a worker waiting for jobs or a pub/sub listener).
    """
    try:
        import redis
    except ImportError as exc:
        raise QueueError(f"The job queue needs redis and rq - {EXTRA_HINT}") from exc
    options: dict[str, Any] = {"socket_connect_timeout": SOCKET_TIMEOUT_S,
                               "socket_timeout": timeout, "health_check_interval": 30,
                               "retry_on_timeout": False}
    try:
        client = redis.Redis.from_url(url, **options)
        if check:
            client.ping()
    except ValueError as exc:
        raise QueueError(f"queue.url {shown_url(url)!r} is not a Redis URL ({exc}) - use "
                         "redis://host:6379/0") from exc
    except redis.RedisError as exc:
        raise unreachable(url, exc) from exc
    return client
