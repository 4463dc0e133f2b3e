"""The REST routes for runs (``/api/v1``): submit, follow, cancel, export, compare and
delete runs, and list the history.

Routes reach runs only through :class:`~deepcite.web.contracts.RunExecutor`, so they
work with any executor; stored results and history come from the history store. Every
error is JSON ``{"error": {"code", "message"}}`` (see :mod:`deepcite.web.app` for the
handlers), raised as :class:`~deepcite.web.rest.common.ApiError`.

Live events are Server-Sent Events: ``id`` is the event's sequence number, so a client
that reconnects with ``Last-Event-ID`` (browsers do it themselves) resumes exactly
where it stopped, and every reader of a run sees the same ordered events. A header that
is not such an id (not 1-18 ASCII digits) is ignored, as if none was sent.

A run request is checked at submit (:func:`deepcite.runs.admission.admit`): one that
names what cannot run, or what its owner may not do now, is 422 ``invalid_request``
with the field, never a 202 followed by a failed run.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from typing import Annotated, Any

import anyio.to_thread
from anyio import CapacityLimiter
from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from deepcite.errors import ConfigError, UnknownRunError
from deepcite.export import ExportOptions, export_report, exporter_status
from deepcite.export.markdown import to_json_dict
from deepcite.runs import RunInfo, RunRequest
from deepcite.runs.checks import MAX_QUESTION_CHARS
from deepcite.runs.compare import RunComparison, compare_runs
from deepcite.runs.request import Origin
from deepcite.runs.thread import read_thread, thread_record
from deepcite.store import ACTIVE, ENDED, RunStatus
from deepcite.types import Event, ReportMode
from deepcite.web.contracts import WebState
from deepcite.web.downloads import content_disposition
from deepcite.web.rest.common import (
    ApiError,
    AskedBy,
    State,
    Streams,
    history_store,
    unknown_run,
    visible_run,
)
from deepcite.web.who_is_asking import client_address

logger = logging.getLogger(__name__)

#: Seconds between keep-alive comments on an idle event stream (proxies close idle ones).
KEEP_ALIVE_S = 15.0
#: Event streams waiting at once; their waits run on threads of their own so that they
#: never starve the pool FastAPI runs the other (sync) routes on (one limiter per
#: :func:`deepcite.web.rest.api_router`).
MAX_STREAMS = 256
_EVENT = TypeAdapter(Event)
#: What a ``Last-Event-ID`` this API wrote looks like: ASCII digits, at most 18 of them.
_EVENT_ID = re.compile(r"[0-9]{1,18}")


class RunAccepted(BaseModel):
    """``POST /research``'s reply."""

    id: str


class RunStatusReply(RunInfo):
    """A run's state, and its result (``to_json_dict``) once it has ended with one."""

    result: dict[str, Any] | None = None


#: The run and history routes; :func:`deepcite.web.rest.api_router` includes them in its
#: guarded router.
router = APIRouter()


@router.post("/research", status_code=202, response_model=RunAccepted, tags=["runs"])
def submit(state: State, request: RunRequest, caller: AskedBy) -> RunAccepted:
    # the server says who asked, whatever the client sent
    return RunAccepted(id=state.executor.submit(request.asked_by("api", caller.owner)))

@router.get("/research/{run_id}", response_model=RunStatusReply, tags=["runs"])
def status(state: State, run_id: str, caller: AskedBy) -> RunStatusReply:
    run_id = visible_run(state, caller, run_id)
    info = _info(state, run_id)
    result = None
    if info.state in ENDED:
        try:
            result = to_json_dict(history_store(state).get(run_id).result)
        except UnknownRunError:  # deleted since it ended
            raise unknown_run(run_id) from None
    return RunStatusReply(**info.model_dump(), result=result)

