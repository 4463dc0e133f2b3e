"""Sessions, CSRF tokens and the login rule of the web pages.

The pages keep no server-side session table: a session is a random id (and whether it
logged in) in a cookie signed with HMAC-SHA256, so a restart or a second worker needs
no shared storage. The signing key is derived from the access token when there is one
(sessions survive a restart) and random per process otherwise (loopback: nothing to
protect but CSRF, and a restart only costs a reload).

CSRF: every form carries a token derived from the session id with the same key; a POST
whose token does not match its cookie's session is refused (403). Both comparisons use
:func:`hmac.compare_digest`, so their timing says nothing about the expected value.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass

from fastapi import HTTPException, Request, Response

COOKIE = "deepcite_session"
CSRF_FIELD = "csrf_token"
#: How long a session cookie is valid, in seconds (a week).
SESSION_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class Session:
    """A visitor's session: ``fresh`` when the cookie still has to be set."""

    sid: str
    authed: bool
    fresh: bool = False


class Sessions:
    """Signs and reads session cookies and derives CSRF tokens for one app."""

    def __init__(self, token: str | None) -> None:
        """``token`` is the login password (``None``: no login, loopback)."""
        self.token = token
        self._key = (hashlib.sha256(b"deepcite-pages-session\0" + token.encode()).digest()
                     if token else secrets.token_bytes(32))

    def _sign(self, payload: bytes) -> str:
        return hmac.new(self._key, payload, hashlib.sha256).hexdigest()

    def encode(self, session: Session) -> str:
        """The cookie value: ``base64(payload).signature``."""
        payload = json.dumps({"sid": session.sid, "auth": session.authed,
                              "exp": int(time.time()) + SESSION_SECONDS}).encode()
        data = base64.urlsafe_b64encode(payload).decode().rstrip("=")
        return f"{data}.{self._sign(data.encode())}"

    def decode(self, value: str | None) -> Session | None:
        """The session in a cookie value; ``None`` when absent, forged or expired."""
        if not value or "." not in value:
            return None
        data, signature = value.rsplit(".", 1)
        if not hmac.compare_digest(signature, self._sign(data.encode())):
            return None
        try:
            raw = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
            sid, authed, expires = str(raw["sid"]), bool(raw["auth"]), int(raw["exp"])
        except (ValueError, KeyError, TypeError):
            return None
        if expires < time.time():
            return None
        return Session(sid, authed)

    def load(self, request: Request) -> Session:
        """The request's session, or a new anonymous one (set by :meth:`store`)."""
        return (self.decode(request.cookies.get(COOKIE))
                or Session(secrets.token_urlsafe(18), authed=False, fresh=True))

    def new(self, authed: bool) -> Session:
        """A new session id: logging in never keeps the id an attacker may have set."""
        return Session(secrets.token_urlsafe(18), authed, fresh=True)

    def store(self, response: Response, session: Session, request: Request) -> None:
        """Set the cookie when ``session`` is new (HttpOnly, SameSite=Lax)."""
        if session.fresh:
            response.set_cookie(COOKIE, self.encode(session), max_age=SESSION_SECONDS,
                                httponly=True, samesite="lax", path="/",
                                secure=request.url.scheme == "https")

    def csrf_token(self, session: Session) -> str:
        """The token the session's forms carry."""
        return self._sign(b"csrf\0" + session.sid.encode())

    def check_csrf(self, request: Request, sent: object) -> Session:
        """The request's session if ``sent`` is its CSRF token; else 403."""
        session = self.decode(request.cookies.get(COOKIE))
        if session is None or not isinstance(sent, str) or not hmac.compare_digest(
                sent.encode(), self.csrf_token(session).encode()):
            raise HTTPException(status_code=403, detail="Invalid or missing CSRF token - "
                                "reload the page and submit the form again")
        return session

    def allowed(self, session: Session) -> bool:
        """Whether pages may be shown: no token set, or the session logged in."""
        return self.token is None or session.authed

    def password_ok(self, password: object) -> bool:
        """Whether ``password`` is the token (constant-time)."""
        return (self.token is not None and isinstance(password, str)
                and hmac.compare_digest(password.encode(), self.token.encode()))


def safe_next(target: object) -> str:
    """Where to go after login: a local path only, so the form cannot redirect away."""
    if isinstance(target, str) and target.startswith("/") and not target.startswith("//") \
            and "\\" not in target:
        return target
    return "/"


def logged_in(request: Request, token: str | None) -> bool:
    """Whether ``request`` carries a logged-in page session for ``token``.

    For the API's browser-facing routes (the SSE stream, export downloads): the pages'
    ``EventSource`` and download links cannot send ``Authorization`` headers, but they
    do send this cookie. The key is derived from the token, so any router's sessions
    verify here. Always ``False`` without a token (then nothing needs checking).
    """
    if token is None:
        return False
    session = Sessions(token).decode(request.cookies.get(COOKIE))
    return session is not None and session.authed
