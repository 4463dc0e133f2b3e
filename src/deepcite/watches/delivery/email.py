"""Watch notices by email, over the SMTP server of ``[delivery]`` in the settings.

One message per notice and target, to all of the target's addresses: the subject
``[deepcite] <watch name>: <summary>``, a plain-text body (the summary, the changes as
Markdown, the run's link) and, when the store hands one over, the report export as an
attachment. The connection is TLS unless ``delivery.smtp_security = "none"``: with
``starttls`` a server that does not offer STARTTLS is refused (never a silent fall back
to plain text), and the server's certificate is always verified, against the system's
CAs or ``delivery.smtp_ca_file``.

Every failure is one :class:`~deepcite.errors.DeliveryError` line naming the server and
the setting to check; ``retryable`` is true for what may pass later (the server is down,
timed out, hung up, or answered with a 4xx "try again" code), false for what will not
(a refused login or address, a certificate that is not trusted, no STARTTLS).

The SMTP server is a configured service, like an Ollama URL: the egress policy, which
judges http(s) URLs, does not apply to it.

:class:`EmailTarget` is the channel (:mod:`deepcite.watches.channels`): the addresses
one message goes to and the format the report is attached in.
"""

from __future__ import annotations

import mimetypes
import re
import smtplib
import socket
import ssl
from collections.abc import Iterator, Sequence
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Annotated, ClassVar, Literal

from pydantic import Field, field_validator

from deepcite.config import Settings
from deepcite.config_sections import DeliverySettings
from deepcite.errors import ConfigError, DeliveryError, error_line
from deepcite.export import EXPORTER_REGISTRY
from deepcite.security.terminal import one_line, terminal_safe
from deepcite.watches.channels import (
    Attachment,
    DeliveryTarget,
    FormInput,
    SendContext,
    Sender,
    TargetProblem,
)
from deepcite.watches.notice import Notice

__all__ = ["EmailSender", "EmailTarget", "build_message"]

DEFAULT_PORTS = {"starttls": 587, "ssl": 465, "none": 25}
MAX_SUBJECT = 200
MAX_RECIPIENTS = 20
_UNSAFE_FILENAME = re.compile(r"[^\w.+-]+")
_ADDRESS = re.compile(r"[^@\s<>,;\"']+@[^@\s<>,;\"']+\.[^@\s<>,;\"']+")


class EmailTarget(DeliveryTarget):
    """Email over the configured SMTP server: the change summary in the body, the
    report attached in ``attach`` format (``None``: no attachment)."""

    kind: Literal["email"] = "email"
    to: list[Annotated[str, Field(min_length=3, max_length=254)]] = Field(
        min_length=1, max_length=MAX_RECIPIENTS)
    #: An exporter name (``deepcite export --help`` lists them), e.g. ``markdown``,
    #: ``html``, ``pdf``; checked against the exporters at submit.
    attach: Annotated[str, Field(min_length=1, max_length=32)] | None = "markdown"

    description: ClassVar[str] = "one email to the given addresses, over delivery.smtp_*"
    form: ClassVar[FormInput | None] = FormInput(
        "emails", "Email to", "(addresses separated by commas)", phrase="by email",
        multiline=False, split=re.compile(r"[\s,;]+"), autocomplete="email",
        attachment=True)

    @field_validator("to")
    @classmethod
    def _addresses(cls, value: list[str]) -> list[str]:
        for address in value:
            if not _ADDRESS.fullmatch(address.strip()):
                raise ValueError(f"{address!r} is not an email address (name@example.org)")
        return [address.strip() for address in value]

    @classmethod
    def from_input(cls, values: Sequence[str], *, attach: str | None = None
                   ) -> Iterator[DeliveryTarget]:
        """One target for every address given, with the chosen attachment."""
        yield cls(to=list(values), attach=attach)

    def checked(self, settings: Settings) -> DeliveryTarget:
        """``attach`` by the export format's canonical name; anything else - a path such
        as ``../../etc/passwd`` included - is refused."""
        if self.attach is None:
            return self
        try:
            fmt = EXPORTER_REGISTRY.resolve(self.attach)
        except ConfigError as exc:
            raise TargetProblem("attach", f"{error_line(exc)} (or none for no "
                                "attachment)") from None
        return self.model_copy(update={"attach": fmt})

    def where(self) -> str:
        return ", ".join(self.to)

    def shown(self) -> str:
        return f"email to {self.where()}" + (f" ({self.attach} attached)"
                                             if self.attach else "")

    def attachment_format(self) -> str | None:
        return self.attach

    @classmethod
    def unavailable_reason(cls, settings: Settings) -> str | None:
        if settings.delivery.smtp_host:
            return None
        return ("this server has no SMTP server configured (delivery.smtp_host), so "
                "emails wait, visibly pending, until one is")

    @classmethod
    def sender(cls, context: SendContext) -> Sender | None:
        """The SMTP sender, only when ``delivery.smtp_host`` is set (a watch with an
        email target and no server has its deliveries wait, visibly pending)."""
        delivery = context.settings.delivery
        return EmailSender(delivery) if delivery.smtp_host else None


