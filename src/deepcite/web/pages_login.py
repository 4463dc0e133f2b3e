"""Logging in and out (when the server needs a token)."""

from __future__ import annotations

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from deepcite.web.page_kit import PageKit
from deepcite.web.pages_auth import CSRF_FIELD, safe_next


def routes(kit: PageKit) -> APIRouter:
    """The routes of this area of the pages."""
    router = APIRouter(include_in_schema=False)

    @router.get("/login", response_class=HTMLResponse)
    def login(request: Request, next: str = "/") -> Response:
        session = kit.sessions.load(request)
        if kit.state.token is None or session.authed:
            return RedirectResponse(safe_next(next), status_code=303)
        return kit.render(request, session, "login.html", title="Log in", next=safe_next(next))

    @router.post("/login")
    async def do_login(request: Request) -> Response:
        form = await request.form()
        # the store is read and written on a thread: the event loop never waits on it
        session = await anyio.to_thread.run_sync(kit.sessions.check_csrf, request,
                                                 form.get(CSRF_FIELD))
        host = request.client.host if request.client else None
        target = safe_next(form.get("next"))
        wait = kit.throttle.retry_after(host)  # before the password: even the right one waits
        if wait is not None:
            refused = kit.render(request, session, "login.html", 429, title="Log in",
                             next=target, problem="Too many wrong passwords - wait "
                             f"{wait} seconds, then try again")
            refused.headers["Retry-After"] = str(wait)
            return refused
        if not kit.sessions.password_ok(form.get("password")):
            kit.throttle.failed(host)
            return kit.render(request, session, "login.html", 401, title="Log in",
                          next=target, problem="Wrong password")
        kit.throttle.succeeded(host)
        response = RedirectResponse(target, status_code=303)
        kit.sessions.store(response, await anyio.to_thread.run_sync(kit.sessions.log_in), request)
        return response

    @router.post("/logout")
    async def logout(request: Request) -> Response:
        form = await request.form()
        session = await anyio.to_thread.run_sync(kit.sessions.check_csrf, request,
                                                 form.get(CSRF_FIELD))
        await anyio.to_thread.run_sync(kit.sessions.log_out, session)
        response = RedirectResponse("/login" if kit.state.token else "/", status_code=303)
        kit.sessions.store(response, kit.sessions.new(authed=False), request)
        return response

    return router
