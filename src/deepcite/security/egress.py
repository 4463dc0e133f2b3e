"""The egress policy: where deepcite may connect, decided before every connection.

Two kinds of destination are told apart, because they deserve different trust:

* **configured services** - a SearXNG instance, an Elasticsearch cluster, Ollama, an
  OpenAI-compatible ``base_url``: URLs the user wrote into the settings. The client
  that talks to one is built with that URL, and the policy then allows exactly its
  origin (scheme, host and port) and nothing else, without an allow-list entry;
* **fetch targets** - result URLs, fetched pages and every redirect hop. They come
  from the outside world, so a private, loopback or shared address is refused unless
  ``security.allow_private_hosts`` names it (``10.0.0.0/8``, ``searx.lan``,
  ``127.0.0.1:8888``; an entry with a port allows that port only).

Rules that hold for both:

1. only ``http`` and ``https`` URLs with a host and a valid port;
2. link-local addresses (``169.254.0.0/16``, ``fe80::/10``) and the cloud metadata
   addresses and names are refused always, configured or allowed or not;
3. ``security.offline`` only ever removes permissions: fetch targets need an explicit
   allow-list entry, services must be on this machine or the user's network, and a
   URL it refuses is refused before any DNS lookup;
4. a name that does not resolve is refused, and the addresses the check approved are
   the ones the connection uses (:class:`EgressTransport` pins them), so a DNS answer
   that changes between check and connect (rebinding) cannot pass.

IP spellings that libc accepts (``2130706433``, ``0177.0.0.1``, ``0x7f.1``, ``127.1``)
and IPv4 addresses inside IPv6 ones (``::ffff:127.0.0.1``, ``::127.0.0.1``, 6to4,
NAT64) are judged as the IPv4 address the network stack would reach.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from deepcite.config import Settings
from deepcite.errors import ConfigError, EgressDenied, InputError

ALLOWED_SCHEMES = frozenset({"http", "https"})
DEFAULT_PORTS = {"http": 80, "https": 443}
METADATA_HOSTS = frozenset({
    "metadata", "metadata.google.internal", "metadata.goog", "instance-data",
    "instance-data.ec2.internal", "metadata.azure.internal",
})
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
#: Metadata services that do not live in the link-local range (AWS over IPv6, Alibaba).
METADATA_ADDRESSES = frozenset({
    ipaddress.ip_address("fd00:ec2::254"), ipaddress.ip_address("100.100.100.200"),
})
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NUMERIC_HOST = re.compile(r"^[0-9a-fA-FxX.]+$")

#: (scheme, host, port) of a URL, the unit a configured service is allowed by.
Origin = tuple[str, str, int]


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


def effective_ip(ip: IPAddress) -> IPAddress:
    """The address a connection to ``ip`` really reaches: the IPv4 address inside an
    IPv4-mapped, IPv4-compatible, 6to4 or NAT64 IPv6 address, else ``ip`` itself."""
    if isinstance(ip, ipaddress.IPv4Address):
        return ip
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    value = int(ip)
    if 1 < value < 2**32 or ip in _NAT64:  # ::a.b.c.d (deprecated, still routed)
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    return ip


def is_public(ip: IPAddress) -> bool:
    """Whether ``ip`` is globally routable, judged by the address it really reaches."""
    real = effective_ip(ip)
    return real.is_global and not real.is_multicast


def is_never_allowed(ip: IPAddress) -> bool:
    """Link-local and metadata addresses: refused whatever the settings say."""
    real = effective_ip(ip)
    return real.is_link_local or real in METADATA_ADDRESSES or ip in METADATA_ADDRESSES


@dataclass(frozen=True)
class AllowEntry:
    """One ``security.allow_private_hosts`` entry: a host name or network, maybe a port."""

    host: str | None = None
    network: IPNetwork | None = None
    port: int | None = None

    @classmethod
    def parse(cls, entry: str) -> AllowEntry:
        """``searx.lan``, ``searx.lan:8080``, ``10.0.0.0/8``, ``127.0.0.1:8888``,
        ``[::1]:8888`` or ``::1``; ConfigError for anything else."""
        text = entry.strip().lower().rstrip(".")
        try:
            return cls(network=ipaddress.ip_network(text.strip("[]"), strict=False))
        except ValueError:
            pass
        host, port = text, None
        bracketed = re.fullmatch(r"\[([^\]]+)\](?::(\d+))?", text)
        if bracketed:
            host, port = bracketed.group(1), bracketed.group(2)
        elif text.count(":") == 1:
            host, port = text.split(":")
        # ASCII only: isdigit also takes "²", which int() refuses
        port_number = (int(port) if port and port.isascii() and port.isdigit()
                       and len(port) <= 5 else None)
        literal = parse_ip(host)
        valid_name = re.fullmatch(r"[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?", host) is not None
        if (port is not None and not (port_number and port_number <= 65535)) or \
                not (literal or valid_name):
            raise ConfigError(
                f"security.allow_private_hosts entry {entry!r} is not a host, IP or CIDR "
                "with an optional :port - e.g. 'searx.lan', '10.0.0.0/8', '127.0.0.1:8888'")
        if literal is not None:
            return cls(network=ipaddress.ip_network(literal), port=port_number)
        return cls(host=host, port=port_number)

    def names(self, host: str, port: int) -> bool:
        """Whether the entry names ``host`` (a host name) on ``port``."""
        return self.host == host and self.port in (None, port)

    def covers(self, ip: IPAddress, port: int) -> bool:
        """Whether the entry's network holds ``ip`` (or the IPv4 address inside it)."""
        if self.network is None or self.port not in (None, port):
            return False
        return any(candidate.version == self.network.version and candidate in self.network
                   for candidate in (ip, effective_ip(ip)))


