"""Watch delivery without a network: the Atom feed, retry timing and the settings."""

from __future__ import annotations

import smtplib
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from deepcite.config import explain_settings, load_settings
from deepcite.errors import ConfigError, DeliveryError, EgressDenied
from deepcite.store.snapshot import restore_settings, settings_snapshot
from deepcite.watches.delivery import atom_feed, next_attempt, retryable
from deepcite.watches.delivery.atom import entry_id, feed_id, rfc3339
from deepcite.watches.delivery.retry import (
    MAX_RETRY_AFTER_SECONDS,
    backoff_seconds,
    retry_after_seconds,
)
from deepcite.watches.notice import Notice

A = "{http://www.w3.org/2005/Atom}"
FEED_URL = "https://deepcite.example.org/watches/w-42/feed.atom?token=t0k3n"
BASE = "https://deepcite.example.org"


def _notice(run_id: str, day: int, **changes: Any) -> Notice:
    values: dict[str, Any] = {
        "watch_id": "w-42", "watch_name": "EU AI act", "run_id": run_id,
        "question": "What changed in the EU AI act?",
        "created_at": datetime(2026, 3, day, 12, 0, tzinfo=UTC),
        "summary": f"summary of {run_id}", "changes_markdown": f"- changes of {run_id}",
    }
    values.update(changes)
    return Notice(**values)


def _parse(document: bytes) -> ET.Element:
    assert document.startswith(b"<?xml version='1.0' encoding='utf-8'?>")
    return ET.fromstring(document)


# ------------------------------------------------------------------- Atom


def test_the_feed_is_atom_with_entries_newest_first() -> None:
    notices = [_notice("run-1", 1), _notice("run-3", 3, url=f"{BASE}/runs/run-3"),
               _notice("run-2", 2, nothing_new=True, changes_markdown="")]
    feed = _parse(atom_feed("w-42", "EU AI act", notices, FEED_URL, BASE))
    assert feed.tag == f"{A}feed"
    assert feed.findtext(f"{A}id") == "tag:deepcite,2026:watch:w-42" == feed_id("w-42")
    assert feed.findtext(f"{A}title") == "deepcite watch: EU AI act"
    assert feed.findtext(f"{A}updated") == "2026-03-03T12:00:00Z"
    assert feed.findtext(f"{A}author/{A}name") == "deepcite"
    links = {link.get("rel"): link.get("href") for link in feed.findall(f"{A}link")}
    assert links == {"self": FEED_URL, "alternate": BASE}
    entries = feed.findall(f"{A}entry")
    assert [entry.findtext(f"{A}id") for entry in entries] == [
        entry_id("run-3"), entry_id("run-2"), entry_id("run-1")]
    assert entry_id("run-3") == "tag:deepcite,2026:run:run-3"
    newest, nothing, oldest = entries
    assert newest.find(f"{A}link").get("href") == f"{BASE}/runs/run-3"  # type: ignore[union-attr]
    assert oldest.find(f"{A}link").get("href") == f"{BASE}/runs/run-1"  # type: ignore[union-attr]
    # Markdown changes are sent as HTML, which feed readers show as a page
    assert newest.findtext(f"{A}content") == "<ul>\n<li>changes of run-3</li>\n</ul>\n"
    assert newest.find(f"{A}content").get("type") == "html"  # type: ignore[union-attr]
    assert nothing.findtext(f"{A}content") == "summary of run-2"
    assert nothing.find(f"{A}content").get("type") == "text"  # type: ignore[union-attr]
    for entry in entries:
        for tag in ("id", "title", "updated", "published", "summary", "content"):
            assert entry.findtext(f"{A}{tag}"), tag


def test_hostile_text_stays_text() -> None:
    hostile = "</title><script>alert(1)</script> ]]> <![CDATA[ x ]]> & \"' \x00\x1b[31m"
    notice = _notice("run-<1>&\"", 1, summary=hostile, changes_markdown=hostile,
                     question=hostile, url="javascript:alert(1)")
    document = atom_feed("w-42", hostile, [notice], FEED_URL + '"><x y="', BASE)
    assert b"<script>" not in document and b"]]>" not in document
    feed = _parse(document)
    clean = hostile.replace("\x00", "").replace("\x1b", "")
    assert feed.findtext(f"{A}title") == "deepcite watch: " + " ".join(clean.split())
    [entry] = feed.findall(f"{A}entry")
    content = entry.findtext(f"{A}content") or ""  # HTML, with the hostile text as text
    assert "<script>" not in content and "&lt;script&gt;alert(1)&lt;/script&gt;" in content
    assert entry.findtext(f"{A}title") == " ".join(clean.split())
    [link] = entry.findall(f"{A}link")
    assert link.get("href", "").startswith(f"{BASE}/runs/run-%3C1%3E")  # not javascript:
    assert "<" not in (entry.findtext(f"{A}id") or "")
    assert {e.get("href") for e in feed.findall(f"{A}link")} >= {FEED_URL + '"><x y="'}
    assert not feed.findall(f".//{A}script") and not feed.findall(".//script")


def test_an_empty_feed_and_times() -> None:
    feed = _parse(atom_feed("w-1", "w", [], FEED_URL, None, updated=datetime(2026, 1, 2)))
    assert feed.findtext(f"{A}updated") == "2026-01-02T00:00:00Z"
    assert not feed.findall(f"{A}entry")
    assert [link.get("rel") for link in feed.findall(f"{A}link")] == ["self"]
    plus_two = timezone(timedelta(hours=2))
    assert rfc3339(datetime(2026, 3, 1, 14, 0, 5, 999, tzinfo=plus_two)) == "2026-03-01T12:00:05Z"


