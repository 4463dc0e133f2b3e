"""When a failed delivery is tried again: exponential backoff with bounded jitter.

Pure functions, for the watch store, which keeps each delivery's attempts and the time
of its next one. After the ``n``-th failed try the wait is ``base * 2**(n-1)`` seconds,
at most ``max_seconds``, then scaled by a factor between 0.5 and 1 (jitter, so that the
deliveries of one outage do not all come back at the same second). The jitter is drawn
from ``seed`` when one is given (the delivery's id, say), so one delivery's schedule is
the same on every computation, and from the system's randomness otherwise; either way
the wait is never longer than the capped backoff nor shorter than half of it.

A target may ask for more: a webhook answering 429 or 503 with ``Retry-After`` (seconds,
or an HTTP-date) is not tried again before then (:func:`retry_after_seconds` reads the
header, at most :data:`MAX_RETRY_AFTER_SECONDS` - a day - so that a receiver cannot
park a delivery for ever; ``next_attempt(..., not_before=...)`` honours it). It only
ever delays: a ``Retry-After`` shorter than the backoff leaves the backoff.
"""

from __future__ import annotations

import random
import smtplib
import ssl
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

import httpx

from deepcite.errors import DeepciteError, DeliveryError

__all__ = ["MAX_RETRY_AFTER_SECONDS", "backoff_seconds", "next_attempt", "retry_after_seconds",
           "retryable"]

DEFAULT_MAX_SECONDS = 6 * 3600.0
#: The longest ``Retry-After`` honoured (a day); a longer one is cut to it.
MAX_RETRY_AFTER_SECONDS = 24 * 3600.0


def backoff_seconds(attempts: int, base_seconds: float, *,
                    max_seconds: float = DEFAULT_MAX_SECONDS,
                    seed: str | int | None = None) -> float:
    """The wait after the ``attempts``-th failed try (1 for the first), in seconds:
    between half and all of ``min(max_seconds, base_seconds * 2**(attempts-1))``."""
    if attempts < 1:
        raise ValueError(f"attempts counts the tries made, at least 1 (got {attempts})")
    if base_seconds <= 0 or max_seconds <= 0:
        raise ValueError("base_seconds and max_seconds must be positive")
    capped = min(max_seconds, base_seconds * 2.0 ** min(attempts - 1, 64))
    draw = (random.Random(f"{seed}:{attempts}").random() if seed is not None
            else random.SystemRandom().random())
    return capped * (0.5 + 0.5 * draw)


def next_attempt(attempts: int, now: datetime, base_seconds: float, max_attempts: int, *,
                 max_seconds: float = DEFAULT_MAX_SECONDS,
                 seed: str | int | None = None,
                 not_before: datetime | None = None) -> datetime | None:
    """When to try a delivery again after its ``attempts``-th failed try, or ``None``
    when it has had its ``max_attempts`` tries (it is then failed for good).

    ``now`` is the time of the failed try (its timezone is kept); with
    ``settings.delivery``: ``next_attempt(n, now, d.backoff_base_seconds,
    d.max_attempts, max_seconds=d.backoff_max_seconds, seed=delivery_id)``.
    ``not_before`` is the earliest the target will take it (its ``Retry-After``): the
    later of it and the backoff is the answer.
    """
    if attempts >= max_attempts:
        return None
    wait = backoff_seconds(attempts, base_seconds, max_seconds=max_seconds, seed=seed)
    backoff = now + timedelta(seconds=wait)
    return backoff if not_before is None or not_before <= backoff else not_before


def retry_after_seconds(value: str | None, now: datetime) -> float | None:
    """A ``Retry-After`` header value as seconds from ``now`` (aware), at most
    :data:`MAX_RETRY_AFTER_SECONDS`; 0 for a date already past, ``None`` when there is
    none or it is neither delta-seconds nor an HTTP-date (RFC 9110 10.2.3) - a
    malformed header is ignored, the backoff alone then decides."""
    text = (value or "").strip()
    if not text:
        return None
    if text.isascii() and text.isdigit():
        return min(float(int(text[:12])), MAX_RETRY_AFTER_SECONDS)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000": UTC by the RFC
        when = when.replace(tzinfo=UTC)
    seconds = (when - now).total_seconds()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_SECONDS)


def retryable(error: BaseException) -> bool:
    """Whether a later attempt may succeed where the one that raised ``error`` failed.

    A :class:`DeliveryError` says so itself. Of other exceptions, timeouts and network
    failures are worth another try; every other deepcite error (an egress refusal, a bad
    setting) and an untrusted certificate are not, nor is anything unexpected.
    """
    if isinstance(error, DeliveryError):
        return error.retryable
    if isinstance(error, DeepciteError | ssl.SSLCertVerificationError):
        return False
    if isinstance(error, smtplib.SMTPResponseException):
        return 400 <= error.smtp_code < 500
    return isinstance(error, httpx.TimeoutException | httpx.NetworkError | TimeoutError
                      | ConnectionError | smtplib.SMTPServerDisconnected)
