"""The REST API (``/api/v1``): submit, follow and delete runs, history, exports, collections.

Routes reach runs only through :class:`~deepcite.web.contracts.RunExecutor`, so they
work with any executor; stored results and history come from the history store. Every
error is JSON ``{"error": {"code", "message"}}`` (see :mod:`deepcite.web.app` for the
handlers), raised here as :class:`ApiError`.

Live events are Server-Sent Events: ``id`` is the event's sequence number, so a client
that reconnects with ``Last-Event-ID`` (browsers do it themselves) resumes exactly
where it stopped, and every reader of a run sees the same ordered events. A header that
is not such an id (not 1-18 ASCII digits) is ignored, as if none was sent.

A run request is checked at submit (:func:`deepcite.runs.admission.admit`): one that
names what cannot run, or what its owner may not do now, is 422 ``invalid_request``
with the field, never a 202 followed by a failed run. The bundled ``demo`` collection
cannot be replaced (409).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

import anyio.to_thread
from anyio import CapacityLimiter
from fastapi import APIRouter, Depends, Header, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, TypeAdapter

from deepcite._version import __version__
from deepcite.errors import ConfigError, UnknownRunError
from deepcite.export import ExportOptions, export_report, exporter_status
from deepcite.export.markdown import to_json_dict
from deepcite.runs import RunInfo, RunRequest
from deepcite.runs.caller import Caller
from deepcite.runs.compare import RunComparison, compare_runs
from deepcite.runs.request import Origin
from deepcite.store import ACTIVE, ENDED, HistoryStore, RunStatus
from deepcite.types import Event, ReportMode
from deepcite.web.contracts import WebState
from deepcite.web.downloads import content_disposition
from deepcite.web.gate import Gate, Refused, client_address

logger = logging.getLogger(__name__)

#: Seconds between keep-alive comments on an idle event stream (proxies close idle ones).
KEEP_ALIVE_S = 15.0
#: Event streams waiting at once; their waits run on threads of their own so that they
#: never starve the pool FastAPI runs the other (sync) routes on.
MAX_STREAMS = 256
_EVENT = TypeAdapter(Event)
#: What a ``Last-Event-ID`` this API wrote looks like: ASCII digits, at most 18 of them.
_EVENT_ID = re.compile(r"[0-9]{1,18}")


class ApiError(Exception):
    """An error reply: HTTP ``status``, a machine ``code`` and a one-line ``message``."""

    def __init__(self, status: int, code: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers


class RunAccepted(BaseModel):
    """``POST /research``'s reply."""

    id: str


class RunStatusReply(RunInfo):
    """A run's state, and its result (``to_json_dict``) once it has ended with one."""

    result: dict[str, Any] | None = None


def history_store(state: WebState) -> HistoryStore:
    """The store the executor records runs in: every route reads history there."""
    return state.executor.store


