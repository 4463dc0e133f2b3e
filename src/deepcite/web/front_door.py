"""The web tier's front door: which hosts it answers, who may send a body, how big.

:class:`FrontDoor` is plain ASGI middleware that decides on a request from its headers
alone, *before* the app reads one byte of its body:

1. **Host** (DNS rebinding). A web page whose name re-resolves to this machine reaches
   the server with its own name in ``Host``; answering it would let that page read
   every report, start runs and index folders. Only the names in
   :attr:`WebState.allowed_hosts <deepcite.web.contracts.WebState.allowed_hosts>` are
   answered; others get 421 (Misdirected Request), like the MCP SDK's transport
   security does for ``deepcite mcp --transport streamable-http``. Entries are matched
   without their port (the port never makes a rebinding attack) and case-insensitively:

   - a name or address: ``localhost``, ``127.0.0.1``, ``::1`` or ``[::1]``,
     ``research.example.com`` (``host:port`` is accepted and the port ignored);
   - ``*.example.com``: any name *below* ``example.com`` (not ``example.com`` itself);
   - ``0.0.0.0`` / ``::`` (the server is bound to all interfaces): any IPv4 / any IP
     address literal. An address in ``Host`` cannot be a rebinding attack - rebinding
     needs a DNS name the attacker controls - so it is safe to accept every address
     of a machine whose addresses the server cannot know;
   - ``*``: every host (the check is off; for a proxy that rewrites ``Host``).

   An empty tuple means no host check at all: that is what in-process test clients
   (``Host: testserver``) get. ``deepcite serve`` always passes
   :func:`allowed_hosts_for` its bind address, so the command is never without one:
   loopback binds answer ``localhost``, ``127.0.0.1`` and ``[::1]``; a specific address
   or name answers only that; all interfaces (``0.0.0.0``/``::``, which need a token)
   answer any address literal, ``localhost`` and this machine's host name and FQDN -
   any other name (a reverse proxy's) needs ``--allowed-host NAME``.

2. **Origin** (cross-site requests). A state-changing request (POST, PUT, PATCH,
   DELETE) whose ``Origin`` is not this server's host or an allowed host (``*``
   excepted, which only turns the Host check off) gets 403, and so does one without
   ``Origin`` that a browser marked ``Sec-Fetch-Site: cross-site``. ``Origin: null``
   (an opaque origin: a no-referrer policy, a sandboxed frame, a ``data:`` page) passes
   only when the browser also says ``Sec-Fetch-Site: same-origin``.

3. **Credentials before bodies.** Who is asking is :class:`~deepcite.web.who_is_asking.Gate`'s
   answer, given here for every API request other than ``/api/v1/health`` and the
   OpenAPI document, on a thread, before the body is read: the caller is kept in the
   request's state for the route, or the refusal (401 without or with a wrong token,
   429 once wrong tokens are throttled, 403 for a proxy header from an untrusted
   address) is sent and the connection closed. Open mode (no token, no user) lets
   everyone through; token mode wants the bearer token, or for GET a live page session
   (the live view and downloads cannot send headers); accounts want a personal token,
   a live page session (GET) or a trusted proxy's user. Page form posts need the
   session cookie the form was shown with (every real form post carries it): without a
   valid one they get 403, and when a login is needed, a session that is not (or no
   longer) logged in is sent to the login page, as the route would. ``/login`` and
   ``/register`` get only the small cap.

4. **Body size.** Every route that takes a body (POST, PUT, PATCH, DELETE) has its cap
   written in :data:`~deepcite.web.body_caps.BODY_CAPS` (see there): a
   ``Content-Length`` over it gets 413 at once, and a body streamed without one
   (chunked) is counted as it arrives and cut off with 413 once over.

Refusals are one line: JSON ``{"error": {"code", "message"}}`` under ``/api``, plain
text elsewhere, and they close the connection (the unread body is never read).
"""

from __future__ import annotations

import ipaddress
import logging
import re
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

