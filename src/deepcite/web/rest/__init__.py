"""The REST API (``/api/v1``): runs, history, exports, collections, sources, watches.

One module per area, each a module-level router of plain functions -
:mod:`~deepcite.web.rest.runs`, :mod:`~deepcite.web.rest.collections`,
:mod:`~deepcite.web.rest.sources`, :mod:`~deepcite.web.rest.watches`,
:mod:`~deepcite.web.rest.usage` - sharing
:mod:`deepcite.web.rest.common` (the error reply, who is asking, the server's state).
:func:`api_router` assembles them for one server: every route but ``/health`` needs what
its gate asks (a token, a session, a user: :mod:`deepcite.web.who_is_asking`). Another user's
run is answered 404, as one that does not exist. Every error is JSON
``{"error": {"code", "message"}}`` (see :mod:`deepcite.web.app` for the handlers).

Wiring (``create_app``)::

    app.include_router(api_router(state, gate))
"""

from __future__ import annotations

from anyio import CapacityLimiter
from fastapi import APIRouter, Depends

from deepcite._version import __version__
from deepcite.web.contracts import WebState
from deepcite.web.rest import checks, collections, runs, sources, usage, watches
from deepcite.web.rest.common import ApiError, history_store
from deepcite.web.rest.common import binder as _binder
from deepcite.web.rest.common import caller_dependency as _caller_dependency
from deepcite.web.rest.runs import sse_lines
from deepcite.web.who_is_asking import Gate

__all__ = ["ApiError", "api_router", "history_store", "sse_lines"]

#: The one route open to anyone.
meta = APIRouter()


@meta.get("/health", tags=["meta"])
def health() -> dict[str, str]:
    return {"status": "ok", "version": __version__}


def api_router(state: WebState, gate: Gate | None = None) -> APIRouter:
    """The ``/api/v1`` routes for ``state``; all but ``/health`` need what ``gate``
    asks (a token, a session, a user: :mod:`deepcite.web.who_is_asking`)."""
    router = APIRouter(prefix="/api/v1", dependencies=[
        Depends(_binder(state, CapacityLimiter(runs.MAX_STREAMS)))])
    guarded = APIRouter(dependencies=[Depends(_caller_dependency(gate or Gate(state)))])
    router.include_router(meta)
    guarded.include_router(runs.router)
    guarded.include_router(checks.router)
    guarded.include_router(collections.router)
    guarded.include_router(watches.router)
    guarded.include_router(sources.router)
    guarded.include_router(usage.router)
    router.include_router(guarded)
    return router
