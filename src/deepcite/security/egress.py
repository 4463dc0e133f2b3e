"""The egress policy: every outbound request deepcite makes passes :func:`check_url`.

Rules, in order:

1. only ``http`` and ``https`` URLs with a host;
2. with ``security.offline`` only configured local services are reachable (hosts in
   ``security.allow_private_hosts`` and the hosts of service URLs such as
   ``engines.searxng_url`` that are themselves local);
3. the host is resolved, and if any address is not globally routable (private,
   loopback, link-local - which includes the 169.254.169.254 cloud metadata service -,
   shared, reserved, unspecified) or the name is a known metadata host, the request is
   refused unless the user allowed private networks or that host/IP/CIDR.

IP spellings that browsers and libc accept (``2130706433``, ``0177.0.0.1``,
``0x7f.1``, ``127.1``) are read the way the network stack would read them, so they
cannot sneak a loopback address past the check. HTTP clients call the check for every
redirect hop through :func:`request_hook`.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from deepcite.config import Settings
from deepcite.errors import EgressDenied

ALLOWED_SCHEMES = frozenset({"http", "https"})
METADATA_HOSTS = frozenset({
    "metadata", "metadata.google.internal", "metadata.goog", "instance-data",
    "instance-data.ec2.internal", "metadata.azure.internal",
})
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_NUMERIC_HOST = re.compile(r"^[0-9a-fA-FxX.]+$")


def resolve_host(host: str) -> list[str]:
    """Addresses ``host`` resolves to; empty when it does not resolve.

    Module-level so tests can replace DNS with a fixed table.
    """
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError, OSError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def parse_ip(host: str) -> IPAddress | None:
    """``host`` as an IP address, including the inet_aton spellings; else ``None``."""
    candidate = host.strip("[]")
    try:
        return ipaddress.ip_address(candidate.split("%", 1)[0])
    except ValueError:
        pass
    if _NUMERIC_HOST.match(candidate) and any(ch.isdigit() for ch in candidate):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(candidate))
        except OSError:
            return None
    return None


def is_public(ip: IPAddress) -> bool:
    """Whether ``ip`` is globally routable (IPv4-mapped IPv6 judged as its IPv4)."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


@dataclass(frozen=True)
class EgressPolicy:
    """The policy in force for one run, built from the settings snapshot."""

    offline: bool = False
    allow_private_networks: bool = False
    allowed_hosts: frozenset[str] = frozenset()
    allowed_networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    local_services: frozenset[str] = frozenset()

    @classmethod
    def from_settings(cls, settings: Settings | None) -> EgressPolicy:
        """The policy the settings describe (defaults when ``settings`` is None)."""
        if settings is None:
            return cls()
        hosts, networks = _split_allow_list(settings.security.allow_private_hosts)
        services = [settings.engines.searxng_url, settings.engines.elasticsearch_url,
                    settings.llm.ollama_url, settings.llm.base_url,
                    os.environ.get("SEARXNG_URL"), os.environ.get("ELASTICSEARCH_URL")]
        service_hosts = {(urlsplit(u).hostname or "").lower() for u in services if u}
        return cls(
            offline=settings.security.offline,
            allow_private_networks=settings.security.allow_private_networks,
            allowed_hosts=frozenset(hosts),
            allowed_networks=tuple(networks),
            local_services=frozenset(service_hosts - {""}),
        )

    def check(self, url: str) -> str:
        """Return ``url`` when it may be fetched; raise :class:`EgressDenied` otherwise."""
        parts = urlsplit(url.strip())
        scheme = parts.scheme.lower()
        if scheme not in ALLOWED_SCHEMES:
            shown = f"{scheme}:" if scheme else "a URL without scheme"
            raise EgressDenied(f"Refused {_short(url)}: {shown} is not fetched, only http and "
                               "https URLs are")
        host = (parts.hostname or "").lower().rstrip(".")
        if not host:
            raise EgressDenied(f"Refused {_short(url)}: the URL has no host")
        addresses = self._addresses(host)
        private = [ip for ip in addresses if not is_public(ip)]
        if self.offline:
            local = host in self.local_services and (private or not addresses)
            if not (local or self._explicitly_allowed(host, addresses)):
                raise EgressDenied(f"Refused {_short(url)}: offline mode allows only configured "
                                   "local services (security.allow_private_hosts)")
            return url
        if host in METADATA_HOSTS and not self._explicitly_allowed(host, addresses):
            raise EgressDenied(f"Refused {_short(url)}: {host} is a cloud metadata service")
        if private and not self.allow_private_networks and not self._explicitly_allowed(
                host, private):
            raise EgressDenied(
                f"Refused {_short(url)}: {host} is {_kind(private[0])} ({private[0]}); if "
                f"you trust it, add it to security.allow_private_hosts"
            )
        return url

    def _addresses(self, host: str) -> list[IPAddress]:
        literal = parse_ip(host)
        if literal is not None:
            return [literal]
        found = []
        for text in resolve_host(host):
            ip = parse_ip(text)
            if ip is not None:
                found.append(ip)
        return found

    def _explicitly_allowed(self, host: str, addresses: Iterable[IPAddress]) -> bool:
        if host in self.allowed_hosts:
            return True
        candidates = list(addresses)
        return bool(candidates) and all(
            any(ip in net for net in self.allowed_networks if ip.version == net.version)
            for ip in candidates
        )


def _kind(ip: IPAddress) -> str:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (cloud metadata services live there)"
    if ip.is_private:
        return "a private-network address"
    return "not a public address"


def _split_allow_list(
    entries: Iterable[str],
) -> tuple[set[str], list[ipaddress.IPv4Network | ipaddress.IPv6Network]]:
    hosts: set[str] = set()
    networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    for entry in entries:
        text = entry.strip().lower()
        try:
            networks.append(ipaddress.ip_network(text.strip("[]"), strict=False))
        except ValueError:
            hosts.add(text.rstrip("."))
    return hosts, networks


def _short(url: str) -> str:
    """The URL for a message: credentials removed, long ones shortened."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        url = url.replace(parts.netloc, parts.netloc.rsplit("@", 1)[-1], 1)
    return url if len(url) <= 80 else url[:77] + "..."


def check_url(url: str, settings: Settings | None = None) -> str:
    """Return ``url`` if the egress policy allows fetching it, else raise EgressDenied."""
    return EgressPolicy.from_settings(settings).check(url)


def request_hook(policy: EgressPolicy) -> Callable[[httpx.Request], None]:
    """An httpx ``request`` event hook: runs the check on every request and redirect hop."""

    def hook(request: httpx.Request) -> None:
        policy.check(str(request.url))

    return hook
