"""``GET /api/v1/runs/{id}/sources/{n}``: one source of a stored run as the viewer shows
it (passage, highlight spans, file, page, headings), and its collection document.

Included by :func:`deepcite.web.rest.api_router` under the token dependency, so the
access rules are every other API route's: another user's run is 404 as a missing one.
The document is found only through the collection that indexed it
(:func:`deepcite.web.sources_view.document_file`), and served only while the caller
may search that collection.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from deepcite.errors import UnknownRunError
from deepcite.runs.caller import Caller
from deepcite.store import StoredRun
from deepcite.web.contracts import WebState
from deepcite.web.rest.common import ApiError, AskedBy, State, history_store
from deepcite.web.source_documents import document_response, may_read, viewer_url
from deepcite.web.sources_view import document_file, source_view

router = APIRouter()


def stored_run(state: WebState, run_id: str, caller: Caller) -> StoredRun:
    try:
        return history_store(state).get(run_id, caller.access)
    except UnknownRunError:
        raise ApiError(404, "unknown_run", f"No run {run_id!r}") from None


@router.get("/runs/{run_id}/sources/{number}", tags=["history"])
def source(state: State, run_id: str, number: int, caller: AskedBy) -> dict[str, Any]:
    stored = stored_run(state, run_id, caller)
    view = source_view(stored.id, stored.result, number,
                       f"/api/v1{viewer_url(stored.id, number)}/document")
    if view is None:
        raise ApiError(404, "unknown_source", f"Run {stored.id[:8]} has no source {number}")
    if view.collection is not None and not may_read(
            history_store(state), caller.access)(view.collection):
        view = replace(view, document_url="")  # no link to a file it would refuse
    return view.as_json()


@router.get("/runs/{run_id}/sources/{number}/document", tags=["history"])
def document(state: State, run_id: str, number: int, caller: AskedBy) -> Response:
    stored = stored_run(state, run_id, caller)
    found = next((s for s in stored.result.sources if s.number == number), None)
    path = None if found is None else document_file(
        found, state.settings, may_read(history_store(state), caller.access))
    if path is None:
        raise ApiError(404, "no_document", "No such document in an indexed collection "
                       "of this server")
    return document_response(path)