def api_router(state: WebState, gate: Gate | None = None) -> APIRouter:
    """The ``/api/v1`` routes for ``state``; all but ``/health`` need what ``gate``
    asks (a token, a session, a user: :mod:`deepcite.web.gate`). Another user's run
    is answered 404, as one that does not exist."""
    router = APIRouter(prefix="/api/v1")
    guarded = APIRouter(dependencies=[Depends(caller_dependency(gate or Gate(state)))])
    limiter = CapacityLimiter(MAX_STREAMS)

    @router.get("/health", tags=["meta"])
    def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @guarded.post("/research", status_code=202, response_model=RunAccepted, tags=["runs"])
    def submit(request: RunRequest, caller: AskedBy) -> RunAccepted:
        # the server says who asked, whatever the client sent
        return RunAccepted(id=state.executor.submit(request.asked_by("api", caller.owner)))

    @guarded.get("/research/{run_id}", response_model=RunStatusReply, tags=["runs"])
    def status(run_id: str, caller: AskedBy) -> RunStatusReply:
        run_id = visible_run(state, caller, run_id)
        info = _info(state, run_id)
        result = None
        if info.state in ENDED:
            try:
                result = to_json_dict(history_store(state).get(run_id).result)
            except UnknownRunError:  # deleted since it ended
                raise _unknown(run_id) from None
        return RunStatusReply(**info.model_dump(), result=result)

    @guarded.post("/research/{run_id}/cancel", tags=["runs"])
    def cancel(run_id: str, caller: AskedBy) -> dict[str, str]:
        run_id = visible_run(state, caller, run_id)
        try:
            cancelled = state.executor.cancel(run_id)
        except UnknownRunError:
            raise _unknown(run_id) from None
        if not cancelled:
            raise ApiError(409, "run_ended", f"Run {run_id} has already ended")
        return {"id": run_id, "state": _info(state, run_id).state}

    @guarded.get("/research/{run_id}/events", tags=["runs"],
                 response_class=StreamingResponse)
    async def events(run_id: str, caller: AskedBy, after: Annotated[int, Query(ge=0)] = 0,
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

    @guarded.get("/research/{run_id}/export/{fmt}", tags=["runs"])
    def export(run_id: str, fmt: str, caller: AskedBy) -> Response:
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
        exported = export_report(stored.result, format_status.name,
                                 ExportOptions.for_run(stored.settings, state.settings))
        # The file name is the title's, in any script: RFC 6266 header, never raw UTF-8.
        return Response(exported.data, media_type=exported.media_type, headers={
            "Content-Disposition": content_disposition(exported.filename)})

    @guarded.get("/runs/{a}/compare/{b}", response_model=RunComparison, tags=["history"])
    def compare(a: str, b: str, caller: AskedBy) -> RunComparison:
        store = history_store(state)
        runs = []
        for ref in (a, b):
            try:
                runs.append(store.get(ref, caller.access))
            except UnknownRunError:
                raise _unknown(ref) from None
        return compare_runs(runs[0], runs[1])

    @guarded.delete("/runs/{run_id}", tags=["history"])
    def delete(run_id: str, caller: AskedBy, request: Request) -> dict[str, Any]:
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
            raise _unknown(run_id) from None
        history_store(state).audit("run.delete", actor=caller.name, target=run_id,
                                   detail={"via": "api"},
                                   address=client_address(request))
        return {"id": run_id, "deleted": True}

    @guarded.get("/history", tags=["history"])
    def history(caller: AskedBy, search: str | None = None,
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

    from deepcite.web.api_collections import collections_router  # it imports this module
    from deepcite.web.api_sources import sources_router
    from deepcite.web.api_watches import watches_router

    guarded.include_router(collections_router(state))
    guarded.include_router(watches_router(state))

    guarded.include_router(sources_router(state))
    router.include_router(guarded)
    return router


# ---------------------------------------------------------------------- helpers


def caller_dependency(gate: Gate) -> Callable[[Request], Awaitable[Caller]]:
    """The dependency naming who calls: the caller the front door found (kept in the
    request's state), or the gate's answer when the router runs without it (an app
    assembled by hand). A refusal is the gate's status and one-line message."""

    async def caller(request: Request) -> Caller:
        found = getattr(request.state, "caller", None)
        if isinstance(found, Caller):
            return found
        try:
            asked: Caller = await anyio.to_thread.run_sync(gate.api_caller, request)
        except Refused as refused:
            raise ApiError(refused.status, refused.code, refused.message,
                           headers=refused.headers or None) from None
        request.state.caller = asked
        return asked
    return caller


async def current_caller(request: Request) -> Caller:
    """The caller the guarded router's dependency found (it runs first)."""
    found = getattr(request.state, "caller", None)
    if not isinstance(found, Caller):  # a route outside the guarded router: a wiring bug
        raise RuntimeError("no caller: include the route in the guarded router")
    return found


#: A route parameter naming who calls (``caller: AskedBy``).
AskedBy = Annotated[Caller, Depends(current_caller)]


def visible_run(state: WebState, caller: Caller, ref: str) -> str:
    """The full id of run ``ref`` if ``caller`` may see it, else 404 ``unknown_run`` -
    the same reply for another user's run as for one that never existed."""
    try:
        return history_store(state).visible(ref, caller.access)
    except UnknownRunError:
        raise _unknown(ref) from None


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


def _unknown(run_id: str) -> ApiError:
    return ApiError(404, "unknown_run", f"No run {run_id!r}")


def _info(state: WebState, run_id: str) -> RunInfo:
    try:
        return state.executor.status(run_id)
    except UnknownRunError:
        raise _unknown(run_id) from None


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