import anyio.to_thread
from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from deepcite.security.client_address import note_client
from deepcite.security.hosts import is_loopback
from deepcite.web.body_caps import (  # the table lives there; these names stay importable here
    API_PREFIX,
    API_RESEARCH_BODY,
    BODY_CAPS,
    COLLECTION_UPLOAD_BODY,
    KIB,
    LOGIN_PATH,
    LOGOUT_PATH,
    MIB,
    REGISTER_PATH,
    RESEARCH_FORM_BODY,
    SMALL_BODY,
    BodyCap,
    body_cap,
)
from deepcite.web.contracts import WebState
from deepcite.web.sessions import COOKIE, Session
from deepcite.web.who_is_asking import Gate, Refused, peer_address

__all__ = ["API_RESEARCH_BODY", "BODY_CAPS", "COLLECTION_UPLOAD_BODY", "RESEARCH_FORM_BODY",
           "SMALL_BODY", "FrontDoor", "allowed_hosts_for", "bad_allowed_host", "body_cap",
           "host_allowed", "split_host"]

logger = logging.getLogger(__name__)
_DEFAULT_PORTS = {"http": 80, "https": 443}

#: API routes anyone may call, token or not (no body, nothing private).
PUBLIC_API = frozenset({f"{API_PREFIX}/health", f"{API_PREFIX}/openapi.json"})
#: Methods that change state: the Origin check applies to them.
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: Page posts that need no logged-in session (their routes check the CSRF token).
OPEN_POSTS = frozenset({LOGIN_PATH, REGISTER_PATH})


# ------------------------------------------------------------------------ hosts


def split_host(value: str, *, pattern: bool = False) -> str | None:
    """The host of a ``Host`` header (or, with ``pattern``, of an allowed-host entry,
    which may start with ``*.``): lower case, without port, brackets or trailing dot,
    addresses in their normal form; ``None`` when it is not a host at all."""
    split = host_and_port(value, pattern=pattern)
    return split[0] if split is not None else None


def host_and_port(value: str, *, pattern: bool = False) -> tuple[str, int | None] | None:
    """:func:`split_host`'s host, and the port the value names (``None``: none given)."""
    value = value.strip().lower()
    port = ""
    if value.startswith("["):
        name, bracket, port = value[1:].partition("]")
        if not bracket or (port and not port.startswith(":")):
            return None
        port = port[1:]
    elif value.count(":") == 1:
        name, _, port = value.partition(":")
    else:
        name = value  # a bare name, or a bare IPv6 address
    if port and not (port.isascii() and port.isdigit()):
        return None
    name = name[:-1] if name.endswith(".") else name  # one root dot: "localhost."
    number = int(port) if port else None
    address = _address(name)
    if address is not None:
        return str(address), number
    label = r"[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?"
    wildcard = r"(?:\*\.)?" if pattern else ""
    if not re.fullmatch(rf"{wildcard}{label}(?:\.{label})*", name):
        return None
    return name, number


def _address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def host_allowed(name: str, allowed: Iterable[str], *, star: bool = True) -> bool:
    """Whether host ``name`` (a ``Host`` header's, port or not) matches an ``allowed``
    entry (the forms are in the module docstring); ``star=False`` ignores ``*``."""
    normal = split_host(name)
    if normal is None:
        return False
    name = normal
    address = _address(name)
    for entry in allowed:
        pattern = "*" if entry.strip() == "*" else split_host(entry, pattern=True)
        if pattern is None:
            continue
        if pattern == "*":
            if star:
                return True
        elif pattern.startswith("*."):
            if address is None and name.endswith(pattern[1:]):
                return True
        elif pattern == "0.0.0.0":
            if isinstance(address, ipaddress.IPv4Address):
                return True
        elif pattern == "::":
            if address is not None:
                return True
        elif pattern == name:
            return True
    return False


def allowed_hosts_for(bind: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The hosts a server bound to ``bind`` answers (see the module docstring), plus
    ``extra`` (``--allowed-host``); never empty, so the host check is always on."""
    name = split_host(bind) or bind.strip().lower()
    hosts = [name]
    if is_loopback(name):  # the rule `deepcite serve` asks a token by
        hosts += ["localhost", "127.0.0.1", "::1"]
    elif name in ("0.0.0.0", "::", ""):
        hosts += ["localhost", socket.gethostname().lower(), socket.getfqdn().lower()]
    hosts += [entry.strip() for entry in extra if entry.strip()]
    return tuple(dict.fromkeys(host for host in hosts if host))


def bad_allowed_host(entry: str) -> str | None:
    """Why ``entry`` cannot be an ``--allowed-host`` (``None`` when it can)."""
    if entry.strip() == "*" or split_host(entry, pattern=True) is not None:
        return None
    return (f"--allowed-host {entry!r} is not a host: give a name, an address, "
            "*.example.com or *")


# ------------------------------------------------------------------------ the middleware


class FrontDoor:
    """Refuses, from the headers alone, requests for another host, cross-site state
    changes, requests without credentials and bodies over their route's cap; counts a
    body's bytes as the app reads it. Plain ASGI (see ``SecurityHeaders``)."""

    def __init__(self, app: ASGIApp, state: WebState, gate: Gate | None = None) -> None:
        self.app = app
        self.state = state
        #: Who is asking; shared with the API and the pages (``create_app`` passes it).
        self.gate = gate or Gate(state)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # Whom the request stands for, decided once for the door, the API and the pages.
        note_client(scope, self.gate.proxies)
        headers = Headers(scope=scope)
        method: str = scope["method"]
        path: str = scope["path"]
        scheme = str(scope.get("scheme", "http"))
        refusal = (self._wrong_host(headers, path)
                   or self._cross_site(headers, method, path, scheme))
        if refusal is None and path.rstrip("/") not in PUBLIC_API:
            refusal = await self._header_refusal(scope, path)
        if refusal is None:
            if _is_api(path):
                if path.rstrip("/") not in PUBLIC_API:
                    refusal = await self._api_refusal(scope)
            elif method in UNSAFE_METHODS and path not in OPEN_POSTS:
                refusal = await self._session_refusal(scope, path)
        cap = body_cap(method, path)
        if refusal is None:
            refusal = _declared_too_large(headers, method, path, cap)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await _Metered(self.app, scope, cap).run(receive, send)

    def _wrong_host(self, headers: Headers, path: str) -> Response | None:
        allowed = self.state.allowed_hosts
        if not allowed:
            return None
        given = headers.get("host", "")
        host = split_host(given)
        if host is not None and host_allowed(host, allowed):
            return None
        return _refuse(_is_api(path), 421, "misdirected_request",
                       f"This server does not answer to host {given[:100] or '(none)'!r}: "
                       "open it by its own address, or start deepcite serve with "
                       f"--allowed-host {host or 'NAME'}")

    def _cross_site(self, headers: Headers, method: str, path: str,
                    scheme: str) -> Response | None:
        if method not in UNSAFE_METHODS:
            return None
        origin = headers.get("origin")
        fetch_site = headers.get("sec-fetch-site", "").strip().lower()
        if origin is not None and origin.strip().lower() == "null" \
                and fetch_site == "same-origin":
            # An opaque origin: a page with a no-referrer policy, or privacy settings.
            # A sandboxed frame or data: page of another site says "cross-site" here.
            return None
        if origin is None:
            if fetch_site != "cross-site":
                return None
            problem = ("Cross-site request refused: send it from this server's own pages, "
                       "or from a script")
        else:
            if self._same_origin(origin, headers.get("host", ""), scheme):
                return None
            problem = (f"Cross-site request refused: Origin {origin[:100]!r} is not this "
                       "server (a proxy's name needs deepcite serve --allowed-host NAME)")
        return _refuse(_is_api(path), 403, "cross_site", problem)

    def _same_origin(self, origin: str, host_header: str, request_scheme: str) -> bool:
        """Whether ``origin`` is this server: the request's own scheme, host *and port*,
        no user or path; or a name given with ``--allowed-host`` (a proxy's, whose TLS
        ends before this server). Another program on this machine
        (``http://localhost:3000``, ``https://127.0.0.1:8765``) is not."""
        try:
            parsed = urlsplit(origin.strip())
            origin_port = parsed.port
        except ValueError:  # "http://[::1", a port out of range: no origin at all
            return False
        scheme = parsed.scheme.lower()
        if scheme not in _DEFAULT_PORTS or parsed.username is not None \
                or parsed.password is not None or parsed.path or parsed.query \
                or parsed.fragment or not parsed.netloc:
            return False
        origin_host = split_host(parsed.netloc)
        if origin_host is None:
            return False
        own = host_and_port(host_header)
        if own is None:
            return False
        host, host_port = own
        default = _DEFAULT_PORTS[scheme]
        if origin_host == host and (origin_port or default) == (host_port or default) \
                and scheme == request_scheme.lower():
            return True
        return not is_loopback(origin_host) and host_allowed(
            origin_host, self.state.allowed_hosts, star=False)

    async def _header_refusal(self, scope: Scope, path: str) -> Response | None:
        """403 for a trusted-proxy user header the gate does not believe (from an
        untrusted address, naming no account, or a disabled one), on every route but
        the public ones: the pages would otherwise meet the refusal as an error of
        their own. The API's names are looked up by the gate's API check."""
        header = self.state.settings.web.trusted_user_header
        if not header:
            return None
        request = Request(scope)
        value = request.headers.get(header)
        if value is None:
            return None
        api = _is_api(path)
        try:
            if api:
                self.gate.header_name(value, peer_address(request))
            else:
                user = await anyio.to_thread.run_sync(self.gate.header_user, request)
                if user is not None and user.disabled:
                    raise Refused(403, "account_disabled", f"The account {user.name!r} is "
                                  "disabled - ask an admin to enable it")
        except Refused as refused:
            return _refuse(api, refused.status, refused.code, refused.message,
                           headers=refused.headers or None)
        return None

    async def _api_refusal(self, scope: Scope) -> Response | None:
        """The gate's answer for an API request, before its body is read: the caller is
        kept in the request's state for the route (``request.state.caller``), or the
        refusal is sent and the connection closed."""
        try:
            caller = await anyio.to_thread.run_sync(self.gate.api_caller, Request(scope))
        except Refused as refused:
            return _refuse(True, refused.status, refused.code, refused.message,
                           headers=refused.headers or None)
        scope.setdefault("state", {})["caller"] = caller
        return None

    async def _session_refusal(self, scope: Scope, path: str) -> Response | None:
        """A page form post without the session its form was shown with: 403; with a
        session that is not (or no longer) logged in while a login is needed: to the
        login page, as the route itself would."""
        request = Request(scope)
        cookie = request.cookies.get(COOKIE)
        sessions = await anyio.to_thread.run_sync(self.gate.sessions)
        if not sessions.login_required:
            if cookie:
                return None
        else:
            session = sessions.claimed(cookie)
            if session is not None:
                if path == LOGOUT_PATH:
                    return None
                try:
                    live = await anyio.to_thread.run_sync(self._page_login, session,
                                                          request)
                except Refused as refused:
                    return _refuse(False, refused.status, refused.code, refused.message)
                if live:
                    return None
                return _closing(Response(status_code=303, headers={"Location": LOGIN_PATH}))
        return _refuse(False, 403, "no_session", "Your session is missing or has expired - "
                       "reload the page and submit the form again")

    def _page_login(self, session: Session, request: Request) -> bool:
        """Whether a page post's session is logged in (or a trusted proxy names its user)."""
        sessions = self.gate.sessions()
        return self.gate.page_session(sessions.checked(session), request).authed


def _declared_too_large(headers: Headers, method: str, path: str,
                        cap: BodyCap) -> Response | None:
    declared = headers.get("content-length")
    if declared is None:
        return None
    if not declared.strip().isdigit():
        return _refuse(_is_api(path), 400, "bad_content_length",
                       "The Content-Length header is not a number of bytes - send a valid one")
    if int(declared) > cap.limit:
        return _too_large(_is_api(path), method, path, cap)
    return None


def _no_body() -> Receive:
    """A ``receive`` that gives an empty body, then a disconnect: the client's body is
    never read."""
    given = False

    async def receive() -> Message:
        nonlocal given
        if given:
            return {"type": "http.disconnect"}
        given = True
        return {"type": "http.request", "body": b"", "more_body": False}
    return receive


def _closing_send(send: Send) -> Send:
    """``send`` with ``Connection: close`` on the reply: the unread body ends the
    connection."""
    async def closing(message: Message) -> None:
        if message["type"] == "http.response.start":
            MutableHeaders(scope=message)["Connection"] = "close"
        await send(message)
    return closing


class _Metered:
    """One request through the app with its body counted against ``cap``: over it, the
    client gets 413 (unless a reply had started), the app a disconnect."""

    def __init__(self, app: ASGIApp, scope: Scope, cap: BodyCap) -> None:
        self.app, self.scope, self.cap = app, scope, cap
        self.received = 0
        self.started = self.over = self.replied = False
        headers = Headers(scope=scope)
        #: Whether the body was read to its end; a reply to a request whose body was
        #: not closes the connection, so the server never drains an unread body (a
        #: chunked one has no length to refuse it by up front).
        self.body_done = not ("transfer-encoding" in headers
                              or headers.get("content-length", "0").strip() not in ("", "0"))

    async def run(self, receive: Receive, send: Send) -> None:
        async def counted() -> Message:
            if self.over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                self.received += len(message.get("body", b""))
                if not message.get("more_body", False):
                    self.body_done = True
                if self.received > self.cap.limit:
                    self.over = True
                    if not self.started:
                        self.replied = True
                        await _too_large(_is_api(self.scope["path"]), self.scope["method"],
                                         self.scope["path"], self.cap)(self.scope, receive,
                                                                       send)
                    return {"type": "http.disconnect"}
            return message

        async def tracked(message: Message) -> None:
            if self.replied:
                return  # the client has its 413; what the app says after is moot
            if message["type"] == "http.response.start":
                self.started = True
                if not self.body_done:
                    MutableHeaders(scope=message)["Connection"] = "close"
            await send(message)

        try:
            await self.app(self.scope, counted, tracked)
        except Exception:
            if not self.replied:
                raise
            # The app saw the disconnect the cut-off body became and gave up on it.
            logger.debug("request body over %d bytes cut off", self.cap.limit, exc_info=True)


def _is_api(path: str) -> bool:
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")


def _size(limit: int) -> str:
    if limit >= MIB:
        return f"{limit / MIB:.0f} MiB" if limit % MIB == 0 else f"{limit / MIB:.1f} MiB"
    return f"{limit // KIB} KiB"


def _too_large(api: bool, method: str, path: str, cap: BodyCap) -> Response:
    what = f" ({cap.hint})" if cap.hint else ""
    return _refuse(api, 413, "body_too_large",
                   f"Request body too large: {method} {path[:100]} accepts at most "
                   f"{_size(cap.limit)}{what} - send less")


def _refuse(api: bool, status: int, code: str, message: str, *,
            headers: dict[str, str] | None = None) -> Response:
    response: Response = (
        JSONResponse({"error": {"code": code, "message": message}}, status_code=status,
                     headers=headers) if api
        else PlainTextResponse(message, status_code=status, headers=headers))
    return _closing(response)


def _closing(response: Response) -> Response:
    """``response`` closing the connection: the body it refuses is never read, so the
    connection cannot carry another request."""
    response.headers["Connection"] = "close"
    return response
