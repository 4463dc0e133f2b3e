"""An httpx transport that enforces the egress policy and pins what it approved.

An event hook can check a URL, but the connection that follows resolves the name
again, and a DNS server that answers "public" to the check and "loopback" to the
connect (rebinding) walks straight past it. :class:`EgressTransport` closes that gap:
it vets every request - each redirect hop reaches the transport as its own request -
records the addresses the policy approved for that host and port, and its network
backend connects to those addresses only. A connection to a host nothing approved is
refused outright.

URLs, ``Host`` headers and TLS names are left as they are, so certificates are checked
against the real host name; only the TCP connect is pinned.

Model SDKs bring their own HTTP: :func:`sdk_egress_client` builds the same pinned
client from the httpx an SDK requires (newer ``anthropic`` releases insist on
``httpx2``, a fork with the same API), and :func:`refusing_transport` stands in for
the async clients deepcite never calls, so nothing an SDK holds connects unpinned.
"""

from __future__ import annotations

import functools
import importlib
import threading
from collections.abc import Iterable
from types import ModuleType
from typing import Any

import httpcore
import httpx

from deepcite.errors import EgressDenied
from deepcite.security.egress import EgressPolicy, normalise_host

DEFAULT_LIMITS = httpx.Limits(max_connections=20, max_keepalive_connections=10)


class _Pins:
    """Addresses approved per (host, port), shared by the transport and its backend."""

    def __init__(self) -> None:
        self._table: dict[tuple[str, int], tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def set(self, host: str, port: int, addresses: tuple[str, ...]) -> None:
        with self._lock:
            self._table[(normalise_host(host), port)] = addresses

    def get(self, host: str, port: int) -> tuple[str, ...]:
        with self._lock:
            return self._table.get((normalise_host(host), port), ())


class _PinnedBackend(httpcore.NetworkBackend):
    """Connects to the approved addresses of a host, never to a fresh DNS answer.

    ``core`` is the httpcore the pool comes from (``httpcore`` or the fork
    ``httpcore2``); the pool only calls these methods, so one class serves both.
    """

    def __init__(self, pins: _Pins, core: ModuleType = httpcore) -> None:
        self._pins = pins
        self._inner: httpcore.SyncBackend = core.SyncBackend()
        self._error: type[Exception] = core.ConnectError

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        addresses = self._pins.get(host, port)
        if not addresses:
            raise self._error(f"{host}:{port} was not approved by the egress policy")
        failure: Exception | None = None
        for address in addresses:
            try:
                return self._inner.connect_tcp(address, port, timeout, local_address,
                                               socket_options)
            except self._error as exc:  # try the next approved address
                failure = exc
        assert failure is not None
        raise failure

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None
                            ) -> httpcore.NetworkStream:
        raise self._error("unix sockets are not reachable through the egress policy")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class EgressTransport(httpx.HTTPTransport):
    """``httpx.HTTPTransport`` that vets each request and pins its connection.

    Raises :class:`deepcite.errors.EgressDenied` (out of ``client.request``) for a
    refused URL or redirect hop. Environment proxies are not used: a proxy would
    connect on our behalf, past the pinning.
    """

    def __init__(self, policy: EgressPolicy, limits: httpx.Limits = DEFAULT_LIMITS) -> None:
        super().__init__(trust_env=False, limits=limits)
        self.policy = policy
        self._pins = _Pins()
        self._pool = _pinned_pool(httpx, httpcore, self._pins, limits)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        verdict = self.policy.vet(str(request.url))
        self._pins.set(verdict.host, verdict.port, verdict.addresses)
        return super().handle_request(request)


def egress_client(policy: EgressPolicy, *, timeout: float,
                  headers: dict[str, str] | None = None, max_redirects: int = 5) -> httpx.Client:
    """An httpx client whose every request and redirect hop obeys ``policy``."""
    return httpx.Client(transport=EgressTransport(policy), timeout=timeout,
                        follow_redirects=True, max_redirects=max_redirects,
                        headers=headers)


def _pinned_pool(http: ModuleType, core: ModuleType, pins: _Pins, limits: Any) -> Any:
    """A connection pool of ``core`` whose connects go through :class:`_PinnedBackend`."""
    return core.ConnectionPool(
        ssl_context=http.create_ssl_context(),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=_PinnedBackend(pins, core),
    )


@functools.cache
def _fork_transport(http_name: str) -> Any:
    """:class:`EgressTransport` rebuilt on ``http_name`` (an httpx fork) and its httpcore.

    The fork's client accepts only its own transport class, so the class is made per
    fork; vetting and pinning are the same as :class:`EgressTransport`'s.
    """
    http = importlib.import_module(http_name)
    core = importlib.import_module("httpcore" + http_name.removeprefix("httpx"))

    class ForkEgressTransport(http.HTTPTransport):  # type: ignore[misc,name-defined]
        def __init__(self, policy: EgressPolicy) -> None:
            limits = http.Limits(max_connections=DEFAULT_LIMITS.max_connections,
                                 max_keepalive_connections=DEFAULT_LIMITS.max_keepalive_connections)
            super().__init__(trust_env=False, limits=limits)
            self.policy = policy
            self._pins = _Pins()
            self._pool = _pinned_pool(http, core, self._pins, limits)

        def handle_request(self, request: Any) -> Any:
            verdict = self.policy.vet(str(request.url))
            self._pins.set(verdict.host, verdict.port, verdict.addresses)
            return super().handle_request(request)

    ForkEgressTransport.__name__ = ForkEgressTransport.__qualname__ = "EgressTransport"
    return ForkEgressTransport


def sdk_egress_client(http_name: str, policy: EgressPolicy, *, timeout: float) -> Any:
    """:func:`egress_client` made of ``http_name`` (``httpx`` or a fork an SDK requires)."""
    if http_name == "httpx":
        return egress_client(policy, timeout=timeout)
    http = importlib.import_module(http_name)
    return http.Client(transport=_fork_transport(http_name)(policy), timeout=timeout,
                       follow_redirects=True, max_redirects=5)


ASYNC_REFUSED = ("async model calls are not made through the egress policy's pinned "
                 "client - deepcite calls its models synchronously")


@functools.cache
def _refusing_transport(http_name: str) -> Any:
    http = importlib.import_module(http_name)

    class RefusingAsyncTransport(http.AsyncBaseTransport):  # type: ignore[misc,name-defined]
        """Refuses every request: no connection is made that the policy did not pin."""

        async def handle_async_request(self, request: Any) -> Any:
            raise EgressDenied(f"Refused {request.url.host}: {ASYNC_REFUSED}")

    return RefusingAsyncTransport


def refusing_transport(http_name: str = "httpx") -> Any:
    """An async transport of ``http_name`` that connects nowhere (see ASYNC_REFUSED).

    The SDKs build an async client next to the sync one; deepcite never calls it, and
    an async pinned backend would be code with no caller. A call that reaches it fails
    with :class:`~deepcite.errors.EgressDenied` instead of connecting unpinned.
    """
    return _refusing_transport(http_name)()
