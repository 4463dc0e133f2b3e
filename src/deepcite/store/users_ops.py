"""User accounts, their API tokens and the audit log, kept in the history store.

Names are unique regardless of case (``Bob`` and ``bob`` are one user): rows keep the
name as typed and its case-folded form, which every lookup uses. Passwords are hashed
with Argon2id (:mod:`deepcite.security.passwords`, argon2-cffi from the ``web`` extra)
and never stored, logged or put in an error message. API tokens are ``dc_`` plus 32
random bytes (URL-safe base64); the store keeps only their SHA-256 as hex, so the
plaintext is shown once, when it is made, and whoever reads the database cannot use a
token from it.

Once any user exists the web app, the REST API and MCP over HTTP need a session or a
token (``docs/accounts.md``). Changing a password, disabling or removing a user ends
every web session of theirs at once (:meth:`UserOps.end_sessions`); a password change
revokes their API tokens too, and removing a user deletes them
(:mod:`deepcite.store.removal_ops`). The first admin
created takes over the runs recorded before accounts existed (``owner_id`` ``NULL``).
"""

from __future__ import annotations

import builtins
import hashlib
import re
import secrets
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import exc, func, select, update
from sqlalchemy.orm import Session

from deepcite.errors import DuplicateUserError, InputError, UnknownUserError
from deepcite.security.passwords import hash_password, needs_rehash, verify_password
from deepcite.store.base import StoreBase
from deepcite.store.models import ApiTokenRow, AuditRow, Run, UserRow, WebSessionRow
from deepcite.store.read_models import AuditEntry, TokenInfo, UserInfo

MIN_PASSWORD = 8
"""The shortest password accepted."""
MAX_PASSWORD = 1024
"""The longest password accepted (hashing a huge one is work an attacker could ask for)."""
TOKEN_PREFIX = "dc_"
"""Every API token starts with it, so one that leaks is easy to recognise (and scan for)."""
TOKEN_USE_GAP = timedelta(hours=1)
"""A token's use is audited (``token.use``) when it was last used longer ago than this."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,199}")
_LIST_HINT = "`deepcite users list` shows the users"


def token_hash(token: str) -> str:
    """What a token is stored as: the SHA-256 of it, as hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_user_name(name: str) -> str:
    """``name`` when it can name a user (letters, digits, ``.``, ``_``, ``@``, ``-``;
    1 to 200 characters, starting with a letter or digit), else a one-line InputError."""
    if not _NAME.fullmatch(name):
        raise InputError(f"User name {name!r} cannot be used - use 1 to 200 letters, digits, "
                         "'.', '_', '@' or '-', starting with a letter or digit")
    return name


