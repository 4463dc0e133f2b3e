"""Which address a request comes from: the one answer the web app and MCP both use.

Two questions depend on it, and they are not the same question:

- **Is the request from a proxy we trust?** (the trusted-user-header login). Only the
  socket peer answers that: a header cannot make a client a proxy.
- **Whom does the request stand for?** (the throttles' key, the audit log's address).
  The socket peer, unless the peer is a proxy the operator named in
  ``web.trusted_proxies``: then the right-most ``X-Forwarded-For`` entry that is not
  itself a named proxy - the address the nearest untrusted hop connected from. Entries
  left of it were written by the client and prove nothing.

Nothing else is believed: not ``X-Forwarded-For`` from any other peer (loopback
included - uvicorn's own proxy-header handling, which trusts loopback by default and
reads ``FORWARDED_ALLOW_IPS``, is switched off wherever deepcite starts uvicorn, see
:mod:`deepcite.security.http_server`), not the RFC 7239 ``Forwarded`` header. A named
proxy's ``X-Forwarded-Proto`` sets the request's scheme, so links and the cookies'
``Secure`` flag follow the proxy's TLS.

The middleware in front of each app calls :func:`note_client` once per request; every
later reader asks :func:`client_of` (the answer) or :func:`peer_of` (the socket peer).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, MutableMapping, Sequence
from typing import Any

from deepcite.config_sections import proxy_entry_problem
from deepcite.errors import InputError

__all__ = ["SCOPE_KEY", "TrustedProxies", "client_of", "note_client", "peer_of"]

#: Where :func:`note_client` keeps the answer in the request's ASGI scope.
SCOPE_KEY = "deepcite.client_address"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Scope = MutableMapping[str, Any]


def _address(text: str) -> Address | None:
    """``text`` as an IP address (an IPv4-mapped IPv6 one as IPv4), accepting the
    ``1.2.3.4:port`` and ``[2001:db8::1]:port`` forms some proxies write; ``None`` when
    it is not one (``unknown``, an obfuscated ``_id``, junk a client sent)."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1:text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


class TrustedProxies:
    """The proxies an operator named (``web.trusted_proxies``: addresses or CIDRs,
    checked when the settings load); an :class:`~deepcite.errors.InputError` for an
    entry that is neither."""

    def __init__(self, entries: Iterable[str] = ()) -> None:
        networks: list[Network] = []
        for entry in entries:
            problem = proxy_entry_problem(entry)
            if problem:
                raise InputError(f"web.trusted_proxies: {problem}")
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        self._networks = tuple(networks)

    def __bool__(self) -> bool:
        return bool(self._networks)

    def trusts(self, host: str | None) -> bool:
        """Whether ``host`` (a socket peer) is a named proxy."""
        address = _address(host) if host else None
        return address is not None and self._contains(address)

    def _contains(self, address: Address) -> bool:
        return any(address in network for network in self._networks)

    def client(self, peer: str | None, forwarded_for: Sequence[str]) -> str | None:
        """Whom a request from ``peer`` stands for, given its ``X-Forwarded-For`` header
        values (in order; several headers are one list): ``peer`` unless it is a named
        proxy; then the right-most entry not itself a named proxy, or the left-most
        when all are. Walking leftwards stops at an entry that is no address: what the
        nearest proxy did not vouch for as an address is not believed, and the last
        hop read stands."""
        if not self.trusts(peer):
            return peer
        nearest = peer
        for entry in reversed([part for value in forwarded_for for part in value.split(",")]):
            address = _address(entry)
            if address is None:
                break
            nearest = str(address)
            if not self._contains(address):
                break
        return nearest

    def scheme(self, peer: str | None, forwarded_proto: str | None, scheme: str) -> str:
        """The scheme of a request that came in as ``scheme``: ``X-Forwarded-Proto``'s
        last value when ``peer`` is a named proxy and it says ``http`` or ``https``."""
        if forwarded_proto is None or scheme not in ("http", "https") \
                or not self.trusts(peer):
            return scheme
        said = forwarded_proto.split(",")[-1].strip().lower()
        return said if said in ("http", "https") else scheme


def peer_of(scope: Scope) -> str | None:
    """The socket peer's address (``None``: a unix socket, where there is none)."""
    client = scope.get("client")
    return str(client[0]) if client else None


def _values(scope: Scope, name: bytes) -> list[str]:
    return [bytes(value).decode("latin-1") for key, value in scope.get("headers") or ()
            if bytes(key).lower() == name]


def note_client(scope: Scope, proxies: TrustedProxies) -> None:
    """Decide once whom the request in ``scope`` stands for (see the module docstring)
    and keep it in the scope for :func:`client_of`; a named proxy's
    ``X-Forwarded-Proto`` becomes the scope's scheme. The socket peer stays in
    ``scope["client"]``, for :func:`peer_of`."""
    if SCOPE_KEY in scope:
        return
    peer = peer_of(scope)
    scope[SCOPE_KEY] = proxies.client(peer, _values(scope, b"x-forwarded-for"))
    if scope.get("type") == "http":
        protos = _values(scope, b"x-forwarded-proto")
        scope["scheme"] = proxies.scheme(peer, protos[-1] if protos else None,
                                         str(scope.get("scheme", "http")))


def client_of(scope: Scope) -> str | None:
    """Whom the request stands for, as :func:`note_client` decided; the socket peer
    when nothing decided (no forwarded header is ever believed by default)."""
    if SCOPE_KEY in scope:
        noted: str | None = scope[SCOPE_KEY]
        return noted
    return peer_of(scope)
