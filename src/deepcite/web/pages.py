"""The server-rendered pages: new research, live progress, reports, history,
collections, settings and login.

Every page is one Jinja2 template extending ``layout.html`` (autoescape on), styled by
one stylesheet, and readable without JavaScript; two small static scripts only add the
live progress view and hover popovers. Runs are reached only through
:class:`~deepcite.web.contracts.RunExecutor` and the history store, so the pages work
with any executor. Sessions, CSRF and login are in :mod:`deepcite.web.pages_auth`.

Wiring (``create_app``)::

    app.include_router(pages_router(state))
    mount_static(app)          # serves STATIC_DIR at /static
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException as StarletteHTTPException

from deepcite.errors import ConfigError, DeepciteError, InputError, RequestError, UnknownRunError
from deepcite.store import ACTIVE, HistoryStore
from deepcite.web.api import history_store
from deepcite.web.contracts import WebState
from deepcite.web.login_throttle import LoginThrottle
from deepcite.web.pages_auth import CSRF_FIELD, Session, Sessions, safe_next
from deepcite.web.pages_forms import (
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_FILES,
    UPLOAD_SUFFIXES,
    form_choices,
    run_request,
)
from deepcite.web.pages_progress import progress_of
from deepcite.web.pages_views import (
    IndexJobs,
    evidence,
    inside_roots,
    key_status,
    report_body,
    settings_rows,
)

PACKAGE_DIR = Path(__file__).parent
TEMPLATES_DIR = PACKAGE_DIR / "templates"
#: The stylesheet and scripts; :func:`mount_static` serves them at ``/static``.
STATIC_DIR = PACKAGE_DIR / "static"
STATIC_PATH = "/static"
#: Largest form field other than a file (pasted material text), in bytes.
MAX_FIELD_BYTES = 5 * 1024 * 1024


def mount_static(app: FastAPI) -> None:
    """Serve the pages' stylesheet and scripts at ``/static`` (a mount, not a route:
    routers cannot carry mounts)."""
    app.mount(STATIC_PATH, StaticFiles(directory=STATIC_DIR), name="static")


def _environment() -> Environment:
    return Environment(loader=FileSystemLoader(TEMPLATES_DIR),
                       autoescape=select_autoescape(default=True, default_for_string=True),
                       trim_blocks=True, lstrip_blocks=True)


def pages_router(state: WebState, *, auth: Sessions | None = None,
                 login_throttle: LoginThrottle | None = None) -> APIRouter:
    """The pages' routes for ``state``; include it and call :func:`mount_static`.

    ``auth`` and ``login_throttle`` replace the sessions (kept in the history store of
    ``state``) and the login throttle, for tests that need a clock of their own."""
    router = APIRouter(include_in_schema=False)
    sessions = auth or Sessions(state.token, lambda: history_store(state))
    throttle = login_throttle or LoginThrottle()
    templates = _environment()
    jobs = IndexJobs()
    exports: list[str] = []

    def session_for(request: Request) -> Session:
        session = sessions.load(request)
        if not sessions.allowed(session):
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            raise HTTPException(status_code=303, detail="Log in first",
                                headers={"Location": f"/login?next={_quote(target)}"})
        return session

    def render(request: Request, session: Session, name: str, status: int = 200,
               **context: Any) -> HTMLResponse:
        context.update(csrf_field=CSRF_FIELD, csrf_token=sessions.csrf_token(session),
                       logged_in=state.token is not None and session.authed,
                       static=STATIC_PATH, path=request.url.path)
        response = HTMLResponse(templates.get_template(name).render(context),
                                status_code=status)
        response.headers["Cache-Control"] = "no-store"
        sessions.store(response, session, request)
        return response

    async def posted(request: Request) -> tuple[FormData, Session]:
        form = await request.form(max_part_size=MAX_FIELD_BYTES)
        # a thread: a logged-in session is checked against the history store
        session = await anyio.to_thread.run_sync(sessions.check_csrf, request,
                                                 form.get(CSRF_FIELD))
        if not sessions.allowed(session):
            raise HTTPException(status_code=303, detail="Log in first",
                                headers={"Location": "/login"})
        return form, session

    def store() -> contextlib.AbstractContextManager[HistoryStore]:
        """The executor's store, the one runs are recorded in (left open: it is the
        executor's to close)."""
        return contextlib.nullcontext(state.executor.store)

    def not_found(request: Request, session: Session, what: str) -> HTMLResponse:
        return render(request, session, "error.html", 404, title="Not found", message=what)

    def usable_exports() -> list[str]:
        if not exports:
            from deepcite.export import exporter_statuses

            exports.extend(s.name for s in exporter_statuses() if s.usable)
        return exports

    # ------------------------------------------------------------------ research

    def research_form(request: Request, session: Session, status: int = 200,
                      problems: list[str] | None = None,
                      values: FormData | None = None) -> HTMLResponse:
        return render(request, session, "index.html", status, title="New research",
                      choices=form_choices(state.settings), problems=problems or [],
                      values=values or {}, settings=state.settings,
                      max_upload_mb=MAX_UPLOAD_BYTES // (1024 * 1024),
                      accept=",".join(UPLOAD_SUFFIXES))

    @router.get("/", response_class=HTMLResponse)
    def index(request: Request) -> Response:
        return research_form(request, session_for(request))

    @router.post("/")
    async def submit(request: Request) -> Response:
        # Parsed here first, with the file cap, so the parser never spools more files
        # than a run can take; posted() below then reads the same, cached form.
        try:
            await request.form(max_files=MAX_UPLOAD_FILES, max_part_size=MAX_FIELD_BYTES)
        except StarletteHTTPException as exc:
            if exc.status_code != 400:
                raise
            problem = (f"Too many files: at most {MAX_UPLOAD_FILES} can be uploaded at once"
                       " - leave some out" if "files" in str(exc.detail).lower()
                       else f"The form was refused ({exc.detail}) - shorten it and retry")
            refused = await anyio.to_thread.run_sync(session_for, request)
            return await anyio.to_thread.run_sync(research_form, request, refused, 400,
                                                  [problem])
        form, session = await posted(request)
        run, problems = await run_request(form)  # parses the uploads in a worker thread
        if run is None:
            return await anyio.to_thread.run_sync(research_form, request, session, 400,
                                                  problems, form)
        try:
            run_id = await anyio.to_thread.run_sync(state.executor.submit, run)
        except (InputError, ConfigError) as exc:
            # the executor's submit checks (unknown collection, strategy the model cannot
            # run, bad materials...) are the form's problems, shown on the form
            problem = _first_line(exc)
            if isinstance(exc, RequestError):
                problem = f"{exc.field}: {problem}"
            return await anyio.to_thread.run_sync(research_form, request, session, 400,
                                                  [problem], form)
        return RedirectResponse(f"/runs/{_quote(run_id)}", status_code=303)

    # ------------------------------------------------------------------ runs

    @router.get("/runs/{run_id}", response_class=HTMLResponse)
    def run_page(request: Request, run_id: str) -> Response:
        session = session_for(request)
        try:
            info = state.executor.status(run_id)
        except UnknownRunError:
            return RedirectResponse(f"/reports/{_quote(run_id)}", status_code=303)
        if info.state == "completed":
            return RedirectResponse(f"/reports/{_quote(info.id)}", status_code=303)
        batch = state.executor.events(info.id, 0, 0.0)
        return render(request, session, "run.html", title="Research run", run=info,
                      active=info.state in ACTIVE,
                      progress=progress_of(event for _, event in batch.events),
                      events_url=f"/api/v1/research/{_quote(info.id)}/events")

    @router.post("/runs/{run_id}/cancel")
    async def cancel(request: Request, run_id: str) -> Response:
        await posted(request)
        await anyio.to_thread.run_sync(cancel_run, run_id)
        return RedirectResponse(f"/runs/{_quote(run_id)}", status_code=303)

    # ------------------------------------------------------------------ reports

    @router.get("/reports/{run_id}", response_class=HTMLResponse)
    def report(request: Request, run_id: str) -> Response:
        session = session_for(request)
        try:
            with store() as history:
                stored = history.get(run_id)
        except DeepciteError as exc:
            return not_found(request, session, str(exc))
        result = stored.result
        return render(request, session, "report.html",
                      title=result.title or result.question, run=stored, result=result,
                      body=report_body(result, stored.settings, state.settings),
                      follow_up_collections=_snapshot_collections(stored.settings),
                      evidence=evidence(result), exports=usable_exports(),
                      export_base=f"/api/v1/research/{_quote(stored.id)}/export/")

    # ------------------------------------------------------------------ history

    @router.get("/history", response_class=HTMLResponse)
    def history(request: Request, q: str = "") -> Response:
        session = session_for(request)
        problem = None
        try:
            with store() as history_store:
                runs = history_store.list(search=q or None, limit=500)
        except DeepciteError as exc:
            runs, problem = [], str(exc)
        return render(request, session, "history.html", title="History", runs=runs, q=q,
                      problem=problem)

    @router.post("/history/{run_id}/delete")
    async def delete(request: Request, run_id: str) -> Response:
        _, session = await posted(request)
        problem = await anyio.to_thread.run_sync(delete_run, run_id)
        if problem is not None:
            return await anyio.to_thread.run_sync(not_found, request, session, problem)
        return RedirectResponse("/history", status_code=303)

    def cancel_run(run_id: str) -> None:
        with contextlib.suppress(UnknownRunError):
            state.executor.cancel(run_id)

    def delete_run(run_id: str) -> str | None:
        """Cancel the run if it is active, then delete it; the problem, if any."""
        try:
            if state.executor.status(run_id).state in ACTIVE:
                state.executor.cancel(run_id)
        except UnknownRunError:
            pass
        try:
            with store() as history_store:
                history_store.delete(run_id)
        except DeepciteError as exc:
            return str(exc)
        return None

    # ------------------------------------------------------------------ collections

    def collections_page(request: Request, session: Session, status: int = 200,
                         problem: str | None = None, message: str | None = None,
                         ) -> HTMLResponse:
        from deepcite.collections.collection import scan_collections

        try:
            listing = scan_collections(state.settings)
            infos, problems = listing.infos, [f"{p}: {why}" for p, why in listing.problems]
        except (DeepciteError, OSError) as exc:
            infos, problems = [], [str(exc)]
        with jobs.lock:
            states, folders = dict(jobs.states), dict(jobs.folders)
        return render(request, session, "collections.html", status, title="Collections",
                      infos=infos, problems=problems, problem=problem, message=message,
                      states=states, folders=folders, roots=state.folder_roots)

    @router.get("/collections", response_class=HTMLResponse)
    def collections(request: Request) -> Response:
        return collections_page(request, session_for(request))

    @router.post("/collections")
    async def add_collection(request: Request) -> Response:
        form, session = await posted(request)
        name, folder = str(form.get("name") or "").strip(), str(form.get("folder") or "")
        return await anyio.to_thread.run_sync(start_index, request, session, name, folder)

    @router.post("/collections/{name}/reindex")
    async def reindex(request: Request, name: str) -> Response:
        _, session = await posted(request)
        with jobs.lock:
            folder = jobs.folders.get(name, "")
        return await anyio.to_thread.run_sync(start_index, request, session, name, folder)

    def start_index(request: Request, session: Session, name: str,
                    folder: str) -> Response:
        from deepcite.collections.collection import validate_name
        from deepcite.runs.checks import reserved_collection

        try:
            validate_name(name)
        except DeepciteError as exc:
            return collections_page(request, session, 400, problem=str(exc))
        reserved = reserved_collection(name)  # the bundled demo is rebuilt, never replaced
        if reserved is not None:
            return collections_page(request, session, 409, problem=str(reserved))
        path = inside_roots(folder.strip(), state.folder_roots) if folder.strip() else None
        if path is None:
            return collections_page(request, session, 400, problem=(
                "The folder must be an existing folder inside one of the allowed folders "
                f"({', '.join(state.folder_roots) or 'none configured'})"))
        if jobs.running(name):
            return collections_page(request, session, 409,
                                    problem=f"{name} is being indexed already")
        jobs.start(name, path, state.settings)
        return collections_page(request, session, 202,
                                message=f"Indexing {path} into {name} - reload for progress")

    # ------------------------------------------------------------------ settings

    @router.get("/settings", response_class=HTMLResponse)
    def settings_page(request: Request) -> Response:
        from deepcite.llm import describe_providers

        session = session_for(request)
        try:
            providers = describe_providers(state.settings)
        except DeepciteError:
            providers = []
        return render(request, session, "settings.html", title="Settings",
                      providers=providers, keys=key_status(state.settings, dict(os.environ)),
                      rows=settings_rows(state.settings))

    # ------------------------------------------------------------------ login

    @router.get("/login", response_class=HTMLResponse)
    def login(request: Request, next: str = "/") -> Response:
        session = sessions.load(request)
        if state.token is None or session.authed:
            return RedirectResponse(safe_next(next), status_code=303)
        return render(request, session, "login.html", title="Log in", next=safe_next(next))

    @router.post("/login")
    async def do_login(request: Request) -> Response:
        form = await request.form()
        # the store is read and written on a thread: the event loop never waits on it
        session = await anyio.to_thread.run_sync(sessions.check_csrf, request,
                                                 form.get(CSRF_FIELD))
        host = request.client.host if request.client else None
        target = safe_next(form.get("next"))
        wait = throttle.retry_after(host)  # before the password: even the right one waits
        if wait is not None:
            refused = render(request, session, "login.html", 429, title="Log in",
                             next=target, problem="Too many wrong passwords - wait "
                             f"{wait} seconds, then try again")
            refused.headers["Retry-After"] = str(wait)
            return refused
        if not sessions.password_ok(form.get("password")):
            throttle.failed(host)
            return render(request, session, "login.html", 401, title="Log in",
                          next=target, problem="Wrong password")
        throttle.succeeded(host)
        response = RedirectResponse(target, status_code=303)
        sessions.store(response, await anyio.to_thread.run_sync(sessions.log_in), request)
        return response

    @router.post("/logout")
    async def logout(request: Request) -> Response:
        form = await request.form()
        session = await anyio.to_thread.run_sync(sessions.check_csrf, request,
                                                 form.get(CSRF_FIELD))
        await anyio.to_thread.run_sync(sessions.log_out, session)
        response = RedirectResponse("/login" if state.token else "/", status_code=303)
        sessions.store(response, sessions.new(authed=False), request)
        return response

    return router


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="/")


def _snapshot_collections(snapshot: dict[str, Any]) -> list[str]:
    """The collections a stored run searched (a follow-up searches them again)."""
    search = snapshot.get("search")
    names = search.get("collections") if isinstance(search, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []
