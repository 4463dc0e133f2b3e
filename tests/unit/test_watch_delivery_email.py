"""Watch notices by email, received by a real SMTP server on loopback (aiosmtpd).

The server runs plain, with STARTTLS and with TLS from the start, on a throwaway
certificate authority made here (``cryptography``), which the sender trusts through
``delivery.smtp_ca_file`` - as a deployment with a private CA would.
"""

from __future__ import annotations

import email
import email.policy
import ipaddress
import ssl
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from deepcite.config import Settings
from deepcite.errors import ConfigError, DeliveryError
from deepcite.watches.delivery import (
    EmailSender,
    EmailTarget,
    WebhookTarget,
    retryable,
    senders_from_settings,
)
from deepcite.watches.delivery.email import build_message, safe_filename
from deepcite.watches.notice import Notice
from tests.servers import PATIENCE, free_port

PDF = b"%PDF-1.7\n\x00\x01\x02\xff binary \r\n\r\n.\r\n end"  # a lone "." line, CRLFs, NUL


def _notice(**changes: Any) -> Notice:
    values: dict[str, Any] = {
        "watch_id": "w-42", "watch_name": "EU AI act", "run_id": "run-7",
        "previous_run_id": "run-6", "question": "What changed in the EU AI act?",
        "created_at": datetime(2026, 3, 1, 12, 0, tzinfo=UTC),
        "summary": "2 new sources, 1 claim lost its support",
        "changes_markdown": "## New sources\n\n- [3] Official Journal, 2026-02-28\n",
        "url": "https://deepcite.example.org/runs/run-7",
    }
    values.update(changes)
    return Notice(**values)


# ------------------------------------------------------------------ certificates


