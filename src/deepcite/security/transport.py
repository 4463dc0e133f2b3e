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
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

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
    """Connects to the approved addresses of a host, never to a fresh DNS answer."""

    def __init__(self, pins: _Pins) -> None:
        self._pins = pins
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        addresses = self._pins.get(host, port)
        if not addresses:
            raise httpcore.ConnectError(f"{host}:{port} was not approved by the egress policy")
        failure: httpcore.ConnectError | None = None
        for address in addresses:
            try:
                return self._inner.connect_tcp(address, port, timeout, local_address,
                                               socket_options)
            except httpcore.ConnectError as exc:  # try the next approved address
                failure = exc
        assert failure is not None
        raise failure

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None
                            ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not reachable through the egress policy")

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
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_PinnedBackend(self._pins),
        )

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
