"""What a watch is made with, on every front end that makes one (the web form, the REST
API, ``deepcite watch add``, the service they all call):

* a webhook target the sender would refuse - loopback, private, shared, link-local or
  metadata addresses, literal or behind a name - is refused when the watch is made,
  by the same policy function the sender applies at every send, with one line naming
  the field; one the settings allow is taken;
* an email's ``attach`` is an export format, never a path;
* a webhook watch made on the web page shows its webhook secret once (and a new one
  once after "New webhook secret"), and that secret verifies what the sender signs.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from deepcite.cli import app
from deepcite.config import Settings
from deepcite.errors import DeliveryError, InputError
from deepcite.runs import RunRequest
from deepcite.store import HistoryStore
from deepcite.watches.delivery import WebhookSender, WebhookTarget, verify_signature, webhook_policy
from deepcite.watches.delivery.webhook import webhook_refusal
from deepcite.watches.service import WatchService
from tests.unit.test_watch_delivery_webhook import _notice, receiver  # noqa: F401
from tests.unit.test_watches_api import Server, server  # noqa: F401
from tests.unit.test_web_watches_page import Site, _create, _csrf, site  # noqa: F401

#: Webhook URLs the sender refuses under the default settings, however they are spelt.
REFUSED_URLS = (
    "http://127.0.0.1:8080/hook",
    "http://0x7f.1/hook",
    "http://2130706433/hook",
    "http://[::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://localhost:9000/hook",          # a name for loopback
    "http://10.0.0.5/hook",
    "http://rebind.example/hook",          # a name for a private address
    "http://searx.lan/hook",
    "http://100.64.0.1/hook",              # shared (carrier-grade NAT)
    "http://169.254.169.254/latest/meta-data",
    "http://[fe80::1]/hook",
    "http://metadata.google.internal/computeMetadata",
    "https://0.0.0.0/hook",
)
BAD_ATTACH = ("../../etc/passwd", "/etc/passwd", "pdf/../../../x", "~/.ssh/id_rsa",
              "C:\\Windows\\win.ini", "nosuchformat")


def _request() -> RunRequest:
    return RunRequest(question="Where is the cache kept?", collections=["notes"],
                      origin="cli")


@pytest.fixture
def service(site: Site) -> WatchService:  # noqa: F811
    return WatchService(site.store, site.settings)


# ------------------------------------------------- 16a: webhook targets at creation


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_the_service_refuses_at_creation_what_the_sender_refuses_at_send(
        service: WatchService, site: Site, url: str) -> None:  # noqa: F811
    with pytest.raises(InputError) as caught:
        service.add(_request(), "every 6h", targets=[{"kind": "webhook", "url": url}])
    message = str(caught.value)
    assert message.startswith("Delivery target 0.url: Refused") and "\n" not in message
    assert site.store.watches() == []
    # the same rule: the sender refuses the same URL, for the same reason
    sender = WebhookSender(site.settings, secret_for=lambda watch_id: "s")
    with pytest.raises(DeliveryError) as refused:
        sender.send(WebhookTarget(url=url), _notice(), attachment=None)
    assert not refused.value.retryable
    assert message.removeprefix("Delivery target 0.url: ") in str(refused.value)


def test_a_webhook_host_the_settings_allow_is_taken(site: Site) -> None:  # noqa: F811
    allowing = site.settings.model_copy(update={"delivery": site.settings.delivery
                                                .model_copy(update={
                                                    "webhook_allow_private_hosts": (
                                                        "127.0.0.1:8080", "searx.lan")})})
    service = WatchService(site.store, allowing)
    for url in ("http://127.0.0.1:8080/hook", "http://searx.lan/hook",
                "https://hooks.example/a"):
        assert webhook_refusal(url, webhook_policy(allowing)) is None
        watch, _ = service.add(_request(), "every 6h",
                               targets=[{"kind": "webhook", "url": url}])
        assert watch.targets == [{"kind": "webhook", "url": url}]
    # an allow-list entry with a port allows that port only; link-local never
    for url in ("http://127.0.0.1:8081/hook", "http://169.254.169.254/"):
        with pytest.raises(InputError, match=r"^Delivery target 0\.url: Refused"):
            service.add(_request(), "every 6h", targets=[{"kind": "webhook", "url": url}])


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/hook", "http://169.254.169.254/",
                                 "http://localhost/hook"])
def test_the_rest_api_refuses_an_unsendable_webhook(server: Server,  # noqa: F811
                                                    url: str) -> None:
    reply = server.client.post("/api/v1/watches", headers=server.auth("alice"), json={
        "request": {"question": "Where is the cache kept?", "collections": ["notes"]},
        "schedule": "every 6h", "targets": [{"kind": "webhook", "url": url}]})
    assert reply.status_code == 422, reply.text
    message = reply.json()["error"]["message"]
    assert message.startswith("Delivery target 0.url: Refused") and "\n" not in message
    assert server.store.watches() == []


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/hook", "http://[fe80::1]/x"])
def test_the_web_form_refuses_an_unsendable_webhook(site: Site, url: str) -> None:  # noqa: F811
    alice = site.logged_in("alice")
    reply = _create(alice, webhooks=f"https://hooks.example/a\n{url}")
    assert reply.status_code == 400
    assert re.search(r"Delivery target 1\.url: Refused", reply.text), reply.text[-2000:]
    assert url in reply.text  # what was typed is kept on the form
    assert site.store.watches() == []


def test_the_cli_refuses_an_unsendable_webhook(site: Site) -> None:  # noqa: F811
    done = CliRunner().invoke(app, ["watch", "add", "Where is the cache kept?", "--every",
                                    "6h", "-c", "notes", "--webhook",
                                    "http://127.0.0.1:8080/hook"])
    assert done.exit_code != 0
    assert "Delivery target 0.url: Refused http://127.0.0.1:8080" in done.output
    assert len(done.output.strip().splitlines()) == 1
    assert site.store.watches() == []


# ------------------------------------------------------ 16b: email attachments


@pytest.mark.parametrize("attach", BAD_ATTACH)
def test_an_attachment_is_an_export_format_never_a_path(service: WatchService,
                                                        attach: str) -> None:
    target = {"kind": "email", "to": ["ann@example.org"], "attach": attach}
    with pytest.raises(InputError) as caught:
        service.add(_request(), "every 6h", targets=[target])
    message = str(caught.value)
    assert message.startswith("Delivery target 0.attach: Unknown export format")
    assert "markdown" in message and "\n" not in message
    assert service.list() == []


def test_attachment_formats_are_stored_by_their_name(service: WatchService) -> None:
    for typed, stored in (("PDF", "pdf"), ("md", "markdown"), ("Html", "html"), (None, None)):
        watch, _ = service.add(_request(), "every 6h", targets=[
            {"kind": "email", "to": ["ann@example.org"], "attach": typed}])
        assert watch.targets[0]["attach"] == stored


def test_the_rest_api_refuses_a_path_as_attachment(server: Server) -> None:  # noqa: F811
    reply = server.client.post("/api/v1/watches", headers=server.auth("alice"), json={
        "request": {"question": "Where is the cache kept?", "collections": ["notes"]},
        "schedule": "every 6h", "targets": [
            {"kind": "email", "to": ["ann@example.org"], "attach": "../../etc/passwd"}]})
    assert reply.status_code == 422
    assert reply.json()["error"]["message"].startswith("Delivery target 0.attach:")
    assert server.store.watches() == []


def test_the_form_and_cli_refuse_a_path_as_attachment(site: Site) -> None:  # noqa: F811
    alice = site.logged_in("alice")
    page = _create(alice, emails="ann@example.org", attach="../../etc/passwd")
    assert page.status_code == 400 and "Delivery target 0.attach:" in page.text
    done = CliRunner().invoke(app, ["watch", "add", "Q?", "--every", "6h", "-c", "notes",
                                    "--email", "ann@example.org", "--attach",
                                    "../../etc/passwd"])
    assert done.exit_code != 0 and "Delivery target 0.attach:" in done.output
    assert site.store.watches() == []


# ---------------------------------------------- 15: the webhook secret on the page


def _secret_on(page: str) -> str | None:
    match = re.search(r'<code id="webhook-secret">([0-9a-f]+)</code>', page)
    return match.group(1) if match else None


def _signed_delivery(store: HistoryStore, settings: Settings, receiver_url: str,
                     watch_id: str) -> None:
    """What the real sender posts for a notice of ``watch_id``, signed with the key the
    store holds for it, as a receiver gets it (loopback allowed for the test)."""
    allowing = settings.model_copy(update={"delivery": settings.delivery.model_copy(
        update={"webhook_allow_private_hosts": ("127.0.0.1",)})})
    sender = WebhookSender(allowing, secret_for=store.webhook_secret)
    sender.send(WebhookTarget(url=receiver_url), _notice(watch_id=watch_id),
                attachment=None)


@pytest.mark.enable_socket  # a real webhook receiver on loopback
def test_a_webhook_watch_made_on_the_page_shows_a_secret_that_verifies(
        site: Site, receiver: Any) -> None:  # noqa: F811
    alice = site.logged_in("alice")
    made = _create(alice, webhooks="https://hooks.example/a")
    assert made.status_code == 201 and "The watch was created" in made.text
    secret = _secret_on(made.text)
    assert secret is not None and len(secret) == 64
    match = re.search(r'action="/watches/([0-9a-f]{32})/run"', made.text)
    assert match is not None
    watch_id = match.group(1)
    # the feed address is shown once too, and works
    feed = re.search(r'<code id="feed-url">[^<]*(/feeds/watches/[^<]+\.atom)</code>',
                     made.text)
    assert feed is not None and alice.get(feed.group(1)).status_code == 200

    hook = receiver()
    _signed_delivery(site.store, site.settings, hook.url, watch_id)
    [(_, headers, body)] = hook.received
    assert verify_signature(secret, body, headers)
    assert not verify_signature(secret[::-1], body, headers)

    # shown once: the watch's page does not show it again
    page = alice.get(f"/watches/{watch_id}").text
    assert _secret_on(page) is None and secret not in page
    assert "New webhook secret" in page

    # a new secret is shown once; from then on only it verifies what is sent
    rotated = alice.post(f"/watches/{watch_id}/secret",
                         data={"csrf_token": _csrf(alice, f"/watches/{watch_id}")})
    assert rotated.status_code == 200
    fresh = _secret_on(rotated.text)
    assert fresh is not None and fresh != secret
    _signed_delivery(site.store, site.settings, hook.url, watch_id)
    _, headers, body = hook.received[-1]
    assert verify_signature(fresh, body, headers)
    assert not verify_signature(secret, body, headers)
    assert _secret_on(alice.get(f"/watches/{watch_id}").text) is None


def test_another_users_watch_secret_cannot_be_rotated(site: Site) -> None:  # noqa: F811
    alice, bob = site.logged_in("alice"), site.logged_in("bob")
    made = _create(alice, webhooks="https://hooks.example/a")
    match = re.search(r'action="/watches/([0-9a-f]{32})/run"', made.text)
    assert match is not None
    before = site.store.webhook_secret(match.group(1))
    reply = bob.post(f"/watches/{match.group(1)}/secret",
                     data={"csrf_token": _csrf(bob, "/watches")})
    assert reply.status_code == 404 and before not in reply.text
    assert site.store.webhook_secret(match.group(1)) == before


def test_a_watch_without_webhooks_shows_no_secret(site: Site) -> None:  # noqa: F811
    made = _create(site.logged_in("alice"))
    assert made.status_code == 201
    assert _secret_on(made.text) is None and "Webhook secret" not in made.text


def test_the_rest_api_shows_the_secret_at_creation_and_rotation_only(
        server: Server) -> None:  # noqa: F811
    reply = server.client.post("/api/v1/watches", headers=server.auth("alice"), json={
        "request": {"question": "Where is the cache kept?", "collections": ["notes"]},
        "schedule": "every 6h", "targets": [{"kind": "webhook", "url": "https://h.example/a"}]})
    assert reply.status_code == 201
    created = reply.json()
    watch_id, secret = created["watch"]["id"], created["webhook_secret"]
    assert server.store.webhook_secret(watch_id) == secret
    shown = server.client.get(f"/api/v1/watches/{watch_id}", headers=server.auth("alice"))
    assert secret not in shown.text
    rotated = server.client.post(f"/api/v1/watches/{watch_id}/webhook-secret",
                                 headers=server.auth("alice"))
    assert rotated.status_code == 200
    fresh = rotated.json()["webhook_secret"]
    assert fresh != secret and server.store.webhook_secret(watch_id) == fresh
    other = server.client.post(f"/api/v1/watches/{watch_id}/webhook-secret",
                               headers=server.auth("bob"))
    assert other.status_code == 404
    assert server.store.webhook_secret(watch_id) == fresh
    assert json.loads(shown.text)["watch"]["id"] == watch_id


def test_the_cli_prints_the_secret_it_made(site: Site) -> None:  # noqa: F811
    done = CliRunner().invoke(app, ["watch", "add", "Q?", "--every", "6h", "-c", "notes",
                                    "--webhook", "https://hooks.example/a", "--json"])
    assert done.exit_code == 0, done.output
    added = json.loads(done.output)
    assert site.store.webhook_secret(added["id"]) == added["webhook_secret"]


def test_the_store_rotates_a_secret_only_for_who_may_see_the_watch(
        store: HistoryStore) -> None:
    """On SQLite and PostgreSQL: a new secret replaces the old one; another user's watch
    is unknown and keeps its secret."""
    from deepcite.errors import UnknownWatchError
    from deepcite.store.user_rights import Access

    ann = store.add_user("ann", "correct horse battery")
    bob = store.add_user("bob", "correct horse battery")
    watch, _ = store.add_watch(name="w", request={"question": "Q?"}, schedule="on demand",
                               targets=[{"kind": "webhook", "url": "https://h.example/a"}],
                               next_run_at=None, owner_id=ann.id)
    first = store.webhook_secret(watch.id)
    fresh = store.rotate_webhook_secret(watch.id[:8], Access(user_id=ann.id, name="ann"))
    assert fresh != first and len(fresh) == 64 and store.webhook_secret(watch.id) == fresh
    with pytest.raises(UnknownWatchError):
        store.rotate_webhook_secret(watch.id, Access(user_id=bob.id, name="bob"))
    assert store.webhook_secret(watch.id) == fresh
