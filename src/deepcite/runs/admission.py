"""Admission: the one door every run a server takes passes before it is recorded.

The pages and the REST API (through :class:`~deepcite.runs.local.LocalRunExecutor` or
the queue's :class:`~deepcite.runs.queue.executor.QueueExecutor`), the MCP tools and
watches all call :func:`admit`, so one rule decides what a run may do whichever front
end took it:

1. **Its owner, as they are now.** The request names its owner; the store says whether
   that account still exists, is enabled and is an admin. Nothing the request carries
   about rights is trusted (requests stored before this kept an ``admin`` flag, which
   is read and ignored), so a watch made by an admin who is no longer one, or a queued
   run whose owner was disabled while it waited, runs with the rights of today - or
   not at all (:class:`~deepcite.errors.OwnerError`).
2. **Limits the server caps.** A request may lower the server's ``research.max_*``
   limits (the run budgets, the sources given to synthesis, the query length), never
   raise them above the configured value (:func:`check_caps`).
3. **Its settings** (:func:`~deepcite.runs.settings.checked_settings`: the question,
   the named collections, engines, strategy and model).
4. **Its parent**, a run the owner may see that has an answer
   (:func:`~deepcite.runs.parents.checked_parent`).
5. **The collections it will search** - those named, else the server's defaults,
   whatever its engines - each one the owner may read
   (:func:`~deepcite.runs.checks.checked_collections`).

A worker taking a queued run calls :func:`readmit` before it starts: the owner, the
parent and the collections are checked again against the store as it is then, with
the settings the run was submitted with.

Every refusal is a :class:`~deepcite.errors.RequestError` naming the request field, so
the API answers 422, a form shows it beside the field and an MCP tool returns it as one
line. The command line and the Python API do not pass here: they run as the local
user, who owns the configuration (and so may raise its limits - see
``docs/accounts.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from deepcite.config import Settings
from deepcite.config_sections import ResearchSettings
from deepcite.errors import OwnerError, RequestError
from deepcite.runs.checks import checked_collections
from deepcite.runs.parents import checked_parent
from deepcite.runs.request import RunOwner, RunRequest
from deepcite.runs.settings import checked_settings
from deepcite.store import HistoryStore, StoredRun
from deepcite.store.access import EVERYTHING, Access, access_of

__all__ = ["CAPPED_LIMITS", "Admitted", "admit", "check_caps", "current_owner", "readmit"]

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
    #: What the owner may read now (:data:`~deepcite.store.access.EVERYTHING` for a run
    #: on a server without accounts).
    access: Access


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


def admit(store: HistoryStore, request: RunRequest, base: Settings) -> Admitted:
    """Check ``request`` against the server's settings ``base`` and the store, in the
    order of the module docstring; the run to record, or the first refusal (a
    :class:`~deepcite.errors.RequestError` naming the field)."""
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


def _authorised(store: HistoryStore, request: RunRequest, settings: Settings,
                access: Access) -> Admitted:
    request, parent = checked_parent(store, request, access)
    checked_collections(store, request, settings, access)
    return Admitted(request, settings, parent, access)
