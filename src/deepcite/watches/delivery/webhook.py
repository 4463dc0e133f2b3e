"""Watch notices as signed JSON ``POST`` s to webhook URLs, through the egress policy.

The body is UTF-8 JSON (``payload``)::

    {"event": "watch.notice", "version": 1, "delivery": "<id>", "link": "<run URL or null>",
     "notice": {<the Notice: watch_id, watch_name, run_id, previous_run_id, question,
                 created_at, summary, nothing_new, changes_markdown, url>},
     "attachment": null | {"filename": "...", "content_type": "...", "size": 1234}}

- never the attachment's bytes, only what it is; ``delivery`` is the same on every
attempt of one notice to one URL, so a receiver can drop a repeat.

Signature scheme. Each request carries

* ``X-Deepcite-Timestamp: <unix seconds when this attempt was sent>``
* ``X-Deepcite-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>``

where ``body`` is the exact bytes of the request body and ``secret`` the watch's webhook
secret (UTF-8). Signing the timestamp with the body lets a receiver refuse a captured
request replayed later: :func:`verify_signature` accepts a signature only within
``tolerance_seconds`` (5 minutes) of its timestamp. It compares in constant time, and
takes several ``sha256=`` values separated by commas, for a receiver rotating secrets.

The secret is per watch and kept by the watch store; the sender asks for it with
``secret_for(watch_id)`` on every send (``WebhookSender(settings, secret_for=...)``),
so a rotated secret applies from the next attempt. No secret: the send fails, not
retryable - an unsigned notice is never sent.

Every request goes through the egress policy (:mod:`deepcite.security.egress`), as a
fetch target: a loopback, private or shared address is refused unless
``delivery.webhook_allow_private_hosts`` (webhooks only) or
``security.allow_private_hosts`` names it; link-local and metadata addresses never
pass, and the approved addresses are the ones connected to. Redirects are not followed
(a signed ``POST`` is not replayed to another host): a 3xx answer is a failure.

A 2xx answer is success. A 5xx, 408, 425 or 429 answer, a timeout or a network failure
is a :class:`~deepcite.errors.DeliveryError` with ``retryable=True``; any other answer
and an egress refusal are not retryable. A 429 or 503 answer's ``Retry-After`` (seconds
or an HTTP-date, at most a day) is the error's ``retry_after``, so the next attempt is
not made before the receiver asked (:func:`~deepcite.watches.delivery.retry.next_attempt`).
Messages name the URL's origin only: a webhook URL's path is often itself a secret.

:class:`WebhookTarget` is the channel (:mod:`deepcite.watches.channels`): one URL, its
egress checked when the watch is made by the same policy as at every send.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import mimetypes
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Literal

import httpx
from pydantic import Field, field_validator

from deepcite._version import __version__
from deepcite.config import Settings
from deepcite.errors import ConfigError, DeliveryError, EgressDenied
from deepcite.security.egress import AllowEntry, EgressPolicy, short_url
from deepcite.security.transport import EgressTransport
from deepcite.watches.channels import (
    Attachment,
    DeliveryTarget,
    FormInput,
    SecretFor,
    SendContext,
    Sender,
    TargetProblem,
)
from deepcite.watches.delivery.base import origin
from deepcite.watches.delivery.retry import retry_after_seconds
from deepcite.watches.notice import Notice

__all__ = [
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "SecretFor",
    "WebhookSender",
    "WebhookTarget",
    "payload",
    "refusal",
    "sign",
    "verify_signature",
    "webhook_policy",
    "webhook_refusal",
]

SIGNATURE_HEADER = "X-Deepcite-Signature"
TIMESTAMP_HEADER = "X-Deepcite-Timestamp"
DELIVERY_HEADER = "X-Deepcite-Delivery"
EVENT_HEADER = "X-Deepcite-Event"
EVENT = "watch.notice"
DEFAULT_TOLERANCE_SECONDS = 300
USER_AGENT = f"deepcite/{__version__} (watch webhook)"
#: Answers worth another try besides 5xx: timeout, too early, too many requests.
RETRYABLE_4XX = frozenset({408, 425, 429})
#: Answers whose ``Retry-After`` is honoured (RFC 6585 for 429, RFC 9110 for 503).
RETRY_AFTER_STATUSES = frozenset({429, 503})



class WebhookTarget(DeliveryTarget):
    """A JSON ``POST`` to ``url`` through the egress policy, signed with the watch's
    secret (HMAC-SHA256 of the body in the ``X-Deepcite-Signature`` header)."""

    kind: Literal["webhook"] = "webhook"
    url: Annotated[str, Field(min_length=8, max_length=2000)]

    description: ClassVar[str] = "a signed JSON POST to a URL, through the egress policy"
    form: ClassVar[FormInput | None] = FormInput(
        "webhooks", "Webhook URLs", "(one a line; each gets the change as signed JSON)",
        phrase="to a webhook")
    input_field: ClassVar[str | None] = "url"
    signed: ClassVar[bool] = True

    @field_validator("url")
    @classmethod
    def _http(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")):
            raise ValueError("a webhook URL starts with https:// (or http://)")
        return value

    def checked(self, settings: Settings) -> DeliveryTarget:
        """Refused when the sender would never post to ``url``: the webhook egress
        policy decides, the same policy and function its transport applies at every
        send."""
        problem = webhook_refusal(self.url, webhook_policy(settings))
        if problem is not None:
            raise TargetProblem("url", problem)
        return self

    def shown(self) -> str:
        return f"webhook {self.url}"

    @classmethod
    def sender(cls, context: SendContext) -> Sender | None:
        return WebhookSender(context.settings, secret_for=context.secret_for)


def webhook_policy(settings: Settings) -> EgressPolicy:
    """The egress policy of webhooks: the settings' own, also allowing the entries of
    ``delivery.webhook_allow_private_hosts`` (ConfigError for a bad entry)."""
    policy = EgressPolicy.from_settings(settings)
    extra: list[AllowEntry] = []
    for entry in settings.delivery.webhook_allow_private_hosts:
        try:
            extra.append(AllowEntry.parse(entry))
        except ConfigError:
            raise ConfigError(
                f"delivery.webhook_allow_private_hosts entry {entry!r} is not a host, IP or "
                "CIDR with an optional :port - e.g. 'hooks.lan', '10.0.0.0/8', "
                "'127.0.0.1:8080'") from None
    return replace(policy, allowed=(*policy.allowed, *extra)) if extra else policy


def refusal(url: str, denied: EgressDenied) -> str:
    """The policy's one line on ``url``, naming its origin only (a webhook URL's path is
    often itself a secret) and the webhooks-only setting that would allow it."""
    reason = str(denied).replace(short_url(url), origin(url))
    if "allow_private_hosts" in reason:
        reason += " (or, for webhooks only, delivery.webhook_allow_private_hosts)"
    return reason


def webhook_refusal(url: str, policy: EgressPolicy) -> str | None:
    """Why the sender would refuse to post to ``url`` under ``policy``
    (:func:`webhook_policy`), or ``None``: the policy's own decision, the one its
    transport makes again at every send, asked when a watch is made so that a target
    that can never be sent to is refused at once rather than failing each delivery."""
    try:
        policy.vet(url)
    except EgressDenied as exc:
        return refusal(url, exc)
    return None


def payload(notice: Notice, target_url: str, attachment: Attachment | None = None) -> bytes:
    """The exact body bytes sent (and signed) for ``notice`` to ``target_url``."""
    described: dict[str, Any] | None = None
    if attachment is not None:
        filename, content = attachment
        described = {"filename": filename,
                     "content_type": mimetypes.guess_type(filename)[0]
                     or "application/octet-stream",
                     "size": len(content)}
    data = {
        "event": EVENT,
        "version": 1,
        "delivery": delivery_id(notice, target_url),
        "link": notice.url,
        "notice": notice.model_dump(mode="json"),
        "attachment": described,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def delivery_id(notice: Notice, target_url: str) -> str:
    """The same for every attempt of one notice to one URL (a receiver's dedup key)."""
    digest = hashlib.sha256(f"{notice.watch_id}\n{notice.run_id}\n{target_url}".encode())
    return digest.hexdigest()[:32]


def sign(secret: str | bytes, body: bytes, timestamp: int) -> str:
    """The ``X-Deepcite-Signature`` value of ``body`` sent at ``timestamp``."""
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    message = str(timestamp).encode("ascii") + b"." + body
    return "sha256=" + hmac.new(key, message, hashlib.sha256).hexdigest()


def verify_signature(secret: str | bytes, body: bytes, headers: Mapping[str, str], *,
                     tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
                     now: float | None = None) -> bool:
    """Whether ``body`` with ``headers`` is a notice signed with ``secret``, sent within
    ``tolerance_seconds`` of ``now`` (default: the clock).

    ``body`` must be the raw request bytes, before any JSON parsing; ``headers`` any
    mapping of header names (in any case) to values - a dict, ``http.server``'s
    ``self.headers``, Starlette's ``request.headers``.
    """
    if not secret:
        return False
    lowered = {str(name).lower(): str(value) for name, value in headers.items()}
    stamp = lowered.get(TIMESTAMP_HEADER.lower(), "").strip()
    if not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 12):
        return False
    timestamp = int(stamp)
    if abs((time.time() if now is None else now) - timestamp) > tolerance_seconds:
        return False
    expected = sign(secret, body, timestamp)
    offered = [value.strip() for value in lowered.get(SIGNATURE_HEADER.lower(), "").split(",")]
    return any(hmac.compare_digest(expected.encode(), value.encode("utf-8", "replace"))
               for value in offered if value.startswith("sha256="))