class EmailSender:
    """Sends notices to :class:`EmailTarget` s through one SMTP server.

    ``EmailSender(settings.delivery)``; ``delivery.smtp_host`` must be set (else
    :class:`ConfigError`), and the From address is ``delivery.smtp_from``, or
    ``smtp_username`` when that is an address. One connection per :meth:`send`, so a
    sender is safe to share between threads.
    """

    def __init__(self, settings: DeliverySettings) -> None:
        if not settings.smtp_host:
            raise ConfigError("delivery.smtp_host is not set: there is no SMTP server to "
                              "send watch emails through")
        sender = settings.smtp_from or (
            settings.smtp_username if settings.smtp_username and "@" in settings.smtp_username
            else None)
        if not sender:
            raise ConfigError("delivery.smtp_from is not set: watch emails need a From "
                              "address (e.g. deepcite@example.org)")
        self.settings = settings
        self.host = settings.smtp_host
        self.port = settings.smtp_port or DEFAULT_PORTS[settings.smtp_security]
        self.sender = sender
        self.server = f"SMTP {self.host}:{self.port}"

    def tls_context(self) -> ssl.SSLContext:
        """A verifying TLS context: the system's CAs, or ``delivery.smtp_ca_file``."""
        ca_file = self.settings.smtp_ca_file
        try:
            return ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
        except (OSError, ssl.SSLError) as exc:
            raise DeliveryError(f"{self.server}: cannot read the CA file {ca_file} "
                                f"({_reason(exc)}) - check delivery.smtp_ca_file") from None

    def send(self, target: DeliveryTarget, notice: Notice, *,
             attachment: Attachment | None) -> None:
        """Mail ``notice`` to every address of ``target``; DeliveryError on failure."""
        if not isinstance(target, EmailTarget):
            raise DeliveryError(f"the email sender cannot send to a {target.kind} target")
        message = build_message(notice, self.sender, target.to, attachment)
        try:
            self._deliver(message)
        except DeliveryError:
            raise
        except (smtplib.SMTPException, OSError) as exc:
            raise self._explain(exc) from None

    def _deliver(self, message: EmailMessage) -> None:
        security = self.settings.smtp_security
        timeout = self.settings.smtp_timeout_seconds
        context = self.tls_context() if security != "none" else None
        client: smtplib.SMTP
        if security == "ssl":
            client = smtplib.SMTP_SSL(self.host, self.port, timeout=timeout, context=context)
        else:
            client = smtplib.SMTP(self.host, self.port, timeout=timeout)
        with client:
            client.ehlo()
            if security == "starttls":
                if not client.has_extn("starttls"):
                    raise DeliveryError(
                        f"{self.server} does not offer STARTTLS - set delivery.smtp_security "
                        "to ssl (port 465) or, on a trusted network only, none")
                client.starttls(context=context)
                client.ehlo()
            if self.settings.smtp_username:
                password = self.settings.smtp_password
                client.login(self.settings.smtp_username,
                             password.get_secret_value() if password else "")
            client.send_message(message)

    def _explain(self, exc: smtplib.SMTPException | OSError) -> DeliveryError:
        """The one line for what went wrong, and whether trying later may help."""
        server = self.server
        if isinstance(exc, smtplib.SMTPAuthenticationError):
            return DeliveryError(f"{server} refused the login - check "
                                 "delivery.smtp_username/smtp_password",
                                 status=exc.smtp_code)
        if isinstance(exc, smtplib.SMTPNotSupportedError):
            return DeliveryError(f"{server} does not support what was asked ({_reason(exc)})"
                                 " - check delivery.smtp_security and smtp_username")
        if isinstance(exc, smtplib.SMTPRecipientsRefused):
            codes = [code for code, _ in exc.recipients.values()]
            refused = ", ".join(sorted(exc.recipients))
            return DeliveryError(f"{server} refused the recipients {refused} - check the "
                                 "watch's email addresses",
                                 retryable=all(400 <= code < 500 for code in codes),
                                 status=codes[0] if codes else None)
        if isinstance(exc, smtplib.SMTPSenderRefused):
            return DeliveryError(f"{server} refused the sender {self.sender} "
                                 f"({exc.smtp_code}) - check delivery.smtp_from",
                                 retryable=400 <= exc.smtp_code < 500, status=exc.smtp_code)
        if isinstance(exc, smtplib.SMTPConnectError):
            return DeliveryError(f"{server} refused the connection ({exc.smtp_code} "
                                 f"{_reason(exc.smtp_error)})",
                                 retryable=400 <= exc.smtp_code < 500, status=exc.smtp_code)
        if isinstance(exc, smtplib.SMTPResponseException):
            return DeliveryError(f"{server} answered {exc.smtp_code} "
                                 f"{_reason(exc.smtp_error)}",
                                 retryable=400 <= exc.smtp_code < 500, status=exc.smtp_code)
        if isinstance(exc, smtplib.SMTPServerDisconnected):
            return DeliveryError(f"{server} closed the connection ({_reason(exc)}) - "
                                 "is delivery.smtp_security right for this port?",
                                 retryable=True)
        if isinstance(exc, ssl.SSLCertVerificationError):
            return DeliveryError(f"{server}: its certificate is not trusted "
                                 f"({exc.verify_message or _reason(exc)}) - check "
                                 "delivery.smtp_host or delivery.smtp_ca_file")
        if isinstance(exc, ssl.SSLError):
            return DeliveryError(f"{server}: TLS failed ({_reason(exc)}) - check "
                                 "delivery.smtp_security (ssl for port 465, starttls for 587)")
        if isinstance(exc, TimeoutError):
            return DeliveryError(f"{server} did not answer within "
                                 f"{self.settings.smtp_timeout_seconds:g} s", retryable=True)
        if isinstance(exc, socket.gaierror):
            return DeliveryError(f"{server}: the host name does not resolve - check "
                                 "delivery.smtp_host", retryable=True)
        if isinstance(exc, ConnectionRefusedError):
            return DeliveryError(f"{server} cannot be reached (connection refused) - check "
                                 "delivery.smtp_host and smtp_port", retryable=True)
        return DeliveryError(f"{server} failed: {_reason(exc)}", retryable=True)


