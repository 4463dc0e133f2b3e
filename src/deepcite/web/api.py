"""The REST API (``/api/v1``): submit and follow runs, history, exports, collections.

Routes reach runs only through :class:`~deepcite.web.contracts.RunExecutor`, so they
work with any executor; stored results and history come from the history store. Every
error is JSON ``{"error": {"code", "message"}}`` (see :mod:`deepcite.web.app` for the
handlers), raised here as :class:`ApiError`.

Live events are Server-Sent Events: ``id`` is the event's sequence number, so a client
that reconnects with ``Last-Event-ID`` (browsers do it themselves) resumes exactly
where it stopped, and every reader of a run sees the same ordered events. A header that
is not such an id (not 1-18 ASCII digits) is ignored, as if none was sent.

A run request is checked at submit (:func:`deepcite.runs.settings.checked_settings`): one
that names what cannot run is 422 ``invalid_request`` with the field, never a 202
followed by a failed run. The bundled ``demo`` collection cannot be replaced (409).
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

import anyio.to_thread
from anyio import CapacityLimiter
from fastapi import APIRouter, Depends, Header, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from deepcite._version import __version__
from deepcite.collections import Collection
from deepcite.collections.collection import list_collections, validate_name
from deepcite.errors import ConfigError, DeepciteError, UnknownRunError
from deepcite.export import ExportOptions, export_report, exporter_status
from deepcite.export.markdown import to_json_dict
from deepcite.runs import RunInfo, RunRequest
from deepcite.runs.checks import reserved_collection
from deepcite.runs.compare import RunComparison, compare_runs
from deepcite.runs.request import Origin
from deepcite.store import ENDED, HistoryStore, RunStatus
from deepcite.types import Event, ReportMode
from deepcite.web.collection_jobs import folder_problem, inside_roots
from deepcite.web.contracts import WebState
from deepcite.web.downloads import content_disposition
from deepcite.web.login_throttle import LoginThrottle
from deepcite.web.pages_auth import COOKIE, Sessions

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


class NewCollection(BaseModel):
    """``POST /collections``: index ``folder`` (under a folder root) as ``name``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    folder: str = Field(min_length=1, max_length=4096)


def history_store(state: WebState) -> HistoryStore:
    """The store the executor records runs in: every route reads history there."""
    return state.executor.store


