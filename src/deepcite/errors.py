"""The exception tree of deepcite.

Every error a user can cause or meet derives from :class:`DeepciteError`, so the CLI,
the web app and API callers can catch one class and show its message, which is written
to be shown as it is: one line that says what went wrong and how to fix it.

    DeepciteError
     +-- ConfigError        a setting, or a name in one (engine, provider...), is not usable
     +-- InputError         the question or another user input cannot be used
     |    +-- MaterialError             a user material cannot be used as given
     |    +-- RequestError              a request's field names or sizes what cannot run
     |    |    +-- OwnerError           the run's owner is disabled or no longer exists
     |    +-- BudgetError               a watch or its owner used up a budget
     |    +-- UserOwnsDataError         a user to remove owns things no one decided on
     +-- ModelError         no usable chat model, or a model call failed for good
     +-- SearchError        a search engine failed (the run goes on without it)
     +-- CollectionError    a document collection is missing, unreadable or bad input
     |    +-- ReadOnlyCollectionError   a write refused: file or folder is read-only
     |    +-- DamagedCollectionError    not a usable collection (may be rebuilt)
     |    +-- LoadError                 one file could not be loaded
     +-- EgressDenied       the egress policy refused an outbound request
     +-- ExportError        a report cannot be exported in the asked format
     +-- StoreError         the history store cannot be opened, or a run is not in it
     |    +-- UnknownRunError, UnreadableRunError   a run is not there / not readable
     |    +-- UnknownUserError, DuplicateUserError  a user is not there / already there
     |    +-- UnknownWatchError                     a watch is not there (or not yours)
     +-- QueueError         the job queue (Redis) cannot be reached or used
     +-- DeliveryError      a watch's notice could not be delivered (retried later)

The collection errors below CollectionError are defined in :mod:`deepcite.collections`
(``access`` and ``documents``), which exports them. A class is added here when something
raises it, not before.

Third-party exceptions become these classes in one table, :data:`FOREIGN_ERRORS`, as
httpx's ``_exceptions.py`` maps httpcore's: each row says at which boundary (a model
call, a collection's SQLite file, a document's parser) which foreign class becomes which
of deepcite's, and how its cause reads in the message. A site wraps the call that may
raise in :func:`mapped_errors` with the boundary and what it was doing; it never writes
its own ``except SomeLibraryError``. Foreign classes are named, not imported, so an
optional library (pypdf) is never loaded by the table: a class whose module is not
loaded cannot have been raised.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final, Literal


class DeepciteError(Exception):
    """Base of every deepcite error; ``str(error)`` is a one-line, actionable message."""


class ConfigError(DeepciteError):
    """A setting is unknown or its value is not accepted."""


class InputError(DeepciteError):
    """The question or another direct user input cannot be used as given."""


class MaterialError(InputError):
    """A user material (a document handed in with the request) cannot be used as given.

    Raised by :mod:`deepcite.materials` for a bad url, empty content, an unreadable
    material file or materials over the total size limit; the message names the
    material (its position and id or url) and the field.
    """


class RequestError(InputError):
    """A run request (REST API, page form, MCP tool) names something that cannot run.

    Raised at submit, before anything is queued, for what would otherwise fail the run
    later: an unknown engine, collection or strategy, a strategy the model cannot run.
    ``field`` names the request field (``collections``, ``strategy`` ...), so the API can
    answer 422 with it and a form can show it beside the field.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class OwnerError(RequestError):
    """The user a run belongs to may not run anything now: their account is disabled or
    was removed since the run was asked for (a queued run, a watch's next run).

    Raised by :func:`deepcite.runs.admission.admit`, which looks every run's owner up in
    the store rather than trusting what the stored request says about them; its field
    is ``owner``.
    """

    def __init__(self, message: str) -> None:
        super().__init__("owner", message)


class ModelError(DeepciteError):
    """No chat model could be built, or a call to it failed beyond recovery."""


