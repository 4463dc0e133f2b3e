"""Watch notices as signed webhooks, received by a real HTTP server on loopback.

Loopback is a private address, so the egress policy refuses it until
``delivery.webhook_allow_private_hosts`` names it - which is the first thing checked.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from deepcite.errors import ConfigError, DeliveryError
from deepcite.store import HistoryStore
from deepcite.watches.delivery import (
    EmailTarget,
    WebhookSender,
    WebhookTarget,
    retryable,
    verify_signature,
)
from deepcite.watches.delivery.webhook import payload, sign
from deepcite.watches.notice import Notice
from deepcite.watches.scheduler import deliver_due

SECRET = "whsec-7d1f-watch-42"
PATH = "/hooks/T000/B000/secret-path-token"


def _notice(**changes: Any) -> Notice:
    values: dict[str, Any] = {
        "watch_id": "w-42", "watch_name": "EU AI act", "run_id": "run-7",
        "previous_run_id": "run-6", "question": "What changed in the EU AI act?",
        "created_at": datetime(2026, 3, 1, 12, 0, tzinfo=UTC),
        "summary": "2 new sources", "changes_markdown": "- [3] Official Journal ]]> é\n",
        "url": "https://deepcite.example.org/runs/run-7",
    }
    values.update(changes)
    return Notice(**values)


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # a client that gave up (the timeout test) is no error of the receiver


@dataclass
class _Receiver:
    """A loopback server answering each POST with the next status of ``statuses``."""

    statuses: list[int] = field(default_factory=lambda: [200])
    delay: float = 0.0
    #: Headers sent with every answer that is not a 2xx (``Retry-After``...).
    headers: dict[str, str] = field(default_factory=dict)
    received: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    port: int = 0

    def start(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                outer.received.append((self.path, dict(self.headers.items()), body))
                if outer.delay:
                    time.sleep(outer.delay)
                status = outer.statuses.pop(0) if len(outer.statuses) > 1 else outer.statuses[0]
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", "http://example.org/elsewhere")
                if not 200 <= status < 300:
                    for name, value in outer.headers.items():
                        self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                return

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def receiver() -> Iterator[Callable[..., _Receiver]]:
    started: list[_Receiver] = []

    def start(*statuses: int, delay: float = 0.0,
              headers: dict[str, str] | None = None) -> _Receiver:
        server = _Receiver(list(statuses) or [200], delay, headers=dict(headers or {}))
        server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()


def _sender(make_settings: Any, *allowed: str, secret: str | None = SECRET,
            **delivery: Any) -> WebhookSender:
    settings = make_settings(delivery={"webhook_allow_private_hosts": list(allowed),
                                       **delivery})
    return WebhookSender(settings, secret_for=lambda watch_id: secret)


def _send(sender: WebhookSender, url: str, notice: Notice | None = None,
          attachment: tuple[str, bytes] | None = None) -> None:
    sender.send(WebhookTarget(url=url), notice or _notice(), attachment=attachment)


# ------------------------------------------------------------ egress policy


@pytest.mark.enable_socket
def test_a_private_webhook_host_is_refused_by_default(receiver: Any,
                                                      make_settings: Any) -> None:
    server = receiver()
    with pytest.raises(DeliveryError) as caught:
        _send(_sender(make_settings), server.url)
    message = str(caught.value)
    assert not server.received
    assert message.startswith(f"Webhook http://127.0.0.1:{server.port}: Refused")
    assert "loopback" in message and "delivery.webhook_allow_private_hosts" in message
    assert "secret-path-token" not in message  # a webhook path can be a secret
    assert not caught.value.retryable and not retryable(caught.value)


def test_link_local_and_metadata_are_refused_even_when_allowed(make_settings: Any) -> None:
    sender = _sender(make_settings, "169.254.0.0/16")
    for url in ("http://169.254.169.254/latest/meta-data", "http://metadata.google.internal/"):
        with pytest.raises(DeliveryError, match=r"never contacted|metadata") as caught:
            _send(sender, url)
        assert not caught.value.retryable


def test_a_bad_allow_entry_names_the_delivery_setting(make_settings: Any) -> None:
    with pytest.raises(ConfigError, match=r"delivery\.webhook_allow_private_hosts"):
        _sender(make_settings, "127.0.0.1:notaport")


@pytest.mark.enable_socket
def test_security_allow_private_hosts_also_allows_a_webhook(receiver: Any,
                                                            make_settings: Any) -> None:
    server = receiver()
    settings = make_settings(**{"security.allow_private_hosts": [f"127.0.0.1:{server.port}"]})
    WebhookSender(settings, secret_for=lambda _: SECRET).send(
        WebhookTarget(url=server.url), _notice(), attachment=None)
    assert len(server.received) == 1


# ------------------------------------------------------- body and signature


@pytest.mark.enable_socket
def test_the_receiver_gets_json_and_a_signature_it_can_verify(receiver: Any,
                                                             make_settings: Any) -> None:
    server = receiver()
    notice = _notice()
    _send(_sender(make_settings, f"127.0.0.1:{server.port}"), server.url, notice,
          attachment=("report-run-7.pdf", b"%PDF-1.7 bytes never sent"))
    [(path, headers, body)] = server.received
    assert path == PATH
    assert headers["Content-Type"].startswith("application/json")
    data = json.loads(body)
    assert data["event"] == "watch.notice" and data["version"] == 1
    assert data["link"] == notice.url
    assert Notice.model_validate(data["notice"]) == notice
    assert data["attachment"] == {"filename": "report-run-7.pdf",
                                  "content_type": "application/pdf", "size": 25}
    assert b"never sent" not in body
    assert headers["X-Deepcite-Signature"].startswith("sha256=")
    assert verify_signature(SECRET, body, headers)
    lowered = {name.lower(): value for name, value in headers.items()}
    assert verify_signature(SECRET.encode(), body, lowered)


@pytest.mark.enable_socket
def test_a_changed_body_timestamp_or_secret_fails_verification(receiver: Any,
                                                               make_settings: Any) -> None:
    server = receiver()
    _send(_sender(make_settings, f"127.0.0.1:{server.port}"), server.url)
    [(_, headers, body)] = server.received
    assert verify_signature(SECRET, body, headers)
    assert not verify_signature(SECRET, body.replace(b"2 new", b"9 new"), headers)
    assert not verify_signature(SECRET, body + b" ", headers)
    assert not verify_signature("another-secret", body, headers)
    assert not verify_signature("", body, headers)
    stamp = int(headers["X-Deepcite-Timestamp"])
    assert not verify_signature(SECRET, body, {**headers, "X-Deepcite-Timestamp": str(stamp + 1)})
    assert not verify_signature(SECRET, body, {"X-Deepcite-Timestamp": str(stamp)})
    assert not verify_signature(SECRET, body, {**headers, "X-Deepcite-Timestamp": "x"})


def test_a_replayed_request_is_refused_after_the_tolerance() -> None:
    body = payload(_notice(), "https://hooks.example.org/x")
    sent = 1_800_000_000
    headers = {"X-Deepcite-Timestamp": str(sent), "X-Deepcite-Signature": sign(SECRET, body, sent)}
    assert verify_signature(SECRET, body, headers, now=sent + 299)
    assert not verify_signature(SECRET, body, headers, now=sent + 301)
    assert not verify_signature(SECRET, body, headers, now=sent - 301)
    assert verify_signature(SECRET, body, headers, now=sent + 3000, tolerance_seconds=3600)
    rotated = {**headers, "X-Deepcite-Signature": f"sha256=00ff, {headers['X-Deepcite-Signature']}"}
    assert verify_signature(SECRET, body, rotated, now=sent)


def test_the_signature_is_hmac_sha256_of_timestamp_dot_body() -> None:
    import hashlib
    import hmac

    body = b'{"a":1}'
    expected = hmac.new(SECRET.encode(), b"1700000000." + body, hashlib.sha256).hexdigest()
    assert sign(SECRET, body, 1_700_000_000) == f"sha256={expected}"


def test_the_delivery_id_is_the_same_on_every_attempt() -> None:
    first = json.loads(payload(_notice(), "https://hooks.example.org/a"))
    again = json.loads(payload(_notice(), "https://hooks.example.org/a"))
    other = json.loads(payload(_notice(), "https://hooks.example.org/b"))
    assert first["delivery"] == again["delivery"] != other["delivery"]


def test_no_secret_means_nothing_is_sent(make_settings: Any) -> None:
    sender = _sender(make_settings, secret=None)
    with pytest.raises(DeliveryError, match="no webhook secret") as caught:
        _send(sender, "https://hooks.example.org/x")
    assert not caught.value.retryable
    with pytest.raises(DeliveryError, match="cannot send to a email"):
        sender.send(EmailTarget(to=["a@example.org"]), _notice(), attachment=None)


# ---------------------------------------------------------------- answers


@pytest.mark.enable_socket
@pytest.mark.parametrize(("status", "worth_retrying"), [
    (500, True), (503, True), (429, True), (408, True), (404, False), (401, False),
    (410, False), (302, False),
])
def test_a_non_2xx_answer_fails_retryable_only_when_worth_it(
        receiver: Any, make_settings: Any, status: int, worth_retrying: bool) -> None:
    server = receiver(status)
    with pytest.raises(DeliveryError) as caught:
        _send(_sender(make_settings, f"127.0.0.1:{server.port}"), server.url)
    assert caught.value.status == status
    assert caught.value.retryable is worth_retrying and retryable(caught.value) is worth_retrying
    assert str(caught.value).startswith(f"Webhook http://127.0.0.1:{server.port} answered {status}")
    assert len(server.received) == 1  # a redirect is not followed


@pytest.mark.enable_socket
def test_500_then_200_delivers_on_the_second_attempt(receiver: Any,
                                                     make_settings: Any) -> None:
    server = receiver(500, 200)
    sender = _sender(make_settings, f"127.0.0.1:{server.port}")
    with pytest.raises(DeliveryError) as caught:
        _send(sender, server.url)
    assert caught.value.retryable
    _send(sender, server.url)
    first, second = server.received
    assert json.loads(first[2])["delivery"] == json.loads(second[2])["delivery"]


@pytest.mark.enable_socket
def test_a_timeout_and_a_dead_port_are_retryable(receiver: Any, make_settings: Any) -> None:
    slow = receiver(delay=1.0)
    sender = _sender(make_settings, "127.0.0.1", webhook_timeout_seconds=0.3)
    with pytest.raises(DeliveryError, match=r"did not answer within 0\.3 s") as caught:
        _send(sender, slow.url)
    assert caught.value.retryable
    dead = receiver()
    dead.close()
    with pytest.raises(DeliveryError, match="cannot be reached") as caught:
        _send(sender, dead.url)
    assert caught.value.retryable
    assert "\n" not in str(caught.value)


# ------------------------------------------------------------ Retry-After

LATER = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.mark.enable_socket
@pytest.mark.parametrize(("status", "header", "asked"), [
    (429, "120", 120.0),
    (503, format_datetime(LATER + timedelta(hours=2), usegmt=True), 7200.0),  # HTTP-date
    (503, "999999999", 86400.0),  # more than a day: a day
    (429, format_datetime(LATER - timedelta(hours=1), usegmt=True), 0.0),  # past: no wait
])
def test_retry_after_of_a_429_or_503_is_carried_capped_at_a_day(
        receiver: Any, make_settings: Any, status: int, header: str, asked: float) -> None:
    server = receiver(status, headers={"Retry-After": header})
    sender = _sender(make_settings, f"127.0.0.1:{server.port}")
    sender.clock = LATER.timestamp  # the HTTP-date is read against the sender's clock
    with pytest.raises(DeliveryError) as caught:
        _send(sender, server.url)
    assert caught.value.retryable and caught.value.status == status
    assert caught.value.retry_after == asked
    assert f"asked for {asked:.0f} s before the next try (Retry-After)" in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.enable_socket
@pytest.mark.parametrize(("status", "header"), [
    (500, "120"),  # Retry-After only counts on 429 and 503
    (503, "soon"),  # neither seconds nor a date: ignored
    (503, ""),
])
def test_retry_after_is_ignored_where_it_does_not_apply(
        receiver: Any, make_settings: Any, status: int, header: str) -> None:
    server = receiver(status, headers={"Retry-After": header})
    with pytest.raises(DeliveryError) as caught:
        _send(_sender(make_settings, f"127.0.0.1:{server.port}"), server.url)
    assert caught.value.retryable and caught.value.retry_after is None
    assert str(caught.value) == f"Webhook http://127.0.0.1:{server.port} answered {status}"


@pytest.fixture
def outbox(make_settings: Any) -> Iterator[Callable[..., tuple[Any, Any, str]]]:
    """``outbox(url)``: a store holding one pending webhook delivery of a real notice to
    ``url``, the settings allowing loopback, and the watch's id."""
    opened: list[Any] = []

    def make(url: str) -> tuple[Any, Any, str]:
        settings = make_settings(delivery={"webhook_allow_private_hosts": ["127.0.0.1"],
                                           "backoff_base_seconds": 60.0})
        store = HistoryStore.open(settings)
        opened.append(store)
        target = {"kind": "webhook", "url": url}
        watch, _ = store.add_watch(name="w", request={"question": "Why?"},
                                   schedule="on demand", targets=[target], next_run_at=None)
        run_id = store.begin("Why?", mode="quick", settings=settings)
        store.fail(run_id, "not the point here")
        watch_run = store.record_watch_run(watch.id, run_id, trigger="manual")
        notice = _notice(watch_id=watch.id, run_id=run_id).model_dump(mode="json")
        assert store.finish_watch_run(watch_run.id, status="done", summary="x",
                                      deliveries=[("webhook", target, notice)])
        return store, settings, watch.id

    yield make
    for store in opened:
        store.close()


