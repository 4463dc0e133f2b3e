"""HTTP for search engines: egress-checked, time-limited, retried, rate-limited.

Every engine talks to its API through an :class:`EngineHTTP`, so the rules live in
one place: the egress policy runs on each request and redirect hop, and allows the
engine's own configured service URL (a SearXNG instance, a cluster) exactly; each
request has
the engine's timeout; 429, 5xx, timeouts and connection errors are retried with
exponential backoff (honouring ``Retry-After``); requests are spaced to the engine's
rate limit. Whatever still fails becomes one :class:`SearchError` line naming the
engine, the host and what happened.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from deepcite._version import __version__ as _version
from deepcite.config import Settings
from deepcite.errors import EgressDenied, SearchError
from deepcite.security.egress import EgressPolicy
from deepcite.security.transport import egress_client

logger = logging.getLogger(__name__)

USER_AGENT = f"deepcite/{_version} (+https://pypi.org/project/deepcite/)"
MAX_BACKOFF_SECONDS = 8.0


def _sleep(seconds: float) -> None:
    """Backoff and rate-limit pauses; tests replace it to run instantly."""
    time.sleep(seconds)


class _Retryable(Exception):
    """A failure worth another attempt (429, 5xx, timeout, connection error)."""

    def __init__(self, message: str, retry_after: float | None = None,
                 status: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class RateLimiter:
    """Spaces request starts at least ``1 / rate`` seconds apart, across threads."""

    def __init__(self, rate_per_second: float | None) -> None:
        self._interval = 1.0 / rate_per_second if rate_per_second else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Block until the next request may start."""
        if not self._interval:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self._interval
        if start > now:
            _sleep(start - now)


class EngineHTTP:
    """The HTTP client of one engine instance."""

    def __init__(
        self,
        engine: str,
        settings: Settings,
        *,
        default_rate: float | None = None,
        headers: Mapping[str, str] | None = None,
        services: Sequence[str] = (),
    ) -> None:
        self.engine = engine
        cfg = settings.engines
        self._retries = cfg.max_retries
        self._limiter = RateLimiter(cfg.rate_per_second.get(engine, default_rate))
        self.policy = EgressPolicy.from_settings(settings, services)
        self._client = egress_client(
            self.policy, timeout=cfg.timeout_seconds,
            headers={"User-Agent": USER_AGENT, **(headers or {})},
        )

    def close(self) -> None:
        """Release the connection pool."""
        self._client.close()

    def get_json(self, url: str, *, params: Mapping[str, Any] | None = None,
                 headers: Mapping[str, str] | None = None) -> Any:
        """GET ``url`` and decode JSON; SearchError on failure or malformed JSON."""
        return _decode_json(self.engine, self.request("GET", url, params=params,
                                                      headers=headers))

    def post_json(self, url: str, *, json_body: Any = None,
                  headers: Mapping[str, str] | None = None) -> Any:
        """POST a JSON body and decode the JSON reply."""
        return _decode_json(self.engine, self.request("POST", url, json_body=json_body,
                                                      headers=headers))

    def get_text(self, url: str, *, params: Mapping[str, Any] | None = None,
                 headers: Mapping[str, str] | None = None) -> str:
        """GET ``url`` and return the body as text (XML feeds, HTML)."""
        return self.request("GET", url, params=params, headers=headers).text

    def request(self, method: str, url: str, *, params: Mapping[str, Any] | None = None,
                json_body: Any = None, headers: Mapping[str, str] | None = None,
                form: Mapping[str, str] | None = None) -> httpx.Response:
        """One request with the policy, limits and retries applied (``form``: a
        URL-encoded form body, what HTML search pages take)."""
        host = httpx.URL(url).host
        attempts = self._retries + 1
        retrying = Retrying(
            stop=stop_after_attempt(attempts),
            wait=_backoff,
            retry=retry_if_exception(lambda exc: isinstance(exc, _Retryable)),
            sleep=_sleep,
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    return self._once(method, url, params, json_body, headers, form)
        except _Retryable as exc:
            raise SearchError(f"{self.engine}: {exc} from {host} after {attempts} "
                              f"attempt{'s' if attempts > 1 else ''}",
                              status=exc.status) from exc
        raise SearchError(f"{self.engine}: no attempt was made")  # pragma: no cover

    def _once(self, method: str, url: str, params: Mapping[str, Any] | None,
              json_body: Any, headers: Mapping[str, str] | None,
              form: Mapping[str, str] | None = None) -> httpx.Response:
        self._limiter.wait()
        try:
            response = self._client.request(method, url, params=params, json=json_body,
                                            headers=headers, data=form)
        except EgressDenied as exc:
            raise SearchError(f"{self.engine}: {exc}") from exc
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timed out ({type(exc).__name__})") from exc
        except httpx.TransportError as exc:
            raise _Retryable(f"connection failed ({type(exc).__name__}: {exc})") from exc
        status = response.status_code
        if status == 429 or status >= 500:
            raise _Retryable(f"HTTP {status} {response.reason_phrase}",
                             _retry_after(response), status)
        if status >= 400:
            hint = " - check the API key" if status in (401, 403) else ""
            raise SearchError(f"{self.engine}: HTTP {status} {response.reason_phrase} from "
                              f"{response.url.host}{hint}", status=status)
        return response


def _backoff(retry_state: Any) -> float:
    exc = retry_state.outcome.exception() if retry_state.outcome else None
    if isinstance(exc, _Retryable) and exc.retry_after is not None:
        return min(exc.retry_after, MAX_BACKOFF_SECONDS)
    return float(wait_exponential(multiplier=0.5, max=MAX_BACKOFF_SECONDS)(retry_state))


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _decode_json(engine: str, response: httpx.Response) -> Any:
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SearchError(f"{engine}: malformed JSON from {response.url.host} "
                          f"({exc.__class__.__name__})") from exc