def api_router(state: WebState) -> APIRouter:
    """The ``/api/v1`` routes for ``state``; all but ``/health`` need the token when set."""
    router = APIRouter(prefix="/api/v1")
    guarded = APIRouter(dependencies=[Depends(_token_check(state))])
    limiter = CapacityLimiter(MAX_STREAMS)

    @router.get("/health", tags=["meta"])
    def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @guarded.post("/research", status_code=202, response_model=RunAccepted, tags=["runs"])
    def submit(request: RunRequest) -> RunAccepted:
        asked = request.model_copy(update={"origin": "api"})  # the server says who asked
        return RunAccepted(id=state.executor.submit(asked))

    @guarded.get("/research/{run_id}", response_model=RunStatusReply, tags=["runs"])
    def status(run_id: str) -> RunStatusReply:
        info = _info(state, run_id)
        result = None
        if info.state in ENDED:
            try:
                result = to_json_dict(history_store(state).get(run_id).result)
            except UnknownRunError:  # deleted since it ended
                raise _unknown(run_id) from None
        return RunStatusReply(**info.model_dump(), result=result)

    @guarded.post("/research/{run_id}/cancel", tags=["runs"])
    def cancel(run_id: str) -> dict[str, str]:
        try:
            cancelled = state.executor.cancel(run_id)
        except UnknownRunError:
            raise _unknown(run_id) from None
        if not cancelled:
            raise ApiError(409, "run_ended", f"Run {run_id} has already ended")
        return {"id": run_id, "state": _info(state, run_id).state}

    @guarded.get("/research/{run_id}/events", tags=["runs"],
                 response_class=StreamingResponse)
    async def events(run_id: str, after: Annotated[int, Query(ge=0)] = 0,
                     last_event_id: Annotated[str | None, Header()] = None
                     ) -> StreamingResponse:
        resumed = _last_event_id(last_event_id)
        if resumed is not None:
            after = resumed
        await anyio.to_thread.run_sync(_info, state, run_id)  # 404 before the stream
        return StreamingResponse(_stream(state, run_id, after, limiter),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache",
                                          "X-Accel-Buffering": "no"})

    @guarded.get("/research/{run_id}/export/{fmt}", tags=["runs"])
    def export(run_id: str, fmt: str) -> Response:
        try:
            format_status = exporter_status(fmt)
        except ConfigError as exc:
            raise ApiError(404, "unknown_format", str(exc)) from None
        if not format_status.usable:
            raise ApiError(501, "format_unavailable",
                           f"Cannot export as {format_status.name}: "
                           f"{format_status.description}")
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
    def compare(a: str, b: str) -> RunComparison:
        store = history_store(state)
        runs = []
        for ref in (a, b):
            try:
                runs.append(store.get(ref))
            except UnknownRunError:
                raise _unknown(ref) from None
        return compare_runs(runs[0], runs[1])

    @guarded.get("/history", tags=["history"])
    def history(search: str | None = None,
                limit: Annotated[int, Query(ge=1, le=1000)] = 50,
                offset: Annotated[int, Query(ge=0)] = 0,
                status: RunStatus | None = None, mode: ReportMode | None = None,
                collection: Annotated[str, Query(max_length=64)] | None = None,
                origin: Origin | None = None) -> list[dict[str, Any]]:
        """Stored runs, newest first, filtered as the history page filters them."""
        runs = history_store(state).list(search=search, limit=limit, offset=offset,
                                         status=status, mode=mode, collection=collection,
                                         origin=origin)
        return [run.model_dump(mode="json") for run in runs]

    @guarded.get("/collections", tags=["collections"])
    def collections() -> list[dict[str, Any]]:
        return [{"name": info.name, "documents": info.documents, "chunks": info.chunks,
                 "size_bytes": info.size_bytes, "read_only": info.read_only,
                 "updated": info.updated.isoformat() if info.updated else None}
                for info in list_collections(state.settings)]

    @guarded.get("/collections/{name}", tags=["collections"])
    def collection(name: str) -> dict[str, Any]:
        return _collection_detail(state, name)

    @guarded.delete("/collections/{name}", tags=["collections"])
    def delete_collection(name: str) -> dict[str, Any]:
        from deepcite.web.collection_jobs import delete_collection as delete

        validate_name(name)
        reserved = reserved_collection(name)
        if reserved is not None:
            raise ApiError(409, "reserved_name", str(reserved))
        try:
            warning = delete(name, state.settings, history_store(state))
        except DeepciteError as exc:
            raise ApiError(404, "unknown_collection", str(exc).splitlines()[0]) from None
        return {"name": name, "deleted": True, "warning": warning}

    @guarded.post("/collections", status_code=202, tags=["collections"])
    def add_collection(body: NewCollection) -> dict[str, str]:
        validate_name(body.name)
        reserved = reserved_collection(body.name)
        if reserved is not None:
            raise ApiError(409, "reserved_name", str(reserved))
        folder = _allowed_folder(state, body.folder)
        threading.Thread(target=_index, args=(state, body.name, folder),
                         name=f"deepcite-index-{body.name}", daemon=True).start()
        return {"name": body.name, "status": "indexing"}

    from deepcite.web.api_sources import sources_router  # it imports this module

    guarded.include_router(sources_router(state))
    router.include_router(guarded)
    return router


# ---------------------------------------------------------------------- helpers


