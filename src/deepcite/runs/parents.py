"""The stored run a follow-up builds on.

A follow-up (``deepcite ask --follow-up ID``, ``parent_id`` over REST, ``follow_up``
over MCP) builds on an earlier answer: the parent's answer is what is already known and
its sources keep their numbers. A document check's parent is the check of the
document's previous version (``deepcite check --previous ID``, ``previous`` over REST
and MCP): its verdicts stand for the claims that did not change. Only a run that ended
with an answer can be built on, and a check only on a check; anything else is refused
at submit with a message that says what to do.
"""

from __future__ import annotations

from deepcite.errors import InputError, RequestError, UnknownRunError
from deepcite.runs.request import RunRequest
from deepcite.store import ACTIVE, HistoryStore, StoredRun
from deepcite.store.user_rights import EVERYTHING, Access

__all__ = ["ParentError", "checked_parent", "parent_run"]


class ParentError(InputError):
    """The run named as a follow-up's parent cannot be built on."""


def parent_run(store: HistoryStore, ref: str, access: Access = EVERYTHING) -> StoredRun:
    """Stored run ``ref`` (an id or unique prefix of a run ``access`` may see), to
    build on; another user's run is as unknown as one that does not exist."""
    try:
        stored = store.get(ref, access)
    except UnknownRunError as exc:
        raise ParentError(f"No run {ref!r} to follow up - see `deepcite history` or "
                          "GET /api/v1/runs for the ids") from exc
    if stored.status in ACTIVE:
        raise ParentError(f"Run {stored.id[:8]} has not ended yet - follow it up once "
                          "it has an answer")
    if not stored.result.answer.strip():
        raise ParentError(f"Run {stored.id[:8]} has no answer to build on - ask the "
                          "question again instead")
    return stored


def checked_parent(store: HistoryStore, request: RunRequest, access: Access | None = None
                   ) -> tuple[RunRequest, StoredRun | None]:
    """``request`` naming its parent by full id, and the parent run (``None`` for a run
    that follows nothing) - one ``access`` may see (default: the request owner's rights
    as a user); part of :func:`deepcite.runs.admission.admit`, its problem a
    :class:`~deepcite.errors.RequestError` for ``parent_id`` (422 over the API)."""
    if request.parent_id is None:
        return request, None
    try:
        parent = parent_run(store, request.parent_id,
                            request.access if access is None else access)
    except ParentError as exc:
        raise RequestError("parent_id", str(exc)) from None
    if request.mode == "check" and parent.mode != "check":
        raise RequestError("parent_id", f"Run {parent.id[:8]} is a {parent.mode} run, not "
                                        "a document check - name the earlier check of "
                                        "this document (see `deepcite history`)")
    return request.model_copy(update={"parent_id": parent.id}), parent
