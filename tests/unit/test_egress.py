"""The egress policy refuses what it must, says why, and checks every redirect hop."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from deepcite.errors import EgressDenied
from deepcite.search.fetch import fetch_page
from deepcite.security import check_url


@pytest.mark.parametrize(("url", "reason"), [
    ("http://127.0.0.1/admin", "loopback"),
    ("http://169.254.169.254/latest/meta-data", "link-local"),
    ("http://[::1]:8080/", "loopback"),
    ("http://2130706433/", "loopback"),          # decimal 127.0.0.1
    ("http://0177.0.0.1/", "loopback"),          # octal
    ("http://0x7f.1/", "loopback"),              # hex, short form
    ("http://127.1/", "loopback"),
    ("http://[::ffff:127.0.0.1]/", "loopback"),  # IPv4-mapped IPv6
    ("http://10.1.2.3/", "private-network"),
    ("http://192.168.0.1/", "private-network"),
    ("http://localhost:11434/", "loopback"),
    ("http://rebind.example/", "private-network"),  # public-looking name, private address
    ("http://metadata.google.internal/computeMetadata/v1/", "metadata"),
    ("file:///etc/passwd", "only http and https"),
    ("ftp://ftp.example.org/file", "only http and https"),
    ("javascript:alert(1)", "only http and https"),
    ("http:///nohost", "no host"),
])
def test_refused_with_a_clear_reason(url: str, reason: str) -> None:
    with pytest.raises(EgressDenied) as info:
        check_url(url)
    assert reason in str(info.value)
    assert "\n" not in str(info.value)


def test_public_urls_pass_unchanged() -> None:
    assert check_url("https://en.wikipedia.org/wiki/Python") == \
        "https://en.wikipedia.org/wiki/Python"
    assert check_url("http://93.184.216.34/") == "http://93.184.216.34/"


def test_private_hosts_can_be_allowed_per_host_or_network(make_settings: Any) -> None:
    by_host = make_settings(**{"security.allow_private_hosts": ["searx.lan"]})
    assert check_url("http://searx.lan:8080/search", by_host)
    with pytest.raises(EgressDenied):
        check_url("http://10.1.2.3/", by_host)
    by_cidr = make_settings(**{"security.allow_private_hosts": ["10.0.0.0/8"]})
    assert check_url("http://10.1.2.3/", by_cidr)
    everything = make_settings(**{"security.allow_private_networks": True})
    assert check_url("http://127.0.0.1:9200/", everything)


def test_offline_allows_only_configured_local_services(make_settings: Any) -> None:
    offline = make_settings(**{"security.offline": True,
                               "engines.searxng_url": "http://searx.lan:8080",
                               "security.allow_private_hosts": ["searx.lan"]})
    assert check_url("http://searx.lan:8080/search", offline)
    with pytest.raises(EgressDenied, match="offline"):
        check_url("https://en.wikipedia.org/", offline)


def test_redirect_to_a_private_address_is_refused() -> None:
    with respx.mock:
        respx.get("https://public.example/start").mock(return_value=httpx.Response(
            302, headers={"Location": "http://169.254.169.254/latest/meta-data"}))
        metadata = respx.get("http://169.254.169.254/latest/meta-data").mock(
            return_value=httpx.Response(200, text="secret"))
        outcome = fetch_page("https://public.example/start")
    assert outcome.text is None
    assert outcome.error is not None and "link-local" in outcome.error
    assert not metadata.called


def test_credentials_never_appear_in_messages() -> None:
    with pytest.raises(EgressDenied) as info:
        check_url("http://admin:hunter2@127.0.0.1:9200/")
    assert "hunter2" not in str(info.value) and "127.0.0.1:9200" in str(info.value)