def _token_check(state: WebState, throttle: LoginThrottle | None = None) -> Any:
    """The dependency requiring ``Authorization: Bearer <token>`` when a token is set;
    compared in constant time so the reply's timing does not leak the token.

    Wrong tokens are throttled as wrong login passwords are (:mod:`~deepcite.web.
    login_throttle`, counted apart from the login form's): past the limit a request
    sending a token gets 429 before it is compared, so the API is no faster a way to
    guess it. ``throttle`` replaces the default, for tests with a clock of their own."""
    guesses = throttle or LoginThrottle()
    sessions = Sessions(state.token, lambda: history_store(state)) if state.token else None

    async def check(request: Request,
                    authorization: Annotated[str | None, Header()] = None) -> None:
        # async: the bearer check is pure CPU, so no hop to the thread pool for it
        if state.token is None:
            return
        # The pages' live view (EventSource) and download links cannot send a header;
        # their session cookie is accepted for reading only, so a forged cross-site
        # form can never start or cancel a run with it - and only while the session is
        # live in the store (not logged out, not expired): one read, on a thread, and
        # only for a cookie whose signature holds.
        if request.method == "GET" and sessions is not None:
            claimed = sessions.claimed(request.cookies.get(COOKIE))
            if claimed is not None and claimed.authed and await anyio.to_thread.run_sync(
                    sessions.live, claimed):
                return
        host = request.client.host if request.client else None
        if authorization is not None:
            wait = guesses.retry_after(host)
            if wait is not None:
                raise ApiError(429, "too_many_attempts", "Too many wrong tokens - wait "
                               f"{wait} seconds, then retry with the right token",
                               headers={"Retry-After": str(wait)})
        scheme, _, given = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
                given.strip().encode("utf-8"), state.token.encode("utf-8")):
            if authorization is not None:
                guesses.failed(host)
            raise ApiError(401, "unauthorized", "A valid token is required: send "
                           "Authorization: Bearer <token>",
                           headers={"WWW-Authenticate": "Bearer"})
        guesses.succeeded(host)
    return check


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


def _allowed_folder(state: WebState, folder: str) -> Path:
    """``folder`` resolved (absolute, or relative to a folder root), if it lies inside
    a folder root - the pages' rule (:func:`~deepcite.web.collection_jobs.inside_roots`);
    else a 403 (a 400 when it is a path inside a root that is not a folder)."""
    path = inside_roots(folder, state.folder_roots)
    if path is not None:
        return path
    given = Path(folder).expanduser()
    inside = [Path(root).expanduser().resolve() for root in state.folder_roots
              if (Path(root) / given if not given.is_absolute() else given).resolve()
              .is_relative_to(Path(root).expanduser().resolve())]
    if inside:
        raise ApiError(400, "not_a_folder", f"{folder} is not a folder on the server")
    raise ApiError(403, "folder_not_allowed", folder_problem(state.folder_roots))


def _collection_detail(state: WebState, name: str) -> dict[str, Any]:
    """``GET /collections/{name}``: counts, documents and the web indexing as last
    recorded (its folder, state, summary and failed documents)."""
    validate_name(name)
    try:
        opened = Collection.named(name, settings=state.settings)
        info = opened.info()
        documents = [] if opened.search_only else sorted(
            opened.index.documents().values(), key=lambda d: d.path)
    except DeepciteError as exc:
        raise ApiError(404, "unknown_collection", str(exc).splitlines()[0]) from None
    entries = [e for e in history_store(state).collections() if e.name == name]
    kept = entries[0].settings.get("web") if entries else None
    return {"name": info.name, "backend": info.backend, "documents": info.documents,
            "chunks": info.chunks, "size_bytes": info.size_bytes,
            "read_only": info.read_only,
            "updated": info.updated.isoformat() if info.updated else None,
            "indexing": kept if isinstance(kept, dict) else None,
            "files": [{"path": d.path, "chunks": d.chunks, "size": d.size}
                      for d in documents]}


def _index(state: WebState, name: str, folder: Path) -> None:
    """Index ``folder`` into collection ``name`` (a background thread: indexing a
    folder takes minutes, longer than a request should)."""
    try:
        report = Collection.create(name, settings=state.settings).add(folder)
    except DeepciteError as exc:
        logger.warning("indexing %s into collection %s failed: %s", folder, name, exc)
    except Exception:  # a crash here must be visible, not a silently dead thread
        logger.exception("indexing %s into collection %s crashed", folder, name)
    else:
        logger.info("collection %s: %s", name, report.summary())


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