class SearchError(DeepciteError):
    """A search engine failed; callers treat this as one engine's failure, not the run's.

    ``status`` is the HTTP status when the failure was an HTTP error reply, so engines
    can explain well-known ones (a 404 index, a 403 format) without parsing messages.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class CollectionError(DeepciteError):
    """A document collection cannot be opened, created or filled as asked."""


class EgressDenied(DeepciteError):
    """The egress policy refused an outbound request."""


class ExportError(DeepciteError):
    """A report cannot be exported in the asked format (missing extra, converter, size)."""


class StoreError(DeepciteError):
    """The history store cannot be opened or used, or a run id names no single run."""


class UnknownRunError(StoreError):
    """A run id (or prefix) names no run in the history: never there, or deleted.

    A :class:`StoreError` so existing handlers keep working, but its own class so a
    server answers 404 for it instead of the 503 of a store that is down."""


class UnknownUserError(StoreError):
    """A user name (or a token id of a user) names no account in the store. A server
    answers 404 for it, as for :class:`UnknownRunError`."""


class DuplicateUserError(StoreError):
    """A user of that name (case aside) is already in the store."""


class UnknownWatchError(StoreError):
    """A watch id (or prefix) names no watch the caller may see; a server answers 404,
    the same for another user's watch as for one that never existed."""


class UnreadableRunError(StoreError):
    """A stored run exists but cannot be read back (damaged, or written by a newer
    deepcite); the message says how to remove it. A server answers 500 with that line,
    never 404 (the run is there) nor 503 (the store is up)."""


class ShuttingDown(DeepciteError):
    """The server is stopping and takes no new runs; a server answers 503 so that
    clients and load balancers retry, on it once it is back or on another."""


class QueueError(DeepciteError):
    """The job queue (Redis, ``queue.url``) cannot be reached, or refused a request."""


