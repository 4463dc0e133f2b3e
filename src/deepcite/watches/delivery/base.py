"""The one interface every sender meets, and what senders share."""

from __future__ import annotations

from typing import Protocol
from urllib.parse import urlsplit

from deepcite.watches.notice import DeliveryTarget, Notice

Attachment = tuple[str, bytes]
"""``(filename, content)`` of a report export sent with a notice."""


class Sender(Protocol):
    """Sends one notice to one target; the watch store calls it once per attempt.

    ``send`` returns once the target has the notice (the SMTP server took the mail, the
    webhook answered 2xx) and raises :class:`deepcite.errors.DeliveryError` otherwise,
    its ``retryable`` saying whether a later attempt may succeed. It never retries by
    itself: attempts, backoff and the outbox are the store's
    (:func:`deepcite.watches.delivery.retry.next_attempt`).
    """

    def send(self, target: DeliveryTarget, notice: Notice, *,
             attachment: Attachment | None) -> None: ...


def origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``: what a message about a webhook names. Its
    path and query can hold a token (many chat webhooks are secret URLs), so they are
    never shown or logged."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "?"
        port = parts.port
    except ValueError:
        return "a malformed URL"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")
