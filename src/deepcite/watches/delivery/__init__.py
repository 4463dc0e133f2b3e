"""Delivery of watch notices: email, webhooks and the Atom feed (``docs/watch-delivery.md``).

The watch store calls a :class:`Sender` per target and attempt, keyed by the target's
``kind``; :func:`senders_from_settings` builds them. Retries are the store's, timed by
:func:`retry.next_attempt`; the senders only say, with
:attr:`~deepcite.errors.DeliveryError.retryable`, whether one is worth it.
"""

from __future__ import annotations

from deepcite.config import Settings
from deepcite.watches.delivery.atom import atom_feed
from deepcite.watches.delivery.base import Attachment, Sender
from deepcite.watches.delivery.email import EmailSender
from deepcite.watches.delivery.retry import next_attempt, retryable
from deepcite.watches.delivery.webhook import (
    SecretFor,
    WebhookSender,
    verify_signature,
    webhook_policy,
)

__all__ = [
    "Attachment",
    "EmailSender",
    "SecretFor",
    "Sender",
    "WebhookSender",
    "atom_feed",
    "next_attempt",
    "retryable",
    "senders_from_settings",
    "verify_signature",
    "webhook_policy",
]


def senders_from_settings(settings: Settings, *, secret_for: SecretFor) -> dict[str, Sender]:
    """The senders by target kind: ``"webhook"`` always, ``"email"`` only when
    ``delivery.smtp_host`` is set (a watch with an email target and no server is refused
    at submit, or its deliveries fail visibly). ``secret_for(watch_id)`` gives a watch's
    webhook secret (see :class:`WebhookSender`). ConfigError for unusable settings."""
    senders: dict[str, Sender] = {"webhook": WebhookSender(settings, secret_for=secret_for)}
    if settings.delivery.smtp_host:
        senders["email"] = EmailSender(settings.delivery)
    return senders