def check_new_password(password: str) -> str:
    """``password`` when it is long enough (and not absurdly long), else a one-line
    InputError that does not quote it."""
    if len(password) < MIN_PASSWORD:
        raise InputError(f"The password is too short - use at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise InputError(f"The password is too long - use at most {MAX_PASSWORD} characters")
    return password


@cache
def _dummy_hash() -> str:
    """A hash no password matches, verified when a user does not exist, so that a login
    for an unknown name costs as long as one for a known name."""
    return hash_password(secrets.token_urlsafe(32))


def _worth_noting(last_used: datetime | None, now: datetime) -> bool:
    """Whether a token's use goes to the audit log: its first, or the first after
    :data:`TOKEN_USE_GAP` of quiet - every request would flood the log."""
    if last_used is None:
        return True
    if last_used.tzinfo is None:  # SQLite gives back naive UTC
        last_used = last_used.replace(tzinfo=UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return now - last_used > TOKEN_USE_GAP


def _user_info(row: UserRow, tokens: int = 0) -> UserInfo:
    return UserInfo(id=row.id, name=row.name, is_admin=row.is_admin, disabled=row.disabled,
                    created_at=row.created_at, tokens=tokens)


class UserOps(StoreBase):
    """The accounts side of :class:`~deepcite.store.HistoryStore`."""

    @staticmethod
    def _user_row(session: Session, name: str) -> UserRow:
        row = session.scalar(select(UserRow).where(UserRow.name_key == name.casefold()))
        if row is None:
            raise UnknownUserError(f"No user {name!r} - {_LIST_HINT}")
        return row

    # ------------------------------------------------------------------ users

    def add_user(self, name: str, password: str, *, admin: bool = False,
                 disabled: bool = False, now: datetime | None = None) -> UserInfo:
        """Create a user (``disabled``: waiting for an admin's approval from the start);
        a :class:`DuplicateUserError` when the name (case aside) is taken, an
        :class:`InputError` for a bad name or a password under 8 characters.

        The password is hashed before the name is looked up, so a taken name costs the
        same work as a free one (sign-up must not tell them apart)."""
        check_user_name(name)
        hashed = hash_password(check_new_password(password))
        row = UserRow(name=name, name_key=name.casefold(), password_hash=hashed,
                      is_admin=admin, disabled=disabled, created_at=now or datetime.now(UTC))
        taken = DuplicateUserError(f"There is already a user {name!r} - {_LIST_HINT}")
        with self._database_errors():
            try:
                with self._transaction() as session:
                    if session.scalar(select(UserRow.id).where(
                            UserRow.name_key == row.name_key)) is not None:
                        raise taken
                    first_admin = admin and session.scalar(select(UserRow.id).where(
                        UserRow.is_admin.is_(True)).limit(1)) is None
                    session.add(row)
                    session.flush()
                    if first_admin:  # the runs from before accounts are the admin's
                        session.execute(update(Run).where(Run.owner_id.is_(None))
                                        .values(owner_id=row.id))
                    return _user_info(row)
            except exc.IntegrityError:  # another process added the name meanwhile
                raise taken from None

    def has_users(self) -> bool:
        """Whether any user exists (then every web route needs a login or a token)."""
        with self._reading() as session:
            return session.scalar(select(UserRow.id).limit(1)) is not None

    def user_by_id(self, user_id: int) -> UserInfo | None:
        """The user with this id, or ``None``."""
        with self._reading() as session:
            row = session.get(UserRow, user_id)
            return _user_info(row) if row is not None else None

    def users(self) -> builtins.list[UserInfo]:
        """Every user, by name, with how many live tokens each has."""
        live = (select(ApiTokenRow.user_id, func.count().label("n"))
                .where(ApiTokenRow.revoked_at.is_(None)).group_by(ApiTokenRow.user_id)
                .subquery())
        with self._reading() as session:
            rows = session.execute(select(UserRow, live.c.n)
                                   .outerjoin(live, live.c.user_id == UserRow.id)
                                   .order_by(UserRow.name_key)).all()
            return [_user_info(row, count or 0) for row, count in rows]

    def user(self, name: str) -> UserInfo:
        """The user ``name`` (case aside), or an :class:`UnknownUserError`."""
        with self._reading() as session:
            row = self._user_row(session, name)
            count = session.scalar(select(func.count()).select_from(ApiTokenRow).where(
                ApiTokenRow.user_id == row.id, ApiTokenRow.revoked_at.is_(None))) or 0
            return _user_info(row, count)

    def check_password(self, name: str, password: str) -> UserInfo | None:
        """The user when ``password`` is theirs and they are not disabled, else ``None``.

        An unknown name verifies a dummy hash, so it takes as long as a wrong password.
        A hash made with weaker parameters than today's is replaced on success.
        """
        with self._reading() as session:
            row = session.scalar(select(UserRow).where(UserRow.name_key == name.casefold()))
        if row is None or len(password) > MAX_PASSWORD:
            verify_password(_dummy_hash(), password[:MAX_PASSWORD])
            return None
        if not verify_password(row.password_hash, password) or row.disabled:
            return None
        if needs_rehash(row.password_hash):
            with self._writing() as session:
                session.execute(update(UserRow).where(UserRow.id == row.id)
                                .values(password_hash=hash_password(password)))
        return _user_info(row)

    def set_password(self, name: str, password: str, *, now: datetime | None = None) -> int:
        """Give the user a new password (at least 8 characters), ending every web
        session and revoking every live API token of theirs: whoever knew the old
        password - and may have made a token with it - is locked out everywhere.
        Returns how many tokens were revoked (front ends tell the user)."""
        hashed = hash_password(check_new_password(password))
        moment = now or datetime.now(UTC)
        with self._writing() as session:
            row = self._user_row(session, name)
            row.password_hash = hashed
            self._end_sessions(session, row.name, moment)
            return self._changed(session, update(ApiTokenRow).where(
                ApiTokenRow.user_id == row.id, ApiTokenRow.revoked_at.is_(None))
                .values(revoked_at=moment))

    def set_disabled(self, name: str, disabled: bool) -> bool:
        """Disable (or enable again) the user: a disabled user's password and tokens
        are refused. ``False`` when the user already was in that state."""
        with self._writing() as session:
            row = self._user_row(session, name)
            if row.disabled == disabled:
                return False
            row.disabled = disabled
            if disabled:
                self._end_sessions(session, row.name)
            return True

    def end_sessions(self, name: str, *, now: datetime | None = None) -> int:
        """End every live web session of the user (an admin's "log them out"); how many."""
        with self._writing() as session:
            row = self._user_row(session, name)
            return self._end_sessions(session, row.name, now)

    def _end_sessions(self, session: Session, name: str, now: datetime | None = None) -> int:
        return self._changed(session, update(WebSessionRow).where(
            WebSessionRow.user_name == name, WebSessionRow.revoked_at.is_(None))
            .values(revoked_at=now or datetime.now(UTC)))

    # ------------------------------------------------------------------ tokens

    def create_token(self, name: str, label: str = "", *,
                     now: datetime | None = None) -> str:
        """A new API token of the user, returned this once (only its SHA-256 is stored;
        :meth:`tokens` lists it, newest last)."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self._writing() as session:
            user = self._user_row(session, name)
            row = ApiTokenRow(user_id=user.id, name=label.strip()[:200],
                              token_hash=token_hash(token),
                              created_at=now or datetime.now(UTC))
            session.add(row)
        return token

    def tokens(self, name: str) -> builtins.list[TokenInfo]:
        """The user's tokens, oldest first, revoked ones included (never the tokens)."""
        with self._reading() as session:
            user = self._user_row(session, name)
            rows = session.scalars(select(ApiTokenRow).where(ApiTokenRow.user_id == user.id)
                                   .order_by(ApiTokenRow.id))
            return [TokenInfo(id=row.id, user=user.name, label=row.name,
                              created_at=row.created_at, last_used_at=row.last_used_at,
                              revoked_at=row.revoked_at) for row in rows]

    def revoke_token(self, name: str, token_id: int, *, now: datetime | None = None) -> bool:
        """Revoke a token of the user, at once; ``False`` when it already was revoked,
        an :class:`UnknownUserError` when the user has no token of that id."""
        with self._writing() as session:
            user = self._user_row(session, name)
            row = session.scalar(select(ApiTokenRow).where(
                ApiTokenRow.id == token_id, ApiTokenRow.user_id == user.id))
            if row is None:
                raise UnknownUserError(f"User {user.name!r} has no token {token_id} - "
                                       "`deepcite users list` counts the tokens")
            if row.revoked_at is not None:
                return False
            row.revoked_at = now or datetime.now(UTC)
            return True

    def token_owner(self, token: str, *, now: datetime | None = None,
                    address: str | None = None) -> UserInfo | None:
        """The user whose live token ``token`` is, noting that it was used; ``None`` for
        an unknown or revoked token, or one of a disabled user. Its first use, and the
        first after an hour unused, go to the audit log (``token.use``, the token's id
        as target), so a leaked token's use shows there without one entry a request."""
        if not token.startswith(TOKEN_PREFIX):
            return None
        with self._writing() as session:
            found = session.execute(
                select(ApiTokenRow, UserRow).join(UserRow, UserRow.id == ApiTokenRow.user_id)
                .where(ApiTokenRow.token_hash == token_hash(token),
                       ApiTokenRow.revoked_at.is_(None))).first()
            if found is None or found[1].disabled:
                return None
            token_row, user_row = found
            when = now or datetime.now(UTC)
            if _worth_noting(token_row.last_used_at, when):
                session.add(AuditRow(at=when, actor=user_row.name, action="token.use",
                                     target=str(token_row.id), detail=None,
                                     address=address[:100] if address else None))
            token_row.last_used_at = when
            return _user_info(user_row)

    # ------------------------------------------------------------------ audit log

    def audit(self, action: str, *, actor: str | None, target: str | None = None,
              detail: dict[str, Any] | None = None, address: str | None = None,
              now: datetime | None = None) -> None:
        """Write an entry to the audit log (never put a password or token in ``detail``)."""
        with self._writing() as session:
            session.add(AuditRow(at=now or datetime.now(UTC), actor=actor, action=action,
                                 target=target, detail=detail, address=address))

    def audit_log(self, limit: int = 50, *, actor: str | None = None,
                  action: str | None = None) -> builtins.list[AuditEntry]:
        """The newest ``limit`` entries, newest first, of ``actor`` and ``action`` if given."""
        query = select(AuditRow).order_by(AuditRow.id.desc()).limit(limit)
        if actor is not None:
            query = query.where(AuditRow.actor == actor)
        if action is not None:
            query = query.where(AuditRow.action == action)
        with self._reading() as session:
            return [AuditEntry(id=row.id, at=row.at, actor=row.actor, action=row.action,
                               target=row.target, detail=row.detail, address=row.address)
                    for row in session.scalars(query)]