def _senders(store: Any, settings: Any) -> dict[str, Any]:
    return {"webhook": WebhookSender(settings, secret_for=store.webhook_secret)}


@pytest.mark.enable_socket
@pytest.mark.parametrize("form", ["seconds", "http-date"])
def test_the_next_attempt_waits_for_the_receivers_retry_after(
        receiver: Any, outbox: Any, form: str) -> None:
    # (the wait is measured from before the header is written: setting up the outbox
    # may take seconds on a loaded machine, and an HTTP date is the time it names)
    start = datetime.now(UTC)
    header = ("7200" if form == "seconds"
              else format_datetime(start + timedelta(hours=2, seconds=1), usegmt=True))
    server = receiver(503, 200, headers={"Retry-After": header})
    store, settings, watch_id = outbox(server.url)
    now = datetime.now(UTC)
    [(delivery_id, status)] = deliver_due(store, settings, _senders(store, settings), now)
    assert status == "pending"
    [pending] = store.deliveries(watch_id)
    assert pending.next_attempt_at is not None
    assert _aware(pending.next_attempt_at) >= start + timedelta(hours=2) - timedelta(seconds=1)
    assert pending.last_error is not None and "(Retry-After)" in pending.last_error
    # the backoff alone (60 s, doubling) would have tried again long before this
    assert deliver_due(store, settings, _senders(store, settings),
                       now + timedelta(hours=1, minutes=55)) == []
    assert len(server.received) == 1
    assert deliver_due(store, settings, _senders(store, settings),
                       now + timedelta(hours=2, minutes=1)) == [(delivery_id, "sent")]
    assert len(server.received) == 2


