"""The history store's tables, as typed SQLAlchemy models.

A run is one row of ``runs``; what it cited, how each citation was judged and what
happened along the way live in child tables keyed by ``run_id`` with ``ON DELETE
CASCADE``, so deleting a run is one statement and leaves no orphans. The answer is
kept as ``body`` - the text *without* a Sources block - because the block is rendered
from the ``sources`` rows on output; storing both would let them disagree.

These models describe the schema at the newest revision. Databases are built and
upgraded only by the Alembic revisions in ``migrations/versions`` (never by
``metadata.create_all``), so a change here needs a new revision beside it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Dialect,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

#: Constraint names both the models and the migrations use, so that a later revision
#: can drop or alter a constraint by a name it knows on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ID_LENGTH = 32
"""Run ids are uuid4 hex strings."""


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always read back as an aware UTC ``datetime``.

    SQLite keeps no time zone and PostgreSQL answers in the session's zone; this type
    writes UTC and reads UTC on both, so callers compare and format one kind of value.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the history store; use UTC")
        value = value.astimezone(UTC)
        return value if dialect.name == "postgresql" else value.replace(tzinfo=None)

    def process_result_value(self, value: datetime | None,
                             dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class StoredText(TypeDecorator[str]):
    """Text that any backend accepts.

    PostgreSQL refuses NUL characters in text, and PDF extraction or a hostile page can
    produce them; there each becomes U+FFFD, one character for one, so the evidence
    offsets of citation checks still point at the same places. SQLite keeps text as is.
    """

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        if value is not None and dialect.name == "postgresql" and "\x00" in value:
            return value.replace("\x00", "\ufffd")
        return value


#: JSON whose Python ``None`` is SQL NULL (not the JSON text ``null``).
NullableJSON = JSON(none_as_null=True)


class Base(DeclarativeBase):
    """Declarative base with the shared naming convention and column types."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime,
        str: StoredText,
        dict[str, Any]: JSON,
        list[Any]: JSON,
    }


class Run(Base):
    """One research run: what was asked, how, and - once it ended - what came of it."""

    __tablename__ = "runs"

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    question: Mapped[str]
    mode: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[datetime] = mapped_column(index=True)
    finished_at: Mapped[datetime | None]
    parent_id: Mapped[str | None] = mapped_column(
        String(ID_LENGTH), ForeignKey("runs.id", ondelete="SET NULL"), index=True)
    #: The settings the run used, secrets removed (:mod:`deepcite.store.snapshot`).
    settings: Mapped[dict[str, Any]]
    strategy: Mapped[str | None]
    handler: Mapped[str | None]
    title: Mapped[str | None]
    #: ``ResearchResult.answer`` without any Sources block; ``None`` until a result is in.
    body: Mapped[str | None]
    cancelled: Mapped[bool] = mapped_column(default=False)
    error: Mapped[str | None]
    metrics: Mapped[dict[str, Any] | None] = mapped_column(NullableJSON)
    verification: Mapped[dict[str, Any] | None] = mapped_column(NullableJSON)
    warnings: Mapped[list[Any]]
    warning_codes: Mapped[list[Any]]
    unsupported_sentences: Mapped[list[Any]]
    outline: Mapped[list[Any]]
    questions_by_iteration: Mapped[dict[str, Any]]
    findings: Mapped[list[Any]]
    #: Question, title and body case-folded (revision 0002; see its docstring for why).
    search_text: Mapped[str] = mapped_column(server_default="")
    # Queued runs and the workers running them (revision 0003).
    #: The run request as queued (a ``RunRequest`` as a dict); ``None`` for other runs.
    request: Mapped[dict[str, Any] | None] = mapped_column(NullableJSON)
    #: How many times a worker claimed the run.
    attempts: Mapped[int] = mapped_column(default=0, server_default="0")
    #: When the worker holding the run last said it is alive; ``None``: no worker.
    heartbeat_at: Mapped[datetime | None]
    #: The worker that holds (or last held) the run.
    worker: Mapped[str | None] = mapped_column(String(200))
    #: A cancel was asked of the worker running the run.
    cancel_requested: Mapped[bool] = mapped_column(default=False, server_default=false())
    #: The ``users.id`` of the run's owner (revision 0005); no foreign key, as removing a
    #: user may keep their runs. ``None`` for runs from before accounts, and for every
    #: run until ownership is recorded (a later step).
    owner_id: Mapped[int | None] = mapped_column(Integer, index=True)
    # The process holding an in-process run (revision 0009; see deepcite.store.holder):
    # ``None`` for queued runs a worker will claim and for runs from before it.
    #: The host identity of that process (host name, boot id, PID namespace).
    holder_host: Mapped[str | None] = mapped_column(String(200))
    #: Its pid on that host.
    holder_pid: Mapped[int | None] = mapped_column(Integer)
    #: Its start time (clock ticks since boot), so a reused pid is no longer it.
    holder_started: Mapped[int | None] = mapped_column(BigInteger)
    #: A document check's claims (``ResearchResult.claims`` as JSON, revision 0010);
    #: ``None`` for other runs and those from before it.
    claims: Mapped[list[Any] | None] = mapped_column(NullableJSON)