class WebhookSender:
    """Posts notices to :class:`WebhookTarget` s, signed with each watch's secret.

    ``WebhookSender(settings, secret_for=store_lookup)``: ``settings`` gives the egress
    policy (:func:`webhook_policy`) and ``delivery.webhook_timeout_seconds``;
    ``secret_for(watch_id)`` is called on every send. ``clock`` (unix seconds) is for
    tests. One client per :meth:`send`, so a sender is safe to share between threads.
    """

    def __init__(self, settings: Settings, *, secret_for: SecretFor,
                 clock: Callable[[], float] = time.time) -> None:
        self.policy = webhook_policy(settings)
        self.timeout = settings.delivery.webhook_timeout_seconds
        self.secret_for = secret_for
        self.clock = clock

    def send(self, target: DeliveryTarget, notice: Notice, *,
             attachment: Attachment | None) -> None:
        """POST ``notice`` to ``target.url``; DeliveryError unless it answers 2xx."""
        if not isinstance(target, WebhookTarget):
            raise DeliveryError(f"the webhook sender cannot send to a {target.kind} target")
        where = f"Webhook {origin(target.url)}"
        secret = self.secret_for(notice.watch_id)
        if not secret:
            raise DeliveryError(f"{where}: watch {notice.watch_id} has no webhook secret, "
                                "and notices are never sent unsigned - set one on the watch")
        body = payload(notice, target.url, attachment)
        timestamp = int(self.clock())
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "User-Agent": USER_AGENT,
            EVENT_HEADER: EVENT,
            DELIVERY_HEADER: delivery_id(notice, target.url),
            TIMESTAMP_HEADER: str(timestamp),
            SIGNATURE_HEADER: sign(secret, body, timestamp),
        }
        status, retry_after = self._post(where, target.url, body, headers)
        wait = (retry_after_seconds(retry_after, datetime.fromtimestamp(self.clock(), UTC))
                if status in RETRY_AFTER_STATUSES else None)
        _judge(where, status, wait)

    def _post(self, where: str, url: str, body: bytes, headers: dict[str, str]
              ) -> tuple[int, str | None]:
        """The answer's status and ``Retry-After`` header (its body is never read)."""
        client = httpx.Client(transport=EgressTransport(self.policy), timeout=self.timeout,
                              follow_redirects=False)
        try:
            with client, client.stream("POST", url, content=body,
                                       headers=headers) as response:
                return response.status_code, response.headers.get("retry-after")
        except EgressDenied as exc:
            raise DeliveryError(f"{where}: {refusal(url, exc)}") from None
        except httpx.TimeoutException:
            raise DeliveryError(f"{where} did not answer within {self.timeout:g} s",
                                retryable=True) from None
        except httpx.TransportError as exc:
            raise DeliveryError(f"{where} cannot be reached ({type(exc).__name__}: "
                                f"{_short(exc)})", retryable=True) from None
        except httpx.HTTPError as exc:
            raise DeliveryError(f"{where} failed ({type(exc).__name__})") from None


def _judge(where: str, status: int, retry_after: float | None = None) -> None:
    """Nothing for a 2xx answer; else the DeliveryError it is, ``retry_after`` (seconds
    the receiver asked for) carried and named in its one line."""
    if 200 <= status < 300:
        return
    if 300 <= status < 400:
        raise DeliveryError(f"{where} answered {status}, a redirect, which webhooks do not "
                            "follow - set the watch's webhook URL to where it leads",
                            status=status)
    retry = status >= 500 or status in RETRYABLE_4XX
    hint = "" if retry else " - check the webhook URL and its receiver"
    if retry and retry_after is not None:
        hint = f" and asked for {retry_after:.0f} s before the next try (Retry-After)"
    raise DeliveryError(f"{where} answered {status}{hint}", retryable=retry, status=status,
                        retry_after=retry_after if retry else None)


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split()) or "no detail"
    return text if len(text) <= 120 else text[:117] + "..."