@dataclass(frozen=True)
class _Pki:
    ca_file: Path
    cert_file: Path
    key_file: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert_file, self.key_file)
        return context


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> _Pki:
    """A CA and a certificate for 127.0.0.1 and localhost that it signed."""
    folder = tmp_path_factory.mktemp("pki")
    now = datetime.now(UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name("deepcite test CA"))
          .issuer_name(_name("deepcite test CA")).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(now - timedelta(hours=1)).not_valid_after(now + timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False,
                                       False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()),
                         critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(_name("localhost"))
            .issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(hours=1)).not_valid_after(now + timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    (folder / "ca.pem").write_bytes(ca.public_bytes(pem))
    (folder / "cert.pem").write_bytes(cert.public_bytes(pem))
    (folder / "key.pem").write_bytes(key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return _Pki(folder / "ca.pem", folder / "cert.pem", folder / "key.pem")


# ------------------------------------------------------------------- the server


@dataclass
class _Mailbox:
    """What the server received: envelopes and parsed messages."""

    messages: list[EmailMessage] = field(default_factory=list)
    envelopes: list[tuple[str, list[str]]] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        parsed = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        self.messages.append(parsed)
        return "250 Message accepted"




def _authenticator(mailbox: _Mailbox) -> Callable[..., AuthResult]:
    def check(server: Any, session: Any, envelope: Any, mechanism: str,
              data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (
            b"watcher", b"s3cret")
        if ok:
            mailbox.logins.append(data.login.decode())
        return AuthResult(success=ok, handled=False)
    return check


@pytest.fixture
def smtp_server() -> Iterator[Callable[..., tuple[_Mailbox, int]]]:
    """``start(**smtp_parameters)`` -> (mailbox, port) of a server on 127.0.0.1."""
    started: list[Controller] = []

    def start(**parameters: Any) -> tuple[_Mailbox, int]:
        mailbox = _Mailbox()
        if parameters.pop("login", False):
            parameters["authenticator"] = _authenticator(mailbox)
        port = free_port()
        controller = Controller(mailbox, hostname="127.0.0.1", port=port,
                                ready_timeout=PATIENCE, **parameters)
        controller.start()
        started.append(controller)
        return mailbox, port

    yield start
    for controller in started:
        controller.stop()


def _sender(make_settings: Any, port: int, **delivery: Any) -> EmailSender:
    values = {"smtp_host": "127.0.0.1", "smtp_port": port, "smtp_from": "watch@example.org",
              "smtp_timeout_seconds": min(PATIENCE, 600), **delivery}
    settings: Settings = make_settings(delivery=values)
    return EmailSender(settings.delivery)


TARGET = EmailTarget(to=["ana@example.org", "ben@example.org"], attach="pdf")


def _check_received(mailbox: _Mailbox, notice: Notice) -> EmailMessage:
    [message] = mailbox.messages
    assert mailbox.envelopes == [("watch@example.org", ["ana@example.org", "ben@example.org"])]
    assert message["Subject"] == "[deepcite] EU AI act: 2 new sources, 1 claim lost its support"
    assert message["From"] == "watch@example.org"
    assert message["Auto-Submitted"] == "auto-generated"
    text_part = message.get_body(("plain",))
    assert text_part is not None
    text = text_part.get_content()
    assert text.startswith(notice.summary)
    assert "- [3] Official Journal, 2026-02-28" in text
    assert notice.url is not None and notice.url in text
    return message


# --------------------------------------------------------------------- tests


@pytest.mark.enable_socket
def test_plain_smtp_delivers_summary_body_and_attachment_intact(
        smtp_server: Any, make_settings: Any) -> None:
    mailbox, port = smtp_server()
    notice = _notice()
    _sender(make_settings, port, smtp_security="none").send(
        TARGET, notice, attachment=("report-run-7.pdf", PDF))
    message = _check_received(mailbox, notice)
    [attached] = list(message.iter_attachments())
    assert attached.get_filename() == "report-run-7.pdf"
    assert attached.get_content_type() == "application/pdf"
    assert attached.get_payload(decode=True) == PDF


@pytest.mark.enable_socket
def test_starttls_with_login_delivers_over_a_verified_connection(
        smtp_server: Any, make_settings: Any, pki: _Pki) -> None:
    mailbox, port = smtp_server(tls_context=pki.server_context(), require_starttls=True,
                                login=True, auth_required=True)
    notice = _notice()
    _sender(make_settings, port, smtp_ca_file=str(pki.ca_file), smtp_username="watcher",
            smtp_password="s3cret").send(TARGET, notice, attachment=("r.md", "é ]]>".encode()))
    message = _check_received(mailbox, notice)
    assert mailbox.logins == ["watcher"]
    [attached] = list(message.iter_attachments())
    assert attached.get_payload(decode=True) == "é ]]>".encode()


@pytest.mark.enable_socket
def test_implicit_tls_delivers(smtp_server: Any, make_settings: Any, pki: _Pki) -> None:
    mailbox, port = smtp_server(ssl_context=pki.server_context())
    notice = _notice(nothing_new=True, changes_markdown="")
    _sender(make_settings, port, smtp_security="ssl", smtp_ca_file=str(pki.ca_file)).send(
        TARGET, notice, attachment=None)
    [message] = mailbox.messages
    assert not list(message.iter_attachments())


@pytest.mark.enable_socket
def test_an_untrusted_certificate_is_refused_not_ignored(
        smtp_server: Any, make_settings: Any, pki: _Pki) -> None:
    mailbox, port = smtp_server(tls_context=pki.server_context(), require_starttls=True)
    with pytest.raises(DeliveryError) as caught:
        _sender(make_settings, port).send(TARGET, _notice(), attachment=None)  # system CAs
    assert "certificate is not trusted" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert not caught.value.retryable and not mailbox.messages


@pytest.mark.enable_socket
def test_starttls_not_offered_is_refused_never_sent_in_clear(
        smtp_server: Any, make_settings: Any) -> None:
    mailbox, port = smtp_server()  # no tls_context: the server offers no STARTTLS
    with pytest.raises(DeliveryError, match="does not offer STARTTLS") as caught:
        _sender(make_settings, port).send(TARGET, _notice(), attachment=None)
    assert not caught.value.retryable and not mailbox.messages


@pytest.mark.enable_socket
def test_a_refused_login_is_one_line_naming_server_and_settings(
        smtp_server: Any, make_settings: Any, pki: _Pki) -> None:
    mailbox, port = smtp_server(tls_context=pki.server_context(), require_starttls=True,
                                login=True, auth_required=True)
    sender = _sender(make_settings, port, smtp_ca_file=str(pki.ca_file),
                     smtp_username="watcher", smtp_password="wrong")
    with pytest.raises(DeliveryError) as caught:
        sender.send(TARGET, _notice(), attachment=None)
    assert str(caught.value) == (f"SMTP 127.0.0.1:{port} refused the login - check "
                                 "delivery.smtp_username/smtp_password")
    assert not caught.value.retryable and not retryable(caught.value)
    assert "wrong" not in str(caught.value) and not mailbox.messages


@pytest.mark.enable_socket
def test_a_dead_port_is_one_retryable_line(make_settings: Any) -> None:
    port = free_port()  # nothing listens there
    with pytest.raises(DeliveryError) as caught:
        _sender(make_settings, port, smtp_security="none").send(TARGET, _notice(),
                                                                attachment=None)
    message = str(caught.value)
    assert message == (f"SMTP 127.0.0.1:{port} cannot be reached (connection refused) - "
                       "check delivery.smtp_host and smtp_port")
    assert caught.value.retryable and retryable(caught.value)


@pytest.mark.enable_socket
def test_tls_against_a_plain_server_says_which_setting(
        smtp_server: Any, make_settings: Any, pki: _Pki) -> None:
    _, port = smtp_server()
    with pytest.raises(DeliveryError) as caught:
        _sender(make_settings, port, smtp_security="ssl",
                smtp_ca_file=str(pki.ca_file)).send(TARGET, _notice(), attachment=None)
    assert "delivery.smtp_security" in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.enable_socket
def test_a_refused_recipient_is_not_retried(smtp_server: Any, make_settings: Any) -> None:
    class Refusing(_Mailbox):
        async def handle_RCPT(self, server: Any, session: Any, envelope: Any,
                              address: str, options: Any) -> str:
            return "550 no such user here"

    port = free_port()
    controller = Controller(Refusing(), hostname="127.0.0.1", port=port,
                            ready_timeout=PATIENCE)
    controller.start()
    try:
        with pytest.raises(DeliveryError, match="refused the recipients") as caught:
            _sender(make_settings, port, smtp_security="none").send(
                TARGET, _notice(), attachment=None)
    finally:
        controller.stop()
    assert not caught.value.retryable and caught.value.status == 550


def test_header_injection_and_hostile_filenames_are_defused() -> None:
    notice = _notice(watch_name="EU\r\nBcc: victim@example.org", summary="x\nTo: all@x.org")
    message = build_message(notice, "watch@example.org", ["ana@example.org"],
                            ("../../etc/passwd\r\n.pdf", PDF))
    assert message["Bcc"] is None
    assert "\n" not in message["Subject"] and "\r" not in message["Subject"]
    [attached] = list(message.iter_attachments())
    assert attached.get_filename() == "passwd-.pdf"
    assert safe_filename("...") == "report"


def test_sender_needs_a_host_and_a_from_address(make_settings: Any) -> None:
    with pytest.raises(ConfigError, match=r"delivery\.smtp_host"):
        EmailSender(make_settings().delivery)
    with pytest.raises(ConfigError, match=r"delivery\.smtp_from"):
        EmailSender(make_settings(delivery={"smtp_host": "mail.example.org"}).delivery)
    sender = EmailSender(make_settings(delivery={
        "smtp_host": "mail.example.org", "smtp_username": "me@example.org"}).delivery)
    assert (sender.sender, sender.port) == ("me@example.org", 587)
    with pytest.raises(DeliveryError, match="cannot send to a webhook"):
        sender.send(WebhookTarget(url="https://hooks.example.org/x"), _notice(),
                    attachment=None)


def test_email_is_offered_only_with_an_smtp_host(make_settings: Any) -> None:
    assert set(senders_from_settings(make_settings(), secret_for=lambda _: "k")) == {"webhook"}
    configured = make_settings(delivery={"smtp_host": "mail.example.org",
                                         "smtp_from": "w@example.org"})
    senders = senders_from_settings(configured, secret_for=lambda _: "k")
    assert set(senders) == {"webhook", "email"}
    assert isinstance(senders["email"], EmailSender)
