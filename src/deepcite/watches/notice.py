"""What a watch delivers, and where: the types the scheduler and the senders share.

A run of a watch ends in a :class:`Notice` - the one-line summary of what changed since
the watch's previous run, the change itself as Markdown, and the report as an export -
and every :class:`DeliveryTarget` of the watch gets it: the web inbox and the Atom feed
read notices from the store; email and webhook targets are sent them, each attempt
recorded so that a failed delivery is retried and visible, never lost silently.

These are data (pydantic models stored as JSON with the watch), so the scheduler, the
store, the senders, the REST API and the pages agree on one shape.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "MAX_TARGETS",
    "DeliveryTarget",
    "EmailTarget",
    "Notice",
    "WebhookTarget",
]

MAX_TARGETS = 8
"""Delivery targets one watch may have (besides its inbox and feed, which all have)."""
MAX_RECIPIENTS = 20
_ADDRESS = re.compile(r"[^@\s<>,;\"']+@[^@\s<>,;\"']+\.[^@\s<>,;\"']+")


class EmailTarget(BaseModel):
    """Email over the configured SMTP server: the change summary in the body, the
    report attached in ``attach`` format (``None``: no attachment)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["email"] = "email"
    to: list[Annotated[str, Field(min_length=3, max_length=254)]] = Field(
        min_length=1, max_length=MAX_RECIPIENTS)
    #: An exporter name (``deepcite export --help`` lists them), e.g. ``markdown``,
    #: ``html``, ``pdf``; checked against the exporters at submit.
    attach: Annotated[str, Field(min_length=1, max_length=32)] | None = "markdown"

    @field_validator("to")
    @classmethod
    def _addresses(cls, value: list[str]) -> list[str]:
        for address in value:
            if not _ADDRESS.fullmatch(address.strip()):
                raise ValueError(f"{address!r} is not an email address (name@example.org)")
        return [address.strip() for address in value]


class WebhookTarget(BaseModel):
    """A JSON ``POST`` to ``url`` through the egress policy, signed with the watch's
    secret (HMAC-SHA256 of the body in the ``X-Deepcite-Signature`` header)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["webhook"] = "webhook"
    url: Annotated[str, Field(min_length=8, max_length=2000)]

    @field_validator("url")
    @classmethod
    def _http(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")):
            raise ValueError("a webhook URL starts with https:// (or http://)")
        return value


DeliveryTarget = Annotated[EmailTarget | WebhookTarget, Field(discriminator="kind")]
"""One place a watch sends its notices to."""


class Notice(BaseModel):
    """What one run of a watch has to say, ready for every delivery target.

    ``summary`` is one line ("2 new sources, 1 claim lost its support" or "Nothing new
    since <date>"); ``changes_markdown`` the comparison with the previous run, claim by
    claim; ``nothing_new`` tells senders they may send the summary alone.
    """

    model_config = ConfigDict(extra="forbid")

    watch_id: str
    watch_name: str
    run_id: str
    previous_run_id: str | None = None
    question: str
    created_at: datetime
    summary: str
    nothing_new: bool = False
    changes_markdown: str = ""
    #: The run's link in the web app, when the server knows its public address.
    url: str | None = None
