"""What every REST router shares: the error reply, who is asking, the server's state.

The routers of :mod:`deepcite.web.rest` are modules of plain functions on module-level
routers; what a handler needs of the server comes in through FastAPI dependencies, not
closures. :func:`binder` is the one dependency :func:`deepcite.web.rest.api_router` puts
on every route: it leaves the :class:`~deepcite.web.contracts.WebState` (and the event
streams' limiter) in the request's state, where :data:`State` and :data:`Streams` read
it. :data:`AskedBy` names the caller the guarded router's gate found.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

import anyio.to_thread
from anyio import CapacityLimiter
from fastapi import Depends, Request

from deepcite.errors import UnknownRunError
from deepcite.runs.caller import Caller
from deepcite.store import HistoryStore
from deepcite.web.contracts import WebState
from deepcite.web.request_scope import binder as scope_binder
from deepcite.web.request_scope import bound
from deepcite.web.who_is_asking import Gate, Refused

__all__ = ["ApiError", "AskedBy", "State", "Streams", "binder", "caller_dependency",
           "current_caller", "history_store", "unknown_run", "visible_run"]


class ApiError(Exception):
    """An error reply: HTTP ``status``, a machine ``code`` and a one-line ``message``."""

    def __init__(self, status: int, code: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers


def history_store(state: WebState) -> HistoryStore:
    """The store the executor records runs in: every route reads history there."""
    return state.executor.store


def binder(state: WebState, streams: CapacityLimiter) -> Callable[[Request], None]:
    """The dependency that hands ``state`` and the event streams' limiter to the
    routes of one ``/api/v1`` router."""
    return scope_binder(web_state=state, stream_limiter=streams)


def _web_state(request: Request) -> WebState:
    return bound(request, "web_state", WebState)


def _streams(request: Request) -> CapacityLimiter:
    return bound(request, "stream_limiter", CapacityLimiter)


#: A route parameter giving the server's state (``state: State``).
State = Annotated[WebState, Depends(_web_state)]
#: A route parameter giving the limiter of waiting event streams.
Streams = Annotated[CapacityLimiter, Depends(_streams)]


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


def unknown_run(run_id: str) -> ApiError:
    """404 ``unknown_run``: the one reply for a run that is missing or not the caller's."""
    return ApiError(404, "unknown_run", f"No run {run_id!r}")


def visible_run(state: WebState, caller: Caller, ref: str) -> str:
    """The full id of run ``ref`` if ``caller`` may see it, else 404 ``unknown_run`` -
    the same reply for another user's run as for one that never existed."""
    try:
        return history_store(state).visible(ref, caller.access)
    except UnknownRunError:
        raise unknown_run(ref) from None
