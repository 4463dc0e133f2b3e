"""The web application: the REST API, the pages, error replies and security headers.

API errors are always JSON ``{"error": {"code", "message"}}`` - scripts parse them -
while the pages keep FastAPI's own error replies (the pages router renders its own).
The headers ask browsers not to sniff types, not to send full referrers and to load
nothing from other origins, which is what a local research app needs. In front of every
route, :class:`~deepcite.web.front_door.FrontDoor` refuses other hosts (DNS rebinding),
cross-site state changes, requests without credentials and oversized bodies before a
body byte is read.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request, Response
from fastapi.exception_handlers import (
    http_exception_handler,
    request_validation_exception_handler,
)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from deepcite._version import __version__
from deepcite.errors import (
    DeepciteError,
    QueueError,
    RequestError,
    ShuttingDown,
    StoreError,
    UnknownRunError,
    UnreadableRunError,
    error_line,
)
from deepcite.web.contracts import WebState
from deepcite.web.feeds import feeds_router
from deepcite.web.front_door import FrontDoor
from deepcite.web.rest import ApiError, api_router
from deepcite.web.who_is_asking import Gate, Refused

logger = logging.getLogger(__name__)

API_PREFIX = "/api/v1"
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    # Inline styles only for table alignment, the one style nh3 lets through.
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
}


def create_app(state: WebState) -> FastAPI:
    """The app for ``state``; the pages are included once :mod:`deepcite.web.pages`
    exists. OpenAPI is served at ``/api/v1/openapi.json`` (no Swagger UI: it loads
    scripts from a CDN, which the CSP forbids)."""
    app = FastAPI(title="deepcite", version=__version__,
                  description="Deep research with citations you can check.",
                  openapi_url=f"{API_PREFIX}/openapi.json", docs_url=None, redoc_url=None)
    app.state.web = state
    gate = Gate(state)  # one answer to "who is asking" for the door, the API and pages
    app.include_router(api_router(state, gate))
    app.include_router(feeds_router(state))
    _include_pages(app, state, gate)
    _add_error_handlers(app)

    # Added first, so it runs inside SecurityHeaders: its refusals get the headers too.
    app.add_middleware(FrontDoor, state=state, gate=gate)
    app.add_middleware(SecurityHeaders)
    return app


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every response a route did not set them on.

    Plain ASGI rather than ``@app.middleware("http")``, which wraps every response
    (event streams included) in an extra task and queue."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, with_headers)


def _include_pages(app: FastAPI, state: WebState, gate: Gate) -> None:
    try:
        from deepcite.web.pages import pages_router
    except ImportError as exc:
        if exc.name != "deepcite.web.pages":
            raise  # the pages exist but something they need is missing: say so
        logger.warning("deepcite.web.pages is not available; serving the API only")
        return
    app.include_router(pages_router(state, gate=gate))
    from deepcite.web.pages import mount_static  # a router cannot carry a mount

    mount_static(app)


def _is_api(request: Request) -> bool:
    return request.url.path == API_PREFIX or request.url.path.startswith(API_PREFIX + "/")


def error_reply(status: int, code: str, message: str, *,
                headers: dict[str, str] | None = None, **extra: object) -> JSONResponse:
    """The API's error shape: ``{"error": {"code", "message", ...extra}}``."""
    return JSONResponse({"error": {"code": code, "message": message, **extra}},
                        status_code=status, headers=headers)


def _add_error_handlers(app: FastAPI) -> None:
    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_reply(exc.status, exc.code, exc.message, headers=exc.headers)

    async def validation(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        if not _is_api(request):
            return await request_validation_exception_handler(request, exc)
        fields = []
        for problem in exc.errors():
            where = [str(p) for p in problem.get("loc", ()) if p not in ("body",)]
            fields.append({"field": ".".join(where) or "body", "message": problem["msg"]})
        names = ", ".join(dict.fromkeys(f["field"] for f in fields))
        return error_reply(422, "invalid_request", f"Invalid request: {names}",
                           fields=fields)

    async def request_error(request: Request, exc: Exception) -> Response:
        # A request that names what cannot run (found at submit, after the body parsed):
        # the same 422 shape as a body that does not validate, with the field it names.
        assert isinstance(exc, RequestError)
        message = error_line(exc)
        if not _is_api(request):
            return PlainTextResponse(message, status_code=422)
        return error_reply(422, "invalid_request", f"Invalid request: {exc.field}: {message}",
                           fields=[{"field": exc.field, "message": message}])

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if not _is_api(request):
            return await http_exception_handler(request, exc)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_reply(exc.status_code, code, str(exc.detail),
                           headers=getattr(exc, "headers", None))

    async def deepcite_error(request: Request, exc: Exception) -> Response:
        message = error_line(exc)
        # The store or the queue being down is the service's trouble, not the request's:
        # 503, so clients and load balancers retry instead of giving up on the request.
        status, code = ((404, "unknown_run") if isinstance(exc, UnknownRunError)
                        else (500, "run_unreadable") if isinstance(exc, UnreadableRunError)
                        else (503, "unavailable")
                        if isinstance(exc, StoreError | QueueError | ShuttingDown)
                        else (400, "bad_request"))
        if not _is_api(request):
            return PlainTextResponse(message, status_code=status)
        return error_reply(status, code, message)

    async def refused(request: Request, exc: Exception) -> Response:
        # who is asking was refused (an untrusted proxy header, no account): its status
        assert isinstance(exc, Refused)
        if not _is_api(request):
            return PlainTextResponse(exc.message, status_code=exc.status,
                                     headers=exc.headers or None)
        return error_reply(exc.status, exc.code, exc.message, headers=exc.headers or None)

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(Refused, refused)
    app.add_exception_handler(RequestValidationError, validation)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestError, request_error)
    app.add_exception_handler(DeepciteError, deepcite_error)