@router.post("/research/{run_id}/cancel", tags=["runs"])
def cancel(state: State, run_id: str, caller: AskedBy) -> dict[str, str]:
    run_id = visible_run(state, caller, run_id)
    try:
        cancelled = state.executor.cancel(run_id)
    except UnknownRunError:
        raise unknown_run(run_id) from None
    if not cancelled:
        raise ApiError(409, "run_ended", f"Run {run_id} has already ended")
    return {"id": run_id, "state": _info(state, run_id).state}

@router.get("/research/{run_id}/events", tags=["runs"],
             response_class=StreamingResponse)
async def events(state: State, limiter: Streams, run_id: str, caller: AskedBy,
                 after: Annotated[int, Query(ge=0)] = 0,
                 last_event_id: Annotated[str | None, Header()] = None
                 ) -> StreamingResponse:
    resumed = _last_event_id(last_event_id)
    if resumed is not None:
        after = resumed
    # 404 before the stream, for a run that is not there or not the caller's
    run_id = await anyio.to_thread.run_sync(visible_run, state, caller, run_id)
    await anyio.to_thread.run_sync(_info, state, run_id)
    return StreamingResponse(_stream(state, run_id, after, limiter),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache",
                                      "X-Accel-Buffering": "no"})

@router.get("/research/{run_id}/export/{fmt}", tags=["runs"])
def export(state: State, run_id: str, fmt: str, caller: AskedBy) -> Response:
    try:
        format_status = exporter_status(fmt)
    except ConfigError as exc:
        raise ApiError(404, "unknown_format", str(exc)) from None
    if not format_status.usable:
        raise ApiError(501, "format_unavailable",
                       f"Cannot export as {format_status.name}: "
                       f"{format_status.description}")
    run_id = visible_run(state, caller, run_id)
    info = _info(state, run_id)
    if info.state not in ENDED:
        raise ApiError(409, "run_not_ended", f"Run {run_id} is still {info.state}; "
                       "export it once it has ended")
    stored = history_store(state).get(run_id)
    # Served to a browser: a local document is named by its collection and file name,
    # never by the server's path (the CLI keeps paths for its user's own files).
    exported = export_report(stored.result, format_status.name,
                             ExportOptions.for_run(stored.settings, state.settings,
                                                   local_paths=False))
    # The file name is the title's, in any script: RFC 6266 header, never raw UTF-8.
    return Response(exported.data, media_type=exported.media_type, headers={
        "Content-Disposition": content_disposition(exported.filename)})

@router.get("/runs/{a}/compare/{b}", response_model=RunComparison, tags=["history"])
def compare(state: State, a: str, b: str, caller: AskedBy) -> RunComparison:
    store = history_store(state)
    runs = []
    for ref in (a, b):
        try:
            runs.append(store.get(ref, caller.access))
        except UnknownRunError:
            raise unknown_run(ref) from None
    return compare_runs(runs[0], runs[1])