class SourceRow(Base):
    """One numbered source of a run, with its full text when it was fetched."""

    __tablename__ = "sources"
    __table_args__ = (UniqueConstraint("run_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("runs.id", ondelete="CASCADE"))
    number: Mapped[int]
    title: Mapped[str]
    url: Mapped[str]
    canonical_url: Mapped[str]
    engine: Mapped[str]
    snippet: Mapped[str]
    full_text: Mapped[str | None]
    published: Mapped[str | None]
    # ``metadata`` is taken by DeclarativeBase; the column keeps the natural name.
    meta: Mapped[dict[str, Any]] = mapped_column("metadata", JSON)


class CheckRow(Base):
    """One citation verdict (``CitationCheck``); ``position`` keeps the result's order."""

    __tablename__ = "citation_checks"
    __table_args__ = (UniqueConstraint("run_id", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("runs.id", ondelete="CASCADE"))
    position: Mapped[int]
    number: Mapped[int]
    sentence: Mapped[str]
    outcome: Mapped[str] = mapped_column(String(16))
    method: Mapped[str] = mapped_column(String(16))
    source_number: Mapped[int | None]
    # ``end`` is an SQL keyword; prefixed names need no quoting anywhere.
    span_start: Mapped[int | None]
    span_end: Mapped[int | None]
    quote: Mapped[str | None]


class EventRow(Base):
    """One event of a run, in arrival order ``seq``; ``payload`` is the whole event."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("run_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("runs.id", ondelete="CASCADE"))
    seq: Mapped[int]
    kind: Mapped[str] = mapped_column(String(32))
    at: Mapped[datetime]
    payload: Mapped[dict[str, Any]]


class CollectionRow(Base):
    """A registered document collection: where it lives and how big it is."""

    __tablename__ = "collections"

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    backend: Mapped[str] = mapped_column(String(32))
    #: A file path or an index name, depending on the backend.
    location: Mapped[str]
    documents: Mapped[int]
    chunks: Mapped[int]
    settings: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class WebSessionRow(Base):
    """A logged-in web session (revision 0004), so that logging out - or a token change -
    ends it in every web process sharing the store, whatever copies of its cookie exist.

    ``id_hash`` is the SHA-256 of the session id, never the id: whoever reads the
    database cannot replay a session from it. ``token_tag`` says which access token
    the session was opened under (derived from the pages' signing key, never the token
    itself); ``user_name`` is for a later accounts feature and ``None`` until then.
    """

    __tablename__ = "web_sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    token_tag: Mapped[str] = mapped_column(String(64))
    user_name: Mapped[str | None] = mapped_column(String(200), index=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime] = mapped_column(index=True)
    #: When it was logged out (or ended by a token change); ``None`` while it is live.
    revoked_at: Mapped[datetime | None]
    #: When it was last used (revision 0006), for the idle expiry of accounts' sessions.
    last_seen_at: Mapped[datetime | None]


#: The table option that makes SQLite keep the highest id ever used (``AUTOINCREMENT``,
#: revision 0008): an id that names an owner, a token or a leased row is never handed
#: out again, even after the newest row was deleted. PostgreSQL's sequences never go
#: back anyway.
NEVER_REUSED: dict[str, Any] = {"sqlite_autoincrement": True}


class UserRow(Base):
    """A user account (revision 0005).

    ``name`` is kept as typed; ``name_key`` is its case-folded form, unique, so names
    are unique regardless of case on every backend. ``password_hash`` is Argon2id
    (:mod:`deepcite.security.passwords`), never the password. Ids are never reused
    (:data:`NEVER_REUSED`): a new account never inherits what still names a removed one.
    """

    __tablename__ = "users"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(200))
    name_key: Mapped[str] = mapped_column(String(200), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    is_admin: Mapped[bool] = mapped_column(default=False, server_default=false())
    disabled: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime]


class ApiTokenRow(Base):
    """An API token of a user (revision 0005): only the SHA-256 (hex) of the token is
    kept, so whoever reads the database cannot use a token from it."""

    __tablename__ = "api_tokens"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    #: The label its user gave it (``--label``).
    name: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]


class AuditRow(Base):
    """One entry of the audit log (revision 0005): who (``actor``: a user name, ``cli``,
    or ``None``) did what (``action``) to what (``target``), when, and from where."""

    __tablename__ = "audit_log"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(index=True)
    actor: Mapped[str | None] = mapped_column(String(200), index=True)
    action: Mapped[str] = mapped_column(String(64), index=True)
    target: Mapped[str | None]
    detail: Mapped[dict[str, Any] | None] = mapped_column(NullableJSON)
    address: Mapped[str | None] = mapped_column(String(100))


class CollectionAccessRow(Base):
    """Who may search a collection (revision 0006): its owner (``None``: admins only),
    everyone (``shared_all``) or the users whose ids ``shared_with`` lists."""

    __tablename__ = "collection_access"

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    owner_id: Mapped[int | None] = mapped_column(Integer, index=True)
    shared_all: Mapped[bool] = mapped_column(default=False, server_default=false())
    shared_with: Mapped[list[Any]]
    updated_at: Mapped[datetime]


class ServerSecretRow(Base):
    """A random key every process sharing the store agrees on (revision 0006)."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


class WatchRow(Base):
    """A watch (revision 0007): a stored run request researched again on a schedule.

    ``request`` is the run request as JSON-ready data (no materials); ``schedule`` its
    normal text (``every 6h``, a cron expression, ``on demand``); ``next_run_at`` the
    next due slot (``None``: on demand) - claimed by one process only, by a
    compare-and-set on it; ``targets`` the delivery targets as JSON. Only the SHA-256
    (hex) of the feed token is kept.
    """

    __tablename__ = "watches"

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    owner_id: Mapped[int | None] = mapped_column(Integer, index=True)
    request: Mapped[dict[str, Any]]
    schedule: Mapped[str] = mapped_column(String(200))
    targets: Mapped[list[Any]]
    #: ``active`` or ``paused``.
    status: Mapped[str] = mapped_column(String(16), index=True)
    next_run_at: Mapped[datetime | None] = mapped_column(index=True)
    last_run_at: Mapped[datetime | None]
    #: Runs this watch may start in 24 hours (``None``: the configured limit).
    max_runs_per_day: Mapped[int | None] = mapped_column(Integer)
    feed_token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    #: The key webhook bodies are signed with (HMAC-SHA256); the receiver holds it too,
    #: so it is kept as it is, shown to the owner at creation and by ``watch show``.
    webhook_secret: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class WatchRunRow(Base):
    """One run of a watch (revision 0007): the stored run, the watch run before it, and -
    once the run ended - the change between the two (``change``, JSON), its one-line
    ``summary`` and its Markdown. ``status``: ``running`` until the run ends, then
    ``done`` (the change stored, deliveries queued) or ``failed``; ``refused`` for
    scheduled slots a budget did not let run (no run; the reason in ``error``)."""

    __tablename__ = "watch_runs"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    watch_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("watches.id", ondelete="CASCADE"), index=True)
    run_id: Mapped[str | None] = mapped_column(
        String(ID_LENGTH), ForeignKey("runs.id", ondelete="SET NULL"), index=True)
    previous_run_id: Mapped[str | None] = mapped_column(String(ID_LENGTH))
    #: ``schedule`` or ``manual``.
    trigger: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[datetime] = mapped_column(index=True)
    finished_at: Mapped[datetime | None]
    summary: Mapped[str | None]
    nothing_new: Mapped[bool] = mapped_column(default=False, server_default=false())
    change: Mapped[dict[str, Any] | None] = mapped_column(NullableJSON)
    changes_markdown: Mapped[str | None]
    error: Mapped[str | None]


class DeliveryRow(Base):
    """One notice to one delivery target (revision 0007): the outbox. ``status`` is
    ``pending`` (due at ``next_attempt_at``), ``sent`` or ``failed`` (after the last
    try); a sender claims a row by moving ``next_attempt_at`` past its lease."""

    __tablename__ = "watch_deliveries"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    watch_run_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("watch_runs.id", ondelete="CASCADE"), index=True)
    watch_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("watches.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    target: Mapped[dict[str, Any]]
    notice: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), index=True)
    attempts: Mapped[int] = mapped_column(default=0, server_default="0")
    next_attempt_at: Mapped[datetime | None] = mapped_column(index=True)
    last_error: Mapped[str | None]
    created_at: Mapped[datetime]
    sent_at: Mapped[datetime | None]
