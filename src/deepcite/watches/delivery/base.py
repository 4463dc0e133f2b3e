"""What the built-in senders share (the :class:`Sender` interface itself is the
channels': :mod:`deepcite.watches.channels`)."""

from __future__ import annotations

from urllib.parse import urlsplit

from deepcite.watches.channels import Attachment, Sender

__all__ = ["Attachment", "Sender", "origin"]


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
