"""New research and the run it starts: the form, submitting it, the live run page, cancelling.

With accounts, every run the form starts belongs to the logged-in user
(:meth:`RunRequest.asked_by`), and the run page and cancel see only runs the user may
(another user's run is as missing as one that never existed). The executor is asked
about a run only once the store has said the caller may see it.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException as StarletteHTTPException

from deepcite.errors import (
    ConfigError,
    DeepciteError,
    InputError,
    UnknownRunError,
)
from deepcite.runs import RunInfo
from deepcite.store import ACTIVE
from deepcite.store.user_rights import EVERYTHING, Access
from deepcite.types import ResearchResult
from deepcite.web.page_forms import (
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_FILES,
    UPLOAD_SUFFIXES,
    form_choices,
    page_words,
    run_request,
    submit_problem,
)
from deepcite.web.pages._progress import PHASE_LABELS, elapsed, ended_with, progress_of
from deepcite.web.pages.kit import MAX_FIELD_BYTES, Kit, PageKit, quote_path
from deepcite.web.sessions import Session

router = APIRouter(include_in_schema=False)


def research_form(kit: PageKit, request: Request, session: Session, status: int = 200,
                  problems: list[str] | None = None,
                  values: FormData | None = None, asked: str | None = None) -> HTMLResponse:
    """The research form; ``asked`` (``/?collection=NAME``, the collection page's "Ask
    this collection") is ticked alone when it is one the caller may search now."""
    choices = form_choices(kit.state.settings, kit.history, kit.access(session))
    shown = [page_words(problem) for problem in problems or []]
    usable = {row.name for row in choices.collection_rows if row.usable}
    ticked = (values.getlist("collections") if values is not None
              else [asked] if asked in usable else choices.preselected)
    engines = values.getlist("engines") if values is not None else []
    # open when something in it is ticked, or a problem is about what it holds
    sources_open = bool(ticked or engines) or any(
        word in problem.lower() for problem in shown
        for word in ("collection", "engine", "strategy", "provider", "model",
                     "iteration", "sources and model"))
    return kit.render(request, session, "index.html", status, title="New research",
                  choices=choices, problems=shown, values=values or {},
                  ticked=ticked, ticked_engines=engines, sources_open=sources_open,
                  settings=kit.state.settings,
                  max_upload_mb=MAX_UPLOAD_BYTES // (1024 * 1024),
                  accept=",".join(UPLOAD_SUFFIXES))


@router.get("/", response_class=HTMLResponse)
def index(kit: Kit, request: Request, collection: str | None = None) -> Response:
    return research_form(kit, request, kit.session_for(request), asked=collection)


@router.post("/")
async def submit(kit: Kit, request: Request) -> Response:
    # Parsed here first, with the file cap, so the parser never spools more files
    # than a run can take; kit.posted() below then reads the same, cached form.
    try:
        await request.form(max_files=MAX_UPLOAD_FILES, max_part_size=MAX_FIELD_BYTES)
    except StarletteHTTPException as exc:
        if exc.status_code != 400:
            raise
        problem = (f"Too many files: at most {MAX_UPLOAD_FILES} can be uploaded at once"
                   " - leave some out" if "files" in str(exc.detail).lower()
                   else f"The form was refused ({exc.detail}) - shorten it and retry")
        refused = await anyio.to_thread.run_sync(kit.session_for, request)
        return await anyio.to_thread.run_sync(research_form, kit, request, refused, 400,
                                              [problem])
    form, session = await kit.posted(request)
    run, problems = await run_request(form)  # parses the uploads in a worker thread
    if run is None:
        return await anyio.to_thread.run_sync(research_form, kit, request, session, 400,
                                              problems, form)
    # the caller's run, whatever the form said; its parent is checked with its access
    run = run.asked_by("web", kit.caller(session).owner)
    try:
        run_id = await anyio.to_thread.run_sync(kit.state.executor.submit, run)
    except (InputError, ConfigError) as exc:
        # the executor's submit checks (unknown collection, strategy the model cannot
        # run, bad materials...) are the form's problems, shown on the form
        problem = submit_problem(exc)
        return await anyio.to_thread.run_sync(research_form, kit, request, session, 400,
                                              [problem], form)
    return RedirectResponse(f"/runs/{quote_path(run_id)}", status_code=303)


# ------------------------------------------------------------------ runs
@router.get("/runs/{run_id}", response_class=HTMLResponse)
def run_page(kit: Kit, request: Request, run_id: str, cancelling: bool = False) -> Response:
    session = kit.session_for(request)
    access = kit.access(session)
    try:
        info = kit.state.executor.status(visible(kit, run_id, access))
    except UnknownRunError:  # the report page says it is not there
        return RedirectResponse(f"/reports/{quote_path(run_id)}", status_code=303)
    if info.state == "completed":
        return RedirectResponse(f"/reports/{quote_path(info.id)}", status_code=303)
    batch = kit.state.executor.events(info.id, 0, 0.0)
    active = info.state in ACTIVE
    progress = progress_of((event for _, event in batch.events), mode=info.mode,
                           started=info.created_at.timestamp())
    if info.state == "running" and progress.phase == "waiting":
        progress.phase = "starting"
    if not active:
        progress = ended_with(progress, info.state, stored_result(kit, info.id, access))
    return kit.render(request, session, "run.html",
                      title="Document check" if info.mode == "check" else "Research run",
                      run=info,
                  active=active, progress=progress, state_text=state_text(kit, info),
                  cancelling=cancelling and active,
                  phase_labels=PHASE_LABELS,
                  started_ms=int(info.created_at.timestamp() * 1000),
                  elapsed=elapsed(info.created_at, info.finished_at
                                  or datetime.now(UTC)),
                  events_url=f"/api/v1/research/{quote_path(info.id)}/events")


def visible(kit: PageKit, run_id: str, access: Access) -> str:
    """The id to ask the executor about: ``run_id`` when ``access`` sees every run
    (the executor may know runs the store does not yet), else the full id of a run
    the caller may see - an :class:`UnknownRunError` for another user's."""
    return run_id if access.sees_all else kit.history.visible(run_id, access)


def stored_result(kit: PageKit, run_id: str, access: Access) -> ResearchResult | None:
    """The run's stored result (its metrics are the report's), if it can be read."""
    try:
        return kit.history.get(run_id, access).result
    except (DeepciteError, OSError):
        return None


def state_text(kit: PageKit, info: RunInfo) -> str:
    """The run's state in words: "queued" only while something is ahead of it."""
    if info.state == "queued":
        ahead = (info.queue_position or 1) - 1
        if ahead:
            return f"queued: {ahead} run{'s' if ahead > 1 else ''} ahead of it"
        if others_running(kit, info.id):
            return "queued: waiting for a running run to finish"
        return "starting"
    return {"interrupted": "interrupted (the server stopped)"}.get(info.state,
                                                                   info.state)


def others_running(kit: PageKit, run_id: str) -> bool:
    """Whether a run other than ``run_id`` is running: anyone's, since the queue is
    the server's (only a yes or no is shown, never which run)."""
    try:
        running = kit.history.list(status="running", limit=2, access=EVERYTHING)
    except (DeepciteError, OSError):
        return False
    return any(run.id != run_id for run in running)


@router.post("/runs/{run_id}/cancel")
async def cancel(kit: Kit, request: Request, run_id: str) -> Response:
    _, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(cancel_run, kit, request, session, run_id)


def cancel_run(kit: PageKit, request: Request, session: Session, run_id: str) -> Response:
    """Cancel a run the caller may see; another user's is not found, as a missing one
    is with accounts (without them a missing run's page says so itself)."""
    access = kit.access(session)
    try:
        shown = visible(kit, run_id, access)
    except UnknownRunError as exc:  # the store's words: the same for either
        return kit.not_found(request, session, str(exc))
    with contextlib.suppress(UnknownRunError):
        kit.state.executor.cancel(shown)
    # the run page says at once that the cancel was taken: a model call in progress
    # finishes its current step first, and the run may still look busy until it does
    return RedirectResponse(f"/runs/{quote_path(run_id)}?cancelling=1", status_code=303)
