"""Sessions, CSRF tokens and the login rule of the web pages.

A session is a random id (and whether it logged in) in a cookie signed with
HMAC-SHA256. A logged-in session is also recorded in the history store
(:mod:`deepcite.store.sessions_ops`, the id hashed), and a cookie claiming one is
accepted only while that record is live: logging out revokes it, so every copy of the
cookie stops working in every web process sharing the store, and a session ends
server-side after :data:`SESSION_SECONDS` whatever the cookie says. Anonymous sessions
(no token, or not logged in yet) only carry the CSRF token and cost no database
write: the pages and the API check the store only for cookies that claim a login.

The signing key is derived from the access token when there is one, with scrypt (so a
cookie - any visitor gets one - cannot be used to guess the token offline at hash
speed), and is random per process otherwise (loopback: nothing to protect but CSRF).
A cookie signed under another token does not verify, and the first login under a new
token revokes the sessions of the old one (:meth:`SessionOps.open_web_session`), so a
token change ends them for good.

With user accounts (:mod:`deepcite.web.who_is_asking` switches to them once any user exists)
the key is a random secret kept in the store (every process shares it), a logged-in
session names its user, and it is live only while that user is enabled and it was used
within ``web.session_idle_minutes``; it ends ``web.session_max_hours`` after login
whatever happens. Changing the password, disabling or removing the user, or an admin's
"end sessions" revokes every session of theirs at once.

CSRF: every form carries a token derived from the session id with the same key; a POST
whose token does not match its cookie's session is refused (403). Both comparisons use
:func:`hmac.compare_digest`, so their timing says nothing about the expected value.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from fastapi import HTTPException, Request, Response

from deepcite.store.read_models import UserInfo

COOKIE = "deepcite_session"
CSRF_FIELD = "csrf_token"
#: How long a logged-in session lasts, in seconds (a week), in the cookie and in the
#: store; it is not extended by use.
SESSION_SECONDS = 7 * 24 * 3600
_KDF_SALT = b"deepcite-pages-session"


class SessionStore(Protocol):
    """What sessions need of the history store (:class:`~deepcite.store.HistoryStore`)."""

    def open_web_session(self, session_id: str, *, token_tag: str, expires_at: datetime,
                         user_name: str | None = None, now: datetime | None = None) -> None:
        """Record a session that has just logged in."""
        ...

    def web_session_live(self, session_id: str, *, token_tag: str,
                         now: datetime | None = None) -> bool:
        """Whether the session is recorded, unrevoked, unexpired and of ``token_tag``."""
        ...

    def revoke_web_session(self, session_id: str, *, now: datetime | None = None) -> bool:
        """End the session."""
        ...

    def web_session_user(self, session_id: str, *, token_tag: str, idle_s: float,
                         now: datetime | None = None) -> UserInfo | None:
        """The enabled user of a live, recently used session, else ``None``."""
        ...


@dataclass(frozen=True)
class Session:
    """A visitor's session: ``fresh`` when the cookie still has to be set; ``user`` is
    who logged in, with accounts (``None`` otherwise)."""

    sid: str
    authed: bool
    fresh: bool = False
    user: UserInfo | None = None


@functools.lru_cache(maxsize=8)
def _token_key(token: str) -> bytes:
    """The signing key for ``token``: scrypt (about 16 MiB and tens of milliseconds, once
    per process), so that guessing the token from a cookie costs that per guess."""
    return hashlib.scrypt(token.encode("utf-8"), salt=_KDF_SALT, n=2**14, r=8, p=1, dklen=32)


class Sessions:
    """Signs, checks and ends the session cookies of one app, and derives CSRF tokens."""

    def __init__(self, token: str | None, store: Callable[[], SessionStore] | None = None,
                 clock: Callable[[], float] = time.time, *, accounts_key: bytes | None = None,
                 idle_s: float = 8 * 3600, max_s: float = SESSION_SECONDS) -> None:
        """``token`` is the login password (``None``: no login, loopback); ``store``
        gives the store logged-in sessions are kept in (required with a token: without
        one no login is ever accepted); ``clock`` is the time in epoch seconds.

        ``accounts_key`` (the store's shared secret) makes these the sessions of user
        accounts: logins name a user, idle ones end after ``idle_s`` seconds, every one
        after ``max_s``."""
        self.token = token
        self._store = store
        self.clock = clock
        self.accounts = accounts_key is not None
        self.idle_s, self.max_s = idle_s, max_s
        self._key = (accounts_key if accounts_key is not None
                     else _token_key(token) if token else secrets.token_bytes(32))
        #: Names the token in the store's rows without revealing it.
        self.token_tag = self._sign(b"token-tag")

    def _sign(self, payload: bytes) -> str:
        return hmac.new(self._key, payload, hashlib.sha256).hexdigest()

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    def encode(self, session: Session) -> str:
        """The cookie value: ``base64(payload).signature``."""
        payload = json.dumps({"sid": session.sid, "auth": session.authed,
                              "exp": int(self.clock() + self.max_s)}).encode()
        data = base64.urlsafe_b64encode(payload).decode().rstrip("=")
        return f"{data}.{self._sign(data.encode())}"

    def claimed(self, value: str | None) -> Session | None:
        """The session a cookie value claims, checked by signature and expiry only;
        ``None`` when absent, forged or expired."""
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
        if expires < self.clock():
            return None
        return Session(sid, authed)

    @property
    def login_required(self) -> bool:
        """Whether pages need a login: a token is set, or user accounts exist."""
        return self.token is not None or self.accounts

    def live(self, session: Session) -> bool:
        """Whether a logged-in ``session`` is still live in the store (not logged out,
        not expired, opened under this token or key; with accounts, its user enabled
        and the session not idle). One indexed read."""
        return self.checked(session).authed

    def checked(self, session: Session) -> Session:
        """``session`` as the store has it: logged in (with its user, with accounts)
        only while it is live; else the same id, not logged in."""
        if not session.authed:
            return session
        if self._store is not None:
            if self.accounts:
                user = self._store().web_session_user(
                    session.sid, token_tag=self.token_tag, idle_s=self.idle_s,
                    now=self._now())
                if user is not None:
                    return Session(session.sid, True, session.fresh, user)
            elif self.token is not None and self._store().web_session_live(
                    session.sid, token_tag=self.token_tag, now=self._now()):
                return session
        return Session(session.sid, authed=False)

    def decode(self, value: str | None) -> Session | None:
        """The session in a cookie value, logged in only while the store says it is
        live; ``None`` when absent, forged or expired."""
        session = self.claimed(value)
        return self.checked(session) if session is not None else None

    def load(self, request: Request) -> Session:
        """The request's session; a new anonymous one (set by :meth:`store`) when there
        is none or its login has ended, so the dead cookie gets replaced."""
        session = self.claimed(request.cookies.get(COOKIE))
        if session is None:
            return self.new(authed=False)
        live = self.checked(session)
        return live if live.authed or not session.authed else self.new(authed=False)

    def new(self, authed: bool) -> Session:
        """A new session id: logging in never keeps the id an attacker may have set.
        Not recorded anywhere: :meth:`log_in` makes a logged-in one."""
        return Session(secrets.token_urlsafe(18), authed, fresh=True)

    def log_in(self, user: UserInfo | None = None) -> Session:
        """A new logged-in session (of ``user``, with accounts), recorded in the store
        (set it with :meth:`store`)."""
        if self._store is None:
            raise RuntimeError("Sessions needs a store to log in")  # a wiring bug
        session = Session(secrets.token_urlsafe(18), True, fresh=True, user=user)
        now = self.clock()
        self._store().open_web_session(
            session.sid, token_tag=self.token_tag,
            user_name=user.name if user is not None else None,
            expires_at=datetime.fromtimestamp(now + self.max_s, UTC),
            now=datetime.fromtimestamp(now, UTC))
        return session

    def log_out(self, session: Session) -> None:
        """End ``session`` in the store: no copy of its cookie opens anything after."""
        if session.authed and self._store is not None:
            self._store().revoke_web_session(session.sid, now=self._now())

    def store(self, response: Response, session: Session, request: Request) -> None:
        """Set the cookie when ``session`` is new (HttpOnly, SameSite=Lax)."""
        if session.fresh:
            response.set_cookie(COOKIE, self.encode(session), max_age=int(self.max_s),
                                httponly=True, samesite="lax", path="/",
                                secure=request.url.scheme == "https")

    def csrf_token(self, session: Session) -> str:
        """The token the session's forms carry."""
        return self._sign(b"csrf\0" + session.sid.encode())

    def check_csrf(self, request: Request, sent: object) -> Session:
        """The request's session if ``sent`` is its CSRF token; else 403. A session
        whose login has ended comes back not logged in (its CSRF token still holds, so
        it can log out or in again)."""
        session = self.claimed(request.cookies.get(COOKIE))
        if session is None or not isinstance(sent, str) or not hmac.compare_digest(
                sent.encode(), self.csrf_token(session).encode()):
            raise HTTPException(status_code=403, detail="Invalid or missing CSRF token - "
                                "reload the page and submit the form again")
        return self.checked(session)

    def allowed(self, session: Session) -> bool:
        """Whether pages may be shown: no login needed, or the session logged in (as
        checked against the store by :meth:`load`/:meth:`check_csrf`)."""
        return not self.login_required or session.authed

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


def logged_in(request: Request, token: str | None, store: SessionStore) -> bool:
    """Whether ``request`` carries a live logged-in page session for ``token``.

    For the API's browser-facing routes (the SSE stream, export downloads): the pages'
    ``EventSource`` and download links cannot send ``Authorization`` headers, but they
    do send this cookie. The key is derived from the token, so any router's sessions
    verify here, and ``store`` (the history store the pages record sessions in) says
    whether the session was logged out. Always ``False`` without a token.
    """
    if token is None:
        return False
    session = Sessions(token, lambda: store).decode(request.cookies.get(COOKIE))
    return session is not None and session.authed
