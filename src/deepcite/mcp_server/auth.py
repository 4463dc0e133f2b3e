"""Who asks over MCP's HTTP transport: a bearer-token check in front of the SDK's app.

Without user accounts ``deepcite mcp --transport http`` is open, as it always was (it
binds to loopback unless ``--allow-remote``), and every caller sees everything. Once any
user exists in the history store (``deepcite users add``) every HTTP request needs
``Authorization: Bearer dc_...``, a personal token (``deepcite users token NAME``); a
process that has seen a user stays in that mode, so removing every user never opens a
running server. The token is looked up on *every* request, not once per MCP session,
so revoking it or disabling its user works at once. Wrong tokens are throttled per
client address as the web app's are (the throttle is handed in: the web package is a
sibling layer this one may not import). The address is decided as the web app's is
(:mod:`deepcite.security.client_address`): the socket peer, or the address a proxy
named in ``web.trusted_proxies`` forwards - never a header from anyone else.

The caller reaches the tools two ways. It is stamped in the request's ASGI scope, and
the SDK hands each tool the HTTP request that carried its call
(``ctx.request_context.request``): :func:`caller_of` reads it there, which depends on
nothing but that. It is also in :data:`CALLER`, a context variable set for the request:
the SDK (2.x) snapshots the sender's context with every message it passes to a
session's task, so the variable reaches the tool too, per call, even in a session
another caller opened (tests/unit/test_mcp_accounts.py checks both). Without a request
(stdio, an in-process client) the caller is the local user, who sees everything. The
caller is a :class:`~deepcite.runs.caller.Caller`, the class the web app's gate decides
too, so both front ends answer what a caller sees and owns the same way.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

import anyio.to_thread

from deepcite.errors import DeepciteError
from deepcite.runs.caller import LOCAL, Caller
from deepcite.security.client_address import TrustedProxies, client_of, note_client
from deepcite.store import HistoryStore
from deepcite.store.users_ops import TOKEN_PREFIX

logger = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The key of the caller in a request's ASGI scope.
SCOPE_KEY = "deepcite.mcp.caller"
#: What every refusal says to do.
HOW = "send Authorization: Bearer <your token> (deepcite users token NAME)"
#: The JSON-RPC error code of a refused request (the server-defined range).
REFUSED_CODE = -32001


#: The caller of the current HTTP request, set for the request's own task.
CALLER: ContextVar[Caller | None] = ContextVar("deepcite_mcp_caller", default=None)


class NoAccountCheck(DeepciteError):
    """An HTTP request reached a tool without passing :class:`TokenGate`."""


def caller_of(request: object | None) -> Caller:
    """The caller of a tool, from the HTTP request the SDK hands it, which
    :class:`TokenGate` stamped. No request at all is stdio or an in-process client: the
    local user. Anything else - a request no gate stamped, or no request while an HTTP
    caller is in :data:`CALLER` - is refused, never guessed."""
    scope = getattr(request, "scope", None)
    if isinstance(scope, Mapping) and isinstance(scope.get(SCOPE_KEY), Caller):
        stamped: Caller = scope[SCOPE_KEY]
        return stamped
    if request is None and CALLER.get() is None:
        return LOCAL
    raise NoAccountCheck("This MCP server could not tell who asks - start it with "
                         "`deepcite mcp --transport http` and send Authorization: Bearer "
                         "<your token>")


class Throttle(Protocol):
    """Counts wrong tokens per client address
    (:class:`deepcite.web.login_throttle.LoginThrottle`)."""

    def retry_after(self, host: str | None) -> int | None:
        """Seconds until ``host`` may try again, ``None`` when it may try now."""

    def failed(self, host: str | None) -> None:
        """Count a wrong token from ``host``."""

    def succeeded(self, host: str | None) -> None:
        """``host`` sent a right token: forget its failures."""


@dataclass(frozen=True)
class _Refusal:
    status: int
    message: str
    headers: tuple[tuple[str, str], ...] = (("www-authenticate", "Bearer"),)


class TokenGate:
    """ASGI middleware: stamps every HTTP request with its
    :class:`~deepcite.runs.caller.Caller`, or answers
    401 (no token, a wrong, revoked or disabled user's one) or 429 (too many wrong
    tokens from the address) with a one-line JSON-RPC error saying what to send.
    ``store`` opens the history store, once, on first use (it blocks: it runs on a
    worker thread); ``proxies`` are those whose ``X-Forwarded-For`` counts."""

    def __init__(self, app: ASGIApp, *, store: Callable[[], HistoryStore],
                 throttle: Throttle, proxies: TrustedProxies | None = None) -> None:
        self.app = app
        self.throttle = throttle
        self.proxies = proxies or TrustedProxies()
        self._open_store = store
        self._store: HistoryStore | None = None
        self._lock = threading.Lock()
        self._accounts_seen = False

    def store(self) -> HistoryStore:
        """The history store the tokens are checked against (blocks)."""
        with self._lock:
            if self._store is None:
                self._store = self._open_store()
            return self._store

    def close(self) -> None:
        """Close the store, when it was opened."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def accounts(self) -> bool:
        """Whether tokens are required: a user exists, or has since this process started
        (one small read until the first user is seen; blocks)."""
        if not self._accounts_seen and self.store().has_users():
            self._accounts_seen = True
        return self._accounts_seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # the lifespan: the SDK's session manager
            await self.app(scope, receive, send)
            return
        note_client(scope, self.proxies)
        verdict = await anyio.to_thread.run_sync(self._check, scope)
        if isinstance(verdict, _Refusal):
            await _refuse(verdict, send)
            return
        scope[SCOPE_KEY] = verdict
        token = CALLER.set(verdict)
        try:
            await self.app(scope, receive, send)
        finally:
            CALLER.reset(token)

    def _check(self, scope: Scope) -> Caller | _Refusal:
        """Who sends this request, or why it is refused (blocks: reads the store)."""
        if not self.accounts():
            return LOCAL
        host = client_of(scope)
        authorization = _header(scope, b"authorization")
        if authorization is None:
            return _Refusal(401, f"This server has user accounts: {HOW}")
        wait = self.throttle.retry_after(host)
        if wait is not None:
            return _Refusal(429, f"Too many wrong tokens - wait {wait} seconds, then {HOW}",
                            (("retry-after", str(wait)),))
        scheme, _, given = authorization.partition(" ")
        given = given.strip()
        if scheme.lower() == "bearer" and given.startswith(TOKEN_PREFIX):
            user = self.store().token_owner(given)
            if user is not None:
                self.throttle.succeeded(host)
                return Caller(user, "api-token")
        self.throttle.failed(host)
        logger.info("refused an MCP request with a wrong token from %s", host)
        return _Refusal(401, "The token is unknown, revoked or its user disabled: " + HOW)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def _refuse(refusal: _Refusal, send: Send) -> None:
    """Answer ``refusal`` as a JSON-RPC error (id ``null``: the request was not read)."""
    body = json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": REFUSED_CODE, "message": refusal.message}}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    headers += [(key.encode(), value.encode()) for key, value in refusal.headers]
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
