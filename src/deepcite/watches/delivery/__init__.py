"""The built-in delivery channels: email, webhooks and the Atom feed, and retry timing
(``docs/watch-delivery.md``).

Each channel is one class of :mod:`deepcite.watches.channels` (``EmailTarget``,
``WebhookTarget``, ``AtomFeed``), named in its registry like a plugin's. The watch
store calls a :class:`Sender` per target and attempt, keyed by the target's ``kind``;
:func:`senders_from_settings` builds them from every channel. Retries are the store's,
timed by :func:`retry.next_attempt`; the senders only say, with
:attr:`~deepcite.errors.DeliveryError.retryable`, whether one is worth it.
"""

from __future__ import annotations

from deepcite.watches.channels import Attachment, Sender, senders_from_settings
from deepcite.watches.delivery.atom import AtomFeed, atom_feed
from deepcite.watches.delivery.email import EmailSender, EmailTarget
from deepcite.watches.delivery.retry import next_attempt, retryable
from deepcite.watches.delivery.webhook import (
    SecretFor,
    WebhookSender,
    WebhookTarget,
    verify_signature,
    webhook_policy,
)

__all__ = [
    "AtomFeed",
    "Attachment",
    "EmailSender",
    "EmailTarget",
    "SecretFor",
    "Sender",
    "WebhookSender",
    "WebhookTarget",
    "atom_feed",
    "next_attempt",
    "retryable",
    "senders_from_settings",
    "verify_signature",
    "webhook_policy",
]
