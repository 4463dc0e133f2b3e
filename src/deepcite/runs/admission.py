"""Admission: the one door every run passes before it is recorded and started.

Every front end calls :func:`admit`, so one function decides what a run may do,
whichever front end took it:

- **servers** (:attr:`Door.SERVER`): the pages and the REST API (through
  :class:`~deepcite.runs.local.LocalRunExecutor` or the queue's
  :class:`~deepcite.runs.queue.executor.QueueExecutor`), the MCP tools and watches;
- **the local user** (:attr:`Door.LOCAL`): ``deepcite ask``, ``report`` and ``rerun``
  (:func:`deepcite.cli.running.run_with_progress`) and the Python API
  (:mod:`deepcite.api`).

The steps, in order, and what each door does at each:

1. **Its owner, as they are now.** SERVER: the request names its owner; the store says
   whether that account still exists, is enabled and is an admin. Nothing the request
   carries about rights is trusted (requests stored before this kept an ``admin`` flag,
   which is read and ignored), so a watch made by an admin who is no longer one, or a
   queued run whose owner was disabled while it waited, runs with the rights of today -
   or not at all (:class:`~deepcite.errors.OwnerError`). LOCAL: the local user owns the
   configuration and the history, so the run reads with
   :data:`~deepcite.store.user_rights.EVERYTHING`; its owner is left as the request has it
   (``None`` for a new run; a rerun stays its stored run's).
2. **Limits the server caps.** SERVER only: a request may lower the server's
   ``research.max_*`` limits (the run budgets, the sources given to synthesis, the
   query length), never raise them above the configured value (:func:`check_caps`).
   LOCAL: none - the local user's own settings are the limits, and they may raise them
   (``docs/accounts.md``).
3. **Its settings.** SERVER: :func:`~deepcite.runs.settings.checked_settings` (the
   question, the named collections, engines, strategy and model, checked against the
   registries). LOCAL: :func:`~deepcite.runs.settings.settings_for_run` only (each
   value valid): the settings are the user's own, so what the run itself tolerates
   stays theirs to choose - an unknown strategy falls back with a warning, a missing
   collection is reported when the run starts.
4. **Its parent**, a stored run that has ended with an answer
   (:func:`~deepcite.runs.parents.checked_parent`), named by full id from then on.
   SERVER: one the owner may see. LOCAL: any run in the history. A LOCAL run with no
   store (history not opened: no follow-up asked) may not name a parent.
5. **The collections it will search** - those named, else the defaults, whatever its
   engines - each one the owner may read
   (:func:`~deepcite.runs.checks.checked_collections`). LOCAL: every collection.

A worker taking a queued run calls :func:`readmit` before it starts: the owner, the
parent and the collections are checked again against the store as it is then, with
the settings the run was submitted with.

Every refusal is a :class:`~deepcite.errors.RequestError` naming the request field, so
the API answers 422, a form shows it beside the field, an MCP tool returns it as one
line and the command line prints it as ``Error: ...`` (exit 2). What is admitted is
recorded and run by :meth:`Admitted.record` and :meth:`Admitted.run` where the run
goes on in the caller's process (the command line, the Python API's ``rerun``).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass

from deepcite.config import Settings
from deepcite.config_sections import ResearchSettings
from deepcite.errors import OwnerError, RequestError
from deepcite.materials import SummaryCache
from deepcite.runs.cancel_scope import CancelScope
from deepcite.runs.checks import checked_collections
from deepcite.runs.execute import run_recorded
from deepcite.runs.parents import checked_parent
from deepcite.runs.recorder import Recorder
from deepcite.runs.request import RunOwner, RunRequest
from deepcite.runs.settings import checked_settings, settings_for_run
from deepcite.runs.sink import OutlineReviewer, RunSink
from deepcite.store import HistoryStore, StoredRun
from deepcite.store.user_rights import EVERYTHING, Access, access_of
from deepcite.types import ResearchResult

__all__ = ["CAPPED_LIMITS", "Admitted", "Door", "admit", "check_caps", "current_owner",
           "readmit"]

logger = logging.getLogger(__name__)

#: The server's limits a request may lower but never raise: every ``research.max_*``.
CAPPED_LIMITS: tuple[str, ...] = tuple(name for name in ResearchSettings.model_fields
                                       if name.startswith("max_"))


@dataclass(frozen=True)
class Admitted:
    """A run that may go ahead: what to record and execute."""

    #: The request as it will be recorded: its owner as the store has them now, its
    #: parent named by full id.
    request: RunRequest
    #: The run's settings (the server's with what the request chose), checked.
    settings: Settings
    #: The stored run it follows up, if any (one its owner may see).
    parent: StoredRun | None

    @property
    def parent_result(self) -> ResearchResult | None:
        """The answer the run builds on (its parent's result), if it follows one up."""
        return self.parent.result if self.parent is not None else None

    def record(self, store: HistoryStore | None, *, save: bool = True,
               on_problem: Callable[[str], None] = logger.warning) -> Recorder:
        """Begin the run's history record (in ``store``, else in the settings' own
        store; nothing when ``save`` is off): a store that cannot be written is
        ``on_problem``'s to report, never a reason not to run."""
        return Recorder.begin(self.settings, self.request, save=save, store=store,
                              on_problem=on_problem)

    def run(self, recorder: Recorder, sink: RunSink | None = None,
            cancel: CancelScope | None = None, *, reviewer: OutlineReviewer | None = None,
            cache: SummaryCache | None = None) -> ResearchResult:
        """Research the admitted run in this thread, on its parent's answer, recorded
        by ``recorder`` (:func:`~deepcite.runs.execute.run_recorded`)."""
        return run_recorded(self.request, self.settings, recorder, sink, cancel,
                            parent=self.parent_result, cache=cache, reviewer=reviewer)


class Door(enum.Enum):
    """Whom a run comes from, which decides what :func:`admit` checks (the steps of the
    module docstring say what each door does)."""

    #: A run a server takes from others (pages, REST, MCP, the queue, watches): its
    #: owner's rights of now, the server's limits as caps, every setting checked.
    SERVER = "server"
    #: A run of the local user, who owns the configuration and the history (the
    #: command line, the Python API): everything readable, no caps, their own settings.
    LOCAL = "local"


def current_owner(store: HistoryStore, owner: RunOwner | None
                  ) -> tuple[RunOwner | None, Access]:
    """The run's owner as the store has them now, and what they may read: an
    :class:`~deepcite.errors.OwnerError` when the account is gone or disabled. A run
    that belongs to no one (a server without accounts) may read everything."""
    if owner is None:
        return None, EVERYTHING
    user = store.user_by_id(owner.id)
    if user is None:
        raise OwnerError(f"The account {owner.name!r} this run belongs to no longer exists "
                         "- an account that remains must ask for it again")
    if user.disabled:
        raise OwnerError(f"The account {user.name!r} this run belongs to is disabled - an "
                         f"admin can enable it again (deepcite users enable {user.name})")
    return RunOwner.of(user), access_of(user)


def check_caps(request: RunRequest, settings: Settings, base: Settings) -> None:
    """Refuse a run whose ``research.max_*`` limits (``settings``, the run's) are above
    the server's (``base``): a request may ask for less, never for more - nor for no
    limit where the server sets one. A RequestError for ``budget`` or ``settings``,
    whichever the request set it with, naming the server's value."""
    budget = request.budget.limits() if request.budget is not None else {}
    for name in CAPPED_LIMITS:
        cap = getattr(base.research, name)
        value = getattr(settings.research, name)
        if cap is None or (value is not None and value <= cap):
            continue
        field, key = (("budget", f"budget.{name}") if name in budget
                      else ("settings", f"research.{name}"))
        asked = "no limit" if value is None else str(value)
        raise RequestError(field, f"{key}: {asked} is above this server's limit "
                                  f"(research.{name} = {cap}) - ask for {cap} or less")


def admit(store: HistoryStore | None, request: RunRequest, base: Settings,
          door: Door = Door.SERVER) -> Admitted:
    """Check ``request`` against the settings ``base`` (the server's, or the local
    user's) and the store, in the order of the module docstring and as ``door``
    decides; the run to record, or the first refusal (a
    :class:`~deepcite.errors.RequestError` naming the field).

    ``store`` is the history the owner and the parent are read from; only a LOCAL run
    may come without one (the command line opens the history for a follow-up only)."""
    if door is Door.LOCAL:
        return _authorised(store, request, settings_for_run(base, request), EVERYTHING)
    if store is None:
        raise ValueError("a server admits its runs against its history store")
    owner, access = current_owner(store, request.owner)
    request = request.model_copy(update={"owner": owner})
    settings = checked_settings(base, request)
    check_caps(request, settings, base)
    return _authorised(store, request, settings, access)


def readmit(store: HistoryStore, request: RunRequest, settings: Settings) -> Admitted:
    """Check a run admitted earlier once more, just before it starts (a queued run in
    its worker): its owner as they are now, its parent and its collections with their
    rights of now. ``settings`` are the run's own, as submitted."""
    owner, access = current_owner(store, request.owner)
    return _authorised(store, request.model_copy(update={"owner": owner}), settings,
                       access)


def _authorised(store: HistoryStore | None, request: RunRequest, settings: Settings,
                access: Access) -> Admitted:
    """Steps 4 and 5: the parent and the collections, read with ``access``."""
    if store is None:  # a LOCAL run without its history: it reads everything, but no run
        if request.parent_id is not None:
            raise RequestError("parent_id", "A follow-up needs the history to read its "
                                            "parent from - open one (store.url) and "
                                            "name a run from `deepcite history`")
        return Admitted(request, settings, None)
    request, parent = checked_parent(store, request, access)
    checked_collections(store, request, settings, access)
    return Admitted(request, settings, parent)