def build_message(notice: Notice, sender: str, to: list[str],
                  attachment: Attachment | None) -> EmailMessage:
    """The email of ``notice``: subject, text body and the attachment, if any."""
    message = EmailMessage()
    message["Subject"] = subject(notice)
    message["From"] = sender
    message["To"] = ", ".join(to)
    message["Date"] = formatdate(usegmt=True)  # when sent: a retry is a new message
    message["Message-ID"] = make_msgid("watch", domain=sender.rsplit("@", 1)[-1])
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies to it
    message["X-Deepcite-Watch"] = one_line(notice.watch_id)[:100]
    message["X-Deepcite-Run"] = one_line(notice.run_id)[:100]
    message.set_content(body(notice))
    if attachment is not None:
        filename, content = attachment
        name = safe_filename(filename)
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        maintype, subtype = kind.split("/", 1)
        message.add_attachment(content, maintype=maintype, subtype=subtype, filename=name)
    return message


def subject(notice: Notice) -> str:
    """``[deepcite] <watch name>: <summary>`` on one line, at most 200 characters."""
    text = one_line(f"[deepcite] {notice.watch_name}: {notice.summary}")
    return text if len(text) <= MAX_SUBJECT else text[:MAX_SUBJECT - 3] + "..."


def body(notice: Notice) -> str:
    """The summary, the changes (unless there are none) and the run's link."""
    parts = [one_line(notice.summary), f"Question: {one_line(notice.question)}"]
    changes = terminal_safe(notice.changes_markdown).strip()
    if changes and not notice.nothing_new:
        parts.append(changes)
    if notice.url:
        parts.append(f"Read the run: {notice.url}")
    return "\n\n".join(parts) + "\n"


def safe_filename(filename: str) -> str:
    """``filename`` without folders or characters a mail client could misread."""
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    name = _UNSAFE_FILENAME.sub("-", name).strip(".-") or "report"
    return name[:120]


def _reason(exc: object) -> str:
    if isinstance(exc, bytes):
        text = exc.decode("utf-8", "replace")
    elif isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror
    else:
        text = str(exc) or type(exc).__name__
    return one_line(text)[:200]