# ---------------------------------------------------------------- retries


NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_backoff_doubles_within_jitter_and_cap() -> None:
    for attempts in range(1, 12):
        full = min(3600.0, 60.0 * 2 ** (attempts - 1))
        for seed in (None, "delivery-1", 7):
            wait = backoff_seconds(attempts, 60.0, max_seconds=3600.0, seed=seed)
            assert full / 2 <= wait <= full
    assert backoff_seconds(30, 60.0, max_seconds=3600.0) <= 3600.0


def test_a_seed_gives_the_same_schedule_every_time() -> None:
    first = [next_attempt(n, NOW, 60, 6, seed="d-1") for n in range(1, 6)]
    again = [next_attempt(n, NOW, 60, 6, seed="d-1") for n in range(1, 6)]
    other = [next_attempt(n, NOW, 60, 6, seed="d-2") for n in range(1, 6)]
    assert first == again != other
    assert all(when is not None and when > NOW for when in first)


def test_no_next_attempt_after_the_last() -> None:
    assert next_attempt(5, NOW, 60, 6) is not None
    assert next_attempt(6, NOW, 60, 6) is None
    assert next_attempt(1, NOW, 60, 1) is None
    with pytest.raises(ValueError, match="at least 1"):
        next_attempt(0, NOW, 60, 6)


def test_a_later_not_before_wins_over_the_backoff_and_an_earlier_one_never_does() -> None:
    backoff = next_attempt(1, NOW, 60, 6, seed="d-1")
    assert backoff is not None and backoff <= NOW + timedelta(seconds=60)
    asked = NOW + timedelta(hours=3)
    assert next_attempt(1, NOW, 60, 6, seed="d-1", not_before=asked) == asked
    assert next_attempt(1, NOW, 60, 6, seed="d-1", not_before=NOW + timedelta(seconds=1)
                        ) == backoff
    assert next_attempt(6, NOW, 60, 6, not_before=asked) is None  # out of tries is out


@pytest.mark.parametrize(("value", "seconds"), [
    ("120", 120.0), (" 0 ", 0.0), ("86401", MAX_RETRY_AFTER_SECONDS),
    ("9" * 40, MAX_RETRY_AFTER_SECONDS),
    ("Sun, 01 Mar 2026 13:30:00 GMT", 5400.0),  # IMF-fixdate, 90 minutes after NOW
    ("Sunday, 01-Mar-26 12:00:30 GMT", 30.0),  # RFC 850, still accepted by RFC 9110
    ("Sun Mar  1 12:10:00 2026", 600.0),  # asctime
    ("Sat, 28 Feb 2026 12:00:00 GMT", 0.0),  # already past
    ("Mon, 01 Mar 2027 12:00:00 GMT", MAX_RETRY_AFTER_SECONDS),
    (None, None), ("", None), ("soon", None), ("-5", None), ("1.5", None),
])
def test_retry_after_values(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, NOW) == seconds


def test_retryable_errors() -> None:
    assert retryable(DeliveryError("x", retryable=True))
    assert not retryable(DeliveryError("x"))
    assert not retryable(EgressDenied("x")) and not retryable(ConfigError("x"))
    assert retryable(httpx.ConnectTimeout("x")) and retryable(httpx.ConnectError("x"))
    assert retryable(TimeoutError()) and retryable(ConnectionRefusedError())
    assert retryable(smtplib.SMTPServerDisconnected("x"))
    assert retryable(smtplib.SMTPDataError(451, b"later"))
    assert not retryable(smtplib.SMTPAuthenticationError(535, b"no"))
    assert not retryable(ValueError("x"))


# --------------------------------------------------------------- settings


def test_delivery_settings_from_env_and_the_password_is_hidden() -> None:
    environ = {"DEEPCITE_DELIVERY_SMTP_HOST": "mail.example.org",
               "DEEPCITE_DELIVERY_SMTP_PASSWORD": "hunter2",
               "DEEPCITE_DELIVERY_SMTP_SECURITY": "ssl",
               "DEEPCITE_DELIVERY_WEBHOOK_ALLOW_PRIVATE_HOSTS": "hooks.lan, 10.0.0.0/8"}
    settings = load_settings(config_files=[], environ=environ)
    delivery = settings.delivery
    assert (delivery.smtp_host, delivery.smtp_security) == ("mail.example.org", "ssl")
    assert delivery.webhook_allow_private_hosts == ("hooks.lan", "10.0.0.0/8")
    assert delivery.smtp_password is not None
    assert delivery.smtp_password.get_secret_value() == "hunter2"
    assert "hunter2" not in repr(settings)
    rows = {row.key: row for row in explain_settings(config_files=[], environ=environ)}
    assert rows["delivery.smtp_password"].value == "********"
    assert rows["delivery.smtp_host"].origin == "env DEEPCITE_DELIVERY_SMTP_HOST"
    with pytest.raises(ConfigError, match=r"delivery\.smtp_security"):
        load_settings(config_files=[], environ={"DEEPCITE_DELIVERY_SMTP_SECURITY": "tls"})


def test_delivery_is_the_machines_own_in_a_run_snapshot() -> None:
    server = load_settings({"delivery": {"smtp_host": "mail.example.org",
                                         "smtp_password": "hunter2"}},
                           config_files=[], environ={})
    snapshot = settings_snapshot(server)
    assert "hunter2" not in str(snapshot)
    worker = load_settings({"delivery": {"smtp_host": "relay.lan"}}, config_files=[],
                           environ={})
    assert restore_settings(snapshot, worker).delivery.smtp_host == "relay.lan"