@pytest.mark.enable_socket
def test_a_short_retry_after_never_shortens_the_backoff(receiver: Any, outbox: Any) -> None:
    server = receiver(429, 200, headers={"Retry-After": "1"})
    store, settings, watch_id = outbox(server.url)
    now = datetime.now(UTC)
    assert [s for _, s in deliver_due(store, settings, _senders(store, settings), now)] == [
        "pending"]
    # backoff_base_seconds is 60 (jitter: 30 to 60 s): 1 s from now is not due yet
    [pending] = store.deliveries(watch_id)
    assert pending.next_attempt_at is not None
    assert _aware(pending.next_attempt_at) >= now + timedelta(seconds=30)
    assert deliver_due(store, settings, _senders(store, settings),
                       now + timedelta(seconds=20)) == []
    assert [s for _, s in deliver_due(store, settings, _senders(store, settings),
                                      now + timedelta(minutes=2))] == ["sent"]
    assert len(server.received) == 2


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def test_the_receiver_snippet_of_the_docs_verifies_what_is_sent() -> None:
    """docs/watch-delivery.md's stand-alone check, run on a real signed body."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "watch-delivery.md").read_text()
    [snippet] = [block for block in re.findall(r"```python\n(.*?)```", page, re.S)
                 if "def verify(" in block]
    namespace: dict[str, Any] = {}
    exec(snippet, namespace)
    body = payload(_notice(), "https://hooks.example.org/x")
    now = int(time.time())
    headers = {"X-Deepcite-Timestamp": str(now), "X-Deepcite-Signature": sign(SECRET, body, now)}
    assert namespace["verify"](SECRET, body, headers)
    assert not namespace["verify"](SECRET, body + b"x", headers)
    assert not namespace["verify"]("other", body, headers)