@dataclass(frozen=True)
class Verdict:
    """A URL the policy allowed, and the addresses the connection must use."""

    url: str
    host: str
    port: int
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class EgressPolicy:
    """The policy in force for one client, built from the settings snapshot.

    ``services`` holds the origins this client was built to talk to (see the module
    docstring); :meth:`from_settings` leaves it empty, so a plain policy treats every
    URL as a fetch target.
    """

    offline: bool = False
    allow_private_networks: bool = False
    allowed: tuple[AllowEntry, ...] = ()
    services: frozenset[Origin] = frozenset()

    @classmethod
    def from_settings(cls, settings: Settings | None,
                      services: Iterable[str | None] = ()) -> EgressPolicy:
        """The policy the settings describe, allowing the given service URLs exactly."""
        policy = cls() if settings is None else cls(
            offline=settings.security.offline,
            allow_private_networks=settings.security.allow_private_networks,
            allowed=tuple(AllowEntry.parse(e) for e in settings.security.allow_private_hosts),
        )
        return policy.with_services(services)

    def with_services(self, urls: Iterable[str | None]) -> EgressPolicy:
        """This policy, also allowing the exact origins of ``urls``."""
        origins = {origin for origin in map(origin_of, (u for u in urls if u)) if origin}
        return replace(self, services=self.services | frozenset(origins)) if origins else self

    def check(self, url: str) -> str:
        """Return ``url`` when it may be fetched; raise :class:`EgressDenied` otherwise."""
        return self.vet(url).url

    def vet(self, url: str) -> Verdict:
        """Decide on ``url``; the verdict names the addresses a connection may use."""
        scheme, host, port = _split(url)
        literal = parse_ip(host)
        if host in METADATA_HOSTS:
            raise EgressDenied(f"Refused {short_url(url)}: {host} is a cloud metadata service")
        if literal is not None and is_never_allowed(literal):
            raise EgressDenied(f"Refused {short_url(url)}: {describe_ip(literal)} "
                               f"({literal}) is never contacted")
        if (scheme, host, port) in self.services:
            return self._service(url, host, port, literal)
        named = any(entry.names(host, port) for entry in self.allowed)
        if self.offline and not (named or (literal is not None and self._covers(
                [literal], port))):
            raise EgressDenied(f"Refused {short_url(url)}: offline mode allows only configured "
                               "local services and security.allow_private_hosts")
        addresses = self._resolve(url, host, literal)
        private = [ip for ip in addresses if not is_public(ip)]
        if private and not (named or self.allow_private_networks
                            or self._covers(private, port)):
            raise EgressDenied(
                f"Refused {short_url(url)}: {host} is {describe_ip(private[0])} ({private[0]});"
                f" if you trust it, add {host}:{port} to security.allow_private_hosts")
        return Verdict(url, host, port, tuple(str(ip) for ip in addresses))

    def _service(self, url: str, host: str, port: int, literal: IPAddress | None) -> Verdict:
        addresses = self._resolve(url, host, literal)
        if self.offline and any(is_public(ip) for ip in addresses):
            raise EgressDenied(f"Refused {short_url(url)}: {host} is on the internet and the "
                               "run is offline; use a service on this machine or your network")
        return Verdict(url, host, port, tuple(str(ip) for ip in addresses))

    def _resolve(self, url: str, host: str, literal: IPAddress | None) -> list[IPAddress]:
        if literal is not None:
            return [literal]
        addresses = [ip for ip in map(parse_ip, resolve_host(host)) if ip is not None]
        if not addresses:
            raise EgressDenied(f"Refused {short_url(url)}: {host} does not resolve")
        never = [ip for ip in addresses if is_never_allowed(ip)]
        if never:
            raise EgressDenied(f"Refused {short_url(url)}: {host} is {describe_ip(never[0])} "
                               f"({never[0]}), which is never contacted")
        return addresses

    def _covers(self, addresses: Sequence[IPAddress], port: int) -> bool:
        return bool(addresses) and all(
            any(entry.covers(ip, port) for entry in self.allowed) for ip in addresses)


