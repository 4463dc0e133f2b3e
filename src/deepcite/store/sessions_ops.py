"""Logged-in web sessions, kept in the history store so that every web process sharing
it agrees on which sessions are live.

A session is live while its row exists, is not revoked, has not expired and was
opened under the access token the asking process has (``token_tag``). Session ids
are hashed (SHA-256) here, at the boundary: callers pass the id from the cookie, the
database only ever sees its hash. Times come from the caller (``now``) so tests and
callers with a clock of their own agree with the store; they default to the clock of
the process (UTC).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, exc, select, update

from deepcite.store.base import StoreBase
from deepcite.store.models import ServerSecretRow, UserRow, WebSessionRow
from deepcite.store.read_models import UserInfo

#: A session's ``last_seen_at`` is written at most this often (seconds): the idle
#: expiry needs minutes of precision, not a write per request.
SEEN_EVERY_S = 60


def session_hash(session_id: str) -> str:
    """The key a session is stored under: the SHA-256 of its id, as hex."""
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


class SessionOps(StoreBase):
    """The web-session side of :class:`~deepcite.store.HistoryStore`."""

    def open_web_session(self, session_id: str, *, token_tag: str, expires_at: datetime,
                         user_name: str | None = None, now: datetime | None = None) -> None:
        """Record a session that has just logged in, valid until ``expires_at``.

        In the same transaction, rows that have expired are deleted (so the table holds
        only sessions that could still be used) and live sessions opened under another
        access token are revoked: a token change ends the old token's sessions for
        good, even if the old token is set again later.
        """
        moment = now or datetime.now(UTC)
        with self._writing() as session:
            session.execute(delete(WebSessionRow).where(WebSessionRow.expires_at <= moment))
            self._changed(session, update(WebSessionRow).where(
                WebSessionRow.token_tag != token_tag, WebSessionRow.revoked_at.is_(None))
                .values(revoked_at=moment))
            session.add(WebSessionRow(id_hash=session_hash(session_id), token_tag=token_tag,
                                      user_name=user_name, created_at=moment,
                                      expires_at=expires_at, revoked_at=None,
                                      last_seen_at=moment))

    def web_session_live(self, session_id: str, *, token_tag: str,
                         now: datetime | None = None) -> bool:
        """Whether the session is recorded, unrevoked, unexpired and of ``token_tag``."""
        moment = now or datetime.now(UTC)
        with self._reading() as session:
            found = session.scalar(select(WebSessionRow.id_hash).where(
                WebSessionRow.id_hash == session_hash(session_id),
                WebSessionRow.token_tag == token_tag,
                WebSessionRow.revoked_at.is_(None),
                WebSessionRow.expires_at > moment))
        return found is not None

    def revoke_web_session(self, session_id: str, *, now: datetime | None = None) -> bool:
        """End the session (log out); ``False`` when it was not live anyway."""
        moment = now or datetime.now(UTC)
        with self._writing() as session:
            return bool(self._changed(session, update(WebSessionRow).where(
                WebSessionRow.id_hash == session_hash(session_id),
                WebSessionRow.revoked_at.is_(None)).values(revoked_at=moment)))

    def web_session_user(self, session_id: str, *, token_tag: str, idle_s: float,
                         now: datetime | None = None) -> UserInfo | None:
        """The user of a live logged-in session: recorded, unrevoked, unexpired, of
        ``token_tag``, used within the last ``idle_s`` seconds, its user enabled; else
        ``None``. Notes the use (at most every :data:`SEEN_EVERY_S` seconds)."""
        moment = now or datetime.now(UTC)
        key = session_hash(session_id)
        with self._reading() as session:
            found = session.execute(
                select(WebSessionRow.last_seen_at, WebSessionRow.created_at, UserRow)
                .join(UserRow, UserRow.name == WebSessionRow.user_name)
                .where(WebSessionRow.id_hash == key, WebSessionRow.token_tag == token_tag,
                       WebSessionRow.revoked_at.is_(None),
                       WebSessionRow.expires_at > moment)).first()
        if found is None or found[2].disabled:
            return None
        seen = _aware(found[0] or found[1])
        if moment - seen > timedelta(seconds=idle_s):
            return None
        if moment - seen > timedelta(seconds=SEEN_EVERY_S):
            with self._writing() as session:
                session.execute(update(WebSessionRow).where(WebSessionRow.id_hash == key)
                                .values(last_seen_at=moment))
        row = found[2]
        return UserInfo(id=row.id, name=row.name, is_admin=row.is_admin,
                        disabled=row.disabled, created_at=row.created_at)

    def server_secret(self, name: str) -> str:
        """The random secret ``name`` every process sharing the store agrees on (64 hex
        characters), made the first time any process asks."""
        with self._reading() as session:
            value = session.scalar(select(ServerSecretRow.value)
                                   .where(ServerSecretRow.name == name))
        if value is not None:
            return value
        with self._database_errors():
            try:
                with self._transaction() as session:
                    session.add(ServerSecretRow(name=name, value=secrets.token_hex(32)))
            except exc.IntegrityError:  # another process made it first: read theirs
                pass
        with self._reading() as session:
            made = session.scalar(select(ServerSecretRow.value)
                                  .where(ServerSecretRow.name == name))
        if made is None:  # pragma: no cover - written just above
            raise RuntimeError(f"server secret {name} was not stored")
        return made


def _aware(moment: datetime) -> datetime:
    """SQLite gives datetimes back without their zone: they are UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
