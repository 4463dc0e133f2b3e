"""Which address a request comes from (:mod:`deepcite.security.client_address`): the
socket peer, unless the peer is a proxy the operator named; then the right-most
``X-Forwarded-For`` entry that is not itself a named proxy. And what may name a proxy.

The rule on its own here, many cases; tests/unit/test_proxy_trust.py shows it through
real servers as ``deepcite serve`` and ``deepcite mcp`` start them.
"""

from __future__ import annotations

import pytest

from deepcite.config import load_settings
from deepcite.errors import ConfigError, InputError
from deepcite.security.client_address import (
    SCOPE_KEY,
    TrustedProxies,
    client_of,
    note_client,
    peer_of,
)

PROXIES = TrustedProxies(["10.0.0.5", "10.1.0.0/16", "2001:db8:1::/48"])


@pytest.mark.parametrize(("peer", "forwarded"), [
    ("127.0.0.1", ["10.0.0.5"]),                   # the attack: loopback naming the proxy
    ("127.0.0.1", ["203.0.113.7"]),
    ("::1", ["10.0.0.5, 10.1.2.3"]),
    ("198.51.100.4", ["10.0.0.5"]),
    ("10.0.0.6", ["192.0.2.1"]),                   # next to a proxy is not a proxy
    ("2001:db8:2::1", ["2001:db8:1::9"]),
])
def test_a_peer_that_is_no_named_proxy_is_itself_whatever_it_forwards(
        peer: str, forwarded: list[str]) -> None:
    assert PROXIES.client(peer, forwarded) == peer
    assert not PROXIES.trusts(peer)


@pytest.mark.parametrize(("peer", "forwarded", "client"), [
    ("10.0.0.5", ["203.0.113.7"], "203.0.113.7"),
    # what the client wrote left of what the proxy appended proves nothing
    ("10.0.0.5", ["10.0.0.5, 1.1.1.1, 203.0.113.7"], "203.0.113.7"),
    ("10.0.0.5", ["1.1.1.1", "203.0.113.7"], "203.0.113.7"),  # several headers: one list
    # a chain of named proxies: the first address none of them is
    ("10.0.0.5", ["1.1.1.1, 203.0.113.7, 10.1.4.4"], "203.0.113.7"),
    ("10.1.9.9", ["198.51.100.3 , 10.0.0.5"], "198.51.100.3"),
    # all of them named: the furthest one
    ("10.0.0.5", ["10.1.0.1, 10.1.0.2"], "10.1.0.1"),
    # the forms proxies write: with ports, bracketed, IPv4-mapped
    ("10.0.0.5", ["203.0.113.7:51234"], "203.0.113.7"),
    ("10.0.0.5", ["[2001:db8:9::5]:443"], "2001:db8:9::5"),
    ("10.0.0.5", ["::ffff:203.0.113.7"], "203.0.113.7"),
    ("::ffff:10.0.0.5", ["203.0.113.7"], "203.0.113.7"),  # a dual-stack socket's peer
    ("2001:db8:1::10", ["2001:db8:7::1"], "2001:db8:7::1"),
    # no header, or what is no address: the nearest hop that was read
    ("10.0.0.5", [], "10.0.0.5"),
    ("10.0.0.5", ["unknown"], "10.0.0.5"),
    ("10.0.0.5", ["203.0.113.7, _hidden"], "10.0.0.5"),
    ("10.0.0.5", ["203.0.113.7, garbage, 10.1.0.1"], "10.1.0.1"),
    ("10.0.0.5", [""], "10.0.0.5"),
])
def test_a_named_proxy_stands_for_the_address_it_forwards(
        peer: str, forwarded: list[str], client: str) -> None:
    assert PROXIES.trusts(peer)
    assert PROXIES.client(peer, forwarded) == client


def test_nothing_is_believed_without_named_proxies_or_a_peer() -> None:
    nobody = TrustedProxies()
    assert not nobody
    assert nobody.client("127.0.0.1", ["10.0.0.5"]) == "127.0.0.1"
    assert PROXIES.client(None, ["203.0.113.7"]) is None  # a unix socket
    assert not PROXIES.trusts(None) and not PROXIES.trusts("testclient")


def test_the_scope_keeps_the_peer_and_notes_whom_the_request_stands_for() -> None:
    scope = {"type": "http", "scheme": "http", "client": ("10.0.0.5", 40000),
             "headers": [(b"x-forwarded-for", b"203.0.113.7"),
                         (b"x-forwarded-proto", b"https")]}
    assert client_of(scope) == "10.0.0.5"  # undecided: the peer, never a header
    note_client(scope, PROXIES)
    assert (peer_of(scope), client_of(scope), scope["scheme"]) == (
        "10.0.0.5", "203.0.113.7", "https")
    stranger = {**scope, "client": ("127.0.0.1", 40000)}
    stranger.pop(SCOPE_KEY)
    stranger["scheme"] = "http"
    note_client(stranger, PROXIES)
    assert (client_of(stranger), stranger["scheme"]) == ("127.0.0.1", "http")


@pytest.mark.parametrize(("proto", "scheme"), [
    ("https", "https"), ("HTTPS", "https"), ("http", "http"), ("http, https", "https"),
    ("gopher", "http"), ("", "http")])
def test_a_named_proxys_scheme_counts_when_it_is_http_or_https(proto: str,
                                                              scheme: str) -> None:
    assert PROXIES.scheme("10.0.0.5", proto, "http") == scheme
    assert PROXIES.scheme("127.0.0.1", proto, "http") == "http"


@pytest.mark.parametrize("entry", ["proxy.internal", "10.0.0.300", "10.0.0.0/40", "*", ""])
def test_a_proxy_is_named_by_address_or_network_only(entry: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_settings({"web.trusted_proxies": [entry]}, config_files=[])
    message = str(raised.value)
    assert "web.trusted_proxies" in message and "CIDR" in message
    with pytest.raises(InputError):
        TrustedProxies([entry])


def test_addresses_networks_and_ipv6_name_proxies() -> None:
    settings = load_settings({"web.trusted_proxies": [" 10.0.0.5", "10.1.0.0/16", "::1",
                                                      "fd00::/8"]}, config_files=[])
    assert settings.web.trusted_proxies == ("10.0.0.5", "10.1.0.0/16", "::1", "fd00::/8")
    proxies = TrustedProxies(settings.web.trusted_proxies)
    assert proxies.trusts("::1") and proxies.trusts("fd12::3") and proxies.trusts("10.1.2.3")