def origin_of(url: str) -> Origin | None:
    """``(scheme, host, port)`` of an http(s) URL, or ``None`` when it has none."""
    try:
        return _split(url)
    except EgressDenied:
        return None


def _split(url: str) -> Origin:
    """Scheme, normalised host and port of ``url``; EgressDenied for what cannot be
    fetched (no http(s), no host, a malformed host or port)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise EgressDenied(f"Refused {short_url(url)}: malformed URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        shown = f"{scheme}:" if scheme else "a URL without scheme"
        raise EgressDenied(f"Refused {short_url(url)}: {shown} is not fetched, only http and "
                           "https URLs are")
    host = normalise_host(parts.hostname or "")
    if not host:
        raise EgressDenied(f"Refused {short_url(url)}: the URL has no host")
    return scheme, host, port or DEFAULT_PORTS[scheme]


def normalise_host(host: str) -> str:
    """The host as the policy and the connection pins compare it."""
    return host.strip("[]").lower().rstrip(".")


def describe_ip(ip: IPAddress) -> str:
    """What kind of non-public address ``ip`` is, for messages."""
    real = effective_ip(ip)
    if real.is_link_local or ip in METADATA_ADDRESSES or real in METADATA_ADDRESSES:
        return "a link-local address (cloud metadata services live there)"
    if real.is_loopback:
        return "a loopback address"
    if real.is_private:
        return "a private-network address"
    return "not a public address"


def short_url(url: str) -> str:
    """The URL for a message: credentials removed, long ones shortened."""
    try:
        parts = urlsplit(url)
        if parts.username or parts.password:
            url = url.replace(parts.netloc, parts.netloc.rsplit("@", 1)[-1], 1)
    except ValueError:
        url = url.split("@", 1)[-1] if "@" in url else url
    return url if len(url) <= 80 else url[:77] + "..."


def check_url(url: str, settings: Settings | None = None) -> str:
    """Return ``url`` if it may be fetched as a fetch target, else raise EgressDenied."""
    if not isinstance(url, str):
        raise InputError(f"check_url() takes the URL as text (str), not {type(url).__name__}")
    if settings is not None and not isinstance(settings, Settings):
        raise InputError("check_url() takes a Settings object or None as settings")
    return EgressPolicy.from_settings(settings).check(url)