class DeliveryError(DeepciteError):
    """A watch's notice could not be delivered to one target (email, webhook).

    Raised by the senders of :mod:`deepcite.watches.delivery`; the message names the
    server and the setting to check. ``retryable`` says whether trying again later may
    succeed (a timeout, a 5xx answer, a server that hung up) or not (a refused login, a
    4xx answer, a URL the egress policy refuses): the watch store retries only the
    first kind, and records both, so that a failed delivery is visible, never lost.
    ``status`` is the HTTP status of a webhook's answer, or the SMTP reply code.
    ``retry_after`` is how many seconds the target asked to be left alone (a webhook's
    ``Retry-After`` on a 429 or 503, already capped), counted from its answer: the next
    attempt is never scheduled sooner.
    """

    def __init__(self, message: str, *, retryable: bool = False,
                 status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


class BudgetError(InputError):
    """A watch, or the user who owns it, has used up a budget (watches per user, runs
    per day); the message says which, and when it frees up."""


class UserOwnsDataError(InputError):
    """Removing a user who owns runs, watches or collections was asked without saying
    what becomes of them (deleted with the account, or handed to another user)."""


def error_line(error: BaseException) -> str:
    """``error`` as the one line a run's status shows: the first line of its message,
    else the name of its class."""
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


# ---------------------------------------------------------------- foreign errors

#: Where deepcite meets a library whose exceptions it turns into its own: ``model`` a
#: chat model's SDK (openai, anthropic, ollama, LangChain and httpx below them),
#: ``collection`` a collection's SQLite files, ``document`` a document's file and parser
#: (pypdf, python-docx, zipfile for EPUB and DOCX, a loader plugin).
Boundary = Literal["model", "collection", "document"]

#: How a foreign error's cause reads in the message: ``text`` its message on one line,
#: ``kind`` its class name and message (for catch-all rows, whose class is news),
#: ``strerror`` the operating system's reason for an ``OSError``.
Cause = Literal["text", "kind", "strerror"]

#: The longest cause kept in a message: a provider's error can quote a whole prompt.
CAUSE_CHARS: Final = 300


@dataclass(frozen=True)
class Foreign:
    """One row of :data:`FOREIGN_ERRORS`: at ``boundary``, an instance of the class
    named ``name`` (``module.Class``) becomes ``error``, its cause read as ``cause``;
    ``says``, when set, is the message whatever the site was doing (a file that cannot
    be read is that, whichever parser was reading it)."""

    boundary: Boundary
    name: str
    error: type[DeepciteError]
    cause: Cause = "text"
    says: str | None = None


#: Every third-party exception deepcite turns into its own, by boundary; within one,
#: the first matching row wins, so a subclass comes before its base.
FOREIGN_ERRORS: Final[tuple[Foreign, ...]] = (
    # Any provider SDK raises its own tree (and httpx's below it): a failed model call.
    Foreign("model", "builtins.Exception", ModelError, "kind"),
    # A collection is SQLite files: locked, damaged, a disk that is full.
    Foreign("collection", "sqlite3.Error", CollectionError),
    # A document: its file cannot be read, or its parser refuses it as damaged (each
    # parser raises many kinds - zip, XML, KeyError - on damaged files).
    Foreign("document", "builtins.OSError", CollectionError, "strerror", "cannot read file"),
    Foreign("document", "pypdf.errors.PdfReadError", CollectionError),
    Foreign("document", "zipfile.BadZipFile", CollectionError),
    Foreign("document", "zipfile.LargeZipFile", CollectionError),
    Foreign("document", "builtins.EOFError", CollectionError),
    Foreign("document", "zlib.error", CollectionError),
    Foreign("document", "builtins.Exception", CollectionError, "kind"),
)


def _loaded_class(name: str) -> type[BaseException] | None:
    """The class ``name`` names, if its module is loaded (else nothing raised it)."""
    module_name, _, class_name = name.rpartition(".")
    module = sys.modules.get(module_name)
    found = getattr(module, class_name, None) if module is not None else None
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


def foreign_row(boundary: Boundary, error: BaseException) -> Foreign | None:
    """The row of :data:`FOREIGN_ERRORS` that ``error`` matches at ``boundary``."""
    for row in FOREIGN_ERRORS:
        if row.boundary == boundary:
            kind = _loaded_class(row.name)
            if kind is not None and isinstance(error, kind):
                return row
    return None


def cause_of(error: BaseException, cause: Cause = "kind") -> str:
    """``error``'s cause as one line for a message (see :data:`Cause`), cut to
    :data:`CAUSE_CHARS`."""
    text = " ".join(str(error).split())
    if cause == "strerror" and isinstance(error, OSError) and error.strerror:
        text = error.strerror
    if len(text) > CAUSE_CHARS:
        text = text[:CAUSE_CHARS - 3] + "..."
    if cause == "kind":
        return f"{type(error).__name__}: {text or 'no details'}"
    return text or type(error).__name__


Message = str | Callable[[str], str]
"""What a site was doing: ``"cannot read collection"`` reads
``"cannot read collection (<cause>)"``; a function makes the whole message of the cause."""


def foreign_error(boundary: Boundary, error: BaseException, message: Message, *,
                  build: Callable[[str], DeepciteError] | None = None
                  ) -> DeepciteError | None:
    """The deepcite error ``error`` becomes at ``boundary`` (``None``: not one of the
    table's, let it be). ``build`` makes errors that need more than a message (a
    :class:`~deepcite.collections.documents.LoadError` names its file); what it makes
    must be of the row's class."""
    row = foreign_row(boundary, error)
    if row is None:
        return None
    cause = cause_of(error, row.cause)
    if row.says is not None:
        text = f"{row.says} ({cause})"
    elif callable(message):
        text = message(cause)
    else:
        text = f"{message} ({cause})"
    mapped = (build or row.error)(text)
    if not isinstance(mapped, row.error):
        raise TypeError(f"{type(mapped).__name__} is not a {row.error.__name__}")
    return mapped


@contextmanager
def mapped_errors(boundary: Boundary, message: Message, *,
                  build: Callable[[str], DeepciteError] | None = None) -> Iterator[None]:
    """Run the block, turning a foreign exception into deepcite's
    (:func:`foreign_error`, chained ``from`` it); deepcite's own errors and what the
    table does not name pass as they are."""
    try:
        yield
    except DeepciteError:
        raise
    except Exception as exc:
        mapped = foreign_error(boundary, exc, message, build=build)
        if mapped is None:
            raise
        raise mapped from exc