class FollowUpAsked(BaseModel):
    """``POST /runs/{id}/follow-ups``'s body: the next question of the thread."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=64 * MAX_QUESTION_CHARS)


@router.get("/runs/{run_id}/thread", tags=["history"])
def thread(state: State, run_id: str, caller: AskedBy) -> dict[str, Any]:
    """The thread ``run_id`` belongs to: its root and every follow-up, oldest first,
    each with its question, state, answer and the sources listed under it (what the
    MCP tool ``get_thread`` answers too)."""
    try:
        return thread_record(read_thread(history_store(state), run_id, caller.access))
    except UnknownRunError:
        raise unknown_run(run_id) from None

@router.post("/runs/{run_id}/follow-ups", status_code=202, response_model=RunAccepted,
             tags=["runs"])
def follow_up(state: State, run_id: str, body: FollowUpAsked,
              caller: AskedBy) -> RunAccepted:
    """Ask the next question of ``run_id``'s thread: a quick answer built on the
    thread's last answer, searching what it searched (422 while a turn is still
    running, or for a question that cannot be asked)."""
    try:
        found = read_thread(history_store(state), run_id, caller.access)
    except UnknownRunError:
        raise unknown_run(run_id) from None
    request = found.follow_up(body.question).asked_by("api", caller.owner)
    return RunAccepted(id=state.executor.submit(request))

@router.delete("/runs/{run_id}", tags=["history"])
def delete(state: State, run_id: str, caller: AskedBy, request: Request) -> dict[str, Any]:
    """Delete a stored run the caller may see (404 otherwise, as for one that does
    not exist); an active one is refused (409) - cancel it first, so a worker
    never writes to a run that is gone."""
    run_id = visible_run(state, caller, run_id)
    info = _info(state, run_id)
    if info.state in ACTIVE:
        raise ApiError(409, "run_active", f"Run {run_id} is still {info.state} - cancel "
                       f"it first (POST /api/v1/research/{run_id}/cancel)")
    try:
        history_store(state).delete(run_id, caller.access)
    except UnknownRunError:  # deleted meanwhile
        raise unknown_run(run_id) from None
    history_store(state).audit("run.delete", actor=caller.name, target=run_id,
                               detail={"via": "api"},
                               address=client_address(request))
    return {"id": run_id, "deleted": True}

@router.get("/history", tags=["history"])
def history(state: State, caller: AskedBy, search: str | None = None,
            limit: Annotated[int, Query(ge=1, le=1000)] = 50,
            offset: Annotated[int, Query(ge=0)] = 0,
            status: RunStatus | None = None, mode: ReportMode | None = None,
            collection: Annotated[str, Query(max_length=64)] | None = None,
            origin: Origin | None = None) -> list[dict[str, Any]]:
    """The caller's stored runs (an admin's: everyone's, each naming its owner),
    newest first, filtered as the history page filters them."""
    runs = history_store(state).list(search=search, limit=limit, offset=offset,
                                     status=status, mode=mode, collection=collection,
                                     origin=origin, access=caller.access)
    return [run.model_dump(mode="json") for run in runs]


# ---------------------------------------------------------------------- helpers


def _last_event_id(header: str | None) -> int | None:
    """The sequence number a reconnecting client sends, or ``None`` to ignore the header.

    Only 1-18 ASCII digits count (the ids this API writes): ``str.isdigit`` also takes
    ``²`` and other digits ``int`` refuses, and a huge number is no id either. A header
    that is not an id is ignored, not an error - the stream then starts at ``after``, as
    for a client that sent none, because a browser's EventSource cannot be told to
    drop a bad one.
    """
    if header is None:
        return None
    text = header.strip()
    return int(text) if _EVENT_ID.fullmatch(text) else None


def _info(state: WebState, run_id: str) -> RunInfo:
    try:
        return state.executor.status(run_id)
    except UnknownRunError:
        raise unknown_run(run_id) from None


async def _stream(state: WebState, run_id: str, after: int,
                  limiter: CapacityLimiter) -> AsyncIterator[str]:
    """The run's events as SSE, then ``event: end`` once it has ended."""
    while True:
        batch = await anyio.to_thread.run_sync(
            state.executor.events, run_id, after, KEEP_ALIVE_S, limiter=limiter)
        for seq, event in batch.events:
            data = _EVENT.dump_json(event).decode("utf-8")
            yield f"id: {seq}\nevent: {event.kind}\ndata: {data}\n\n"
            after = seq
        if batch.finished:
            info = await anyio.to_thread.run_sync(_info, state, run_id, limiter=limiter)
            yield f"event: end\ndata: {json.dumps({'state': info.state})}\n\n"
            return
        if batch.draining:
            return  # the server is stopping; the client resumes elsewhere by its id
        if not batch.events:
            yield ": keep-alive\n\n"


def sse_lines(text: str) -> list[dict[str, str]]:
    """Parse an SSE body into its events (``id``/``event``/``data`` fields); for tests
    and scripts reading a stream this API wrote."""
    parsed = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line.startswith(":") or ":" not in line:
                continue
            key, _, value = line.partition(":")
            fields[key] = value[1:] if value.startswith(" ") else value
        if fields:
            parsed.append(fields)
    return parsed
