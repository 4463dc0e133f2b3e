"""Who is asking: one :class:`Gate` per app, shared by the front door, the API and the
pages, so every route answers the same question the same way.

A server is in one of three modes, decided per request:

- **open** (no user exists, no ``--token``): loopback only; every request is the one
  person at the keyboard and sees everything.
- **token** (``deepcite serve --token``, no user exists): one secret for one person;
  the pages' login asks for it and the API wants ``Authorization: Bearer <token>``.
- **accounts** (at least one user exists - ``deepcite users add``): every route but
  ``/api/v1/health``, the OpenAPI document, ``/login`` (and ``/register`` when
  ``web.registration`` is on) needs a user: a page session from ``/login``, a personal
  API token (``Authorization: Bearer dc_...``, ``deepcite users token NAME``), or the
  user a trusted reverse proxy names in ``web.trusted_user_header``. The server token
  is refused then, with a message saying what to use instead. Once a process has seen
  a user it stays in this mode: removing every user never opens a running server.

The caller is a :class:`~deepcite.runs.caller.Caller`, the same class the MCP server
hands its tools; its :attr:`~Caller.access` is what the store may show
it (:class:`~deepcite.store.user_rights.Access`) and its :attr:`~Caller.owner` who the runs
it starts belong to. Every check that reads the store blocks: call it on a thread.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import threading
import time
from collections.abc import Callable

from starlette.requests import Request

from deepcite.errors import DeepciteError, DuplicateUserError, InputError, UnknownUserError
from deepcite.runs.caller import Caller
from deepcite.security.client_address import TrustedProxies, client_of, peer_of
from deepcite.store import HistoryStore, UserInfo
from deepcite.store.users_ops import TOKEN_PREFIX
from deepcite.web.contracts import WebState
from deepcite.web.login_throttle import LoginThrottle
from deepcite.web.sessions import COOKIE, Session, Sessions

logger = logging.getLogger(__name__)

#: The name the accounts' cookie-signing key is kept under in the store.
SESSION_KEY_SECRET = "web-session-key"


class Refused(DeepciteError):
    """A request the gate turns away: HTTP ``status``, a ``code`` and a one-line message."""

    def __init__(self, status: int, code: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers or {}


def client_address(request: Request) -> str | None:
    """Whom the request stands for (the throttles' key, the audit log's ``address``):
    the socket peer, or behind a proxy named in ``web.trusted_proxies`` the address it
    forwards (:mod:`deepcite.security.client_address`); ``None`` when the server does
    not know it (a unix socket)."""
    return client_of(request.scope)


def peer_address(request: Request) -> str | None:
    """The socket peer's address: the only one that says whether a request came
    through a trusted proxy (no header can make a client one)."""
    return peer_of(request.scope)


def _unauthorized(message: str) -> Refused:
    return Refused(401, "unauthorized", message, {"WWW-Authenticate": "Bearer"})


class Gate:
    """The app's answer to "who is asking" (see the module docstring). ``sessions``
    replaces the token mode's sessions and ``throttle`` the API tokens' throttle, for
    tests with a clock of their own."""

    def __init__(self, state: WebState, *, sessions: Sessions | None = None,
                 throttle: LoginThrottle | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.state = state
        self.clock = clock
        self.throttle = throttle or LoginThrottle()
        #: The proxies whose forwarded headers count (``web.trusted_proxies``).
        self.proxies = TrustedProxies(state.settings.web.trusted_proxies)
        self._token_sessions = sessions or Sessions(state.token, self._store, clock)
        self._account_sessions: Sessions | None = None
        self._accounts_seen = False
        self._lock = threading.Lock()

    def _store(self) -> HistoryStore:
        return self.state.executor.store

    # ------------------------------------------------------------------ the mode

    def accounts(self) -> bool:
        """Whether the server is in accounts mode (a user exists or has existed since
        this process started). One small read until the first user is seen."""
        if not self._accounts_seen and self._store().has_users():
            self._accounts_seen = True
        return self._accounts_seen

    def sessions(self) -> Sessions:
        """The sessions of the current mode (blocks: it may read the store)."""
        if not self.accounts():
            return self._token_sessions
        with self._lock:
            if self._account_sessions is None:
                web = self.state.settings.web
                key = bytes.fromhex(self._store().server_secret(SESSION_KEY_SECRET))
                self._account_sessions = Sessions(
                    None, self._store, self.clock, accounts_key=key,
                    idle_s=web.session_idle_minutes * 60.0,
                    max_s=web.session_max_hours * 3600.0)
            return self._account_sessions

    # ------------------------------------------------------------------ trusted header

    def header_user(self, request: Request) -> UserInfo | None:
        """The user a trusted proxy names in ``web.trusted_user_header``; ``None`` when
        the mode is off or the header absent. A :class:`Refused` (403) when the header
        comes from an address not in ``web.trusted_proxies`` - it is never believed,
        and never silently ignored - or names no account (and none may be made)."""
        web = self.state.settings.web
        name = self.header_name(request.headers.get(web.trusted_user_header or ""),
                                peer_address(request))
        if name is None:
            return None
        store = self._store()
        try:
            return store.user(name)
        except UnknownUserError:
            pass
        if not web.trusted_header_creates_users:
            raise Refused(403, "no_account", f"There is no account {name[:200]!r} - ask an "
                          "admin to add it (deepcite users add NAME)")
        try:
            user = store.add_user(name, secrets.token_urlsafe(32))
        except DuplicateUserError:
            return store.user(name)
        except InputError:
            raise Refused(403, "bad_user_name", f"{name[:200]!r} cannot name an account - "
                          "have the proxy send a name of letters, digits, '.', '_', '@' "
                          "or '-'") from None
        store.audit("user.create", actor=None, target=user.name,
                    detail={"via": "trusted-header"}, address=client_address(request))
        self._accounts_seen = True
        return user

    def header_name(self, value: str | None, peer: str | None) -> str | None:
        """The user name the trusted header ``value`` gives, on a connection from
        ``peer`` (the socket peer, never a forwarded address); ``None`` when the mode is
        off or the header absent. A :class:`Refused` (403) when ``peer`` is not in
        ``web.trusted_proxies`` or the name is empty. Reads nothing: the front door asks
        it of every request."""
        web = self.state.settings.web
        header = web.trusted_user_header
        if not header or value is None:
            return None
        if not self.proxies.trusts(peer):
            logger.warning("refused %s from untrusted address %s", header, peer)
            raise Refused(403, "untrusted_header", f"The {header} header is only accepted "
                          "from the trusted proxies (web.trusted_proxies) - connect "
                          "through the proxy")
        name = value.strip()
        if not name:
            raise Refused(403, "no_account", f"The {header} header names no user - have "
                          "the proxy send the logged-in user's name")
        return name

    def page_session(self, session: Session, request: Request) -> Session:
        """``session`` logged in as the trusted header's user, when a trusted proxy
        names one and the session has no login of its own."""
        if session.authed and session.user is not None:
            return session
        user = self.header_user(request)
        if user is None or user.disabled:
            return session
        return Session(session.sid, True, session.fresh, user)

    # ------------------------------------------------------------------ the API

    def api_caller(self, request: Request) -> Caller:
        """Who calls an API route, or a :class:`Refused` saying what to send.

        Open mode: anyone (loopback only). Token mode: the bearer token, or for GET
        a live page session (the pages' event stream and downloads cannot send
        headers). Accounts: a personal token, a trusted-header user, or for GET a live
        page session. Wrong tokens are throttled per address, as wrong passwords."""
        user = self.header_user(request)
        if user is not None:
            if user.disabled:
                raise Refused(403, "account_disabled", f"The account {user.name!r} is "
                              "disabled - ask an admin to enable it")
            return Caller(user, "header")
        accounts = self.accounts()
        if not accounts and self.state.token is None:
            return Caller()
        sessions = self.sessions()
        if request.method in ("GET", "HEAD"):
            claimed = sessions.claimed(request.cookies.get(COOKIE))
            if claimed is not None and claimed.authed:
                live = sessions.checked(claimed)
                if live.authed:
                    return Caller(live.user, "session")
        authorization = request.headers.get("authorization")
        host = client_address(request)
        if authorization is None:
            raise _unauthorized("A valid token is required: send Authorization: Bearer "
                                "<token>" + (" (a personal one: deepcite users token NAME)"
                                             if accounts else ""))
        wait = self.throttle.retry_after(host)
        if wait is not None:
            raise Refused(429, "too_many_attempts", f"Too many wrong tokens - wait {wait} "
                          "seconds, then retry with the right token",
                          {"Retry-After": str(wait)})
        scheme, _, given = authorization.partition(" ")
        given = given.strip()
        if scheme.lower() == "bearer":
            if accounts and given.startswith(TOKEN_PREFIX):
                owner = self._store().token_owner(given, address=host)
                if owner is not None:
                    self.throttle.succeeded(host)
                    return Caller(owner, "api-token")
            elif not accounts and self.state.token is not None and hmac.compare_digest(
                    given.encode("utf-8"), self.state.token.encode("utf-8")):
                self.throttle.succeeded(host)
                return Caller(None, "token")
            elif accounts and self.state.token is not None and hmac.compare_digest(
                    given.encode("utf-8"), self.state.token.encode("utf-8")):
                raise _unauthorized("This server has user accounts: the server token no "
                                    "longer opens it - use a personal token (deepcite "
                                    "users token NAME, or the settings page)")
        self.throttle.failed(host)
        raise _unauthorized("A valid token is required: send Authorization: Bearer <token>")

