"""What every page route shares: the state, sessions, templates and helpers.

The pages are split by area (research and runs, reports, history, collections,
settings, login, ...), one module of :mod:`deepcite.web.pages` each, every one plain
handler functions on its module-level ``router``; :func:`deepcite.web.pages.pages_router`
includes them all. A :class:`PageKit` is what they share - a handler asks for it with a
``kit: Kit`` parameter (:func:`kit_binder`) - so an area's routes are written the same
way wherever they live.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import anyio.to_thread
from fastapi import Depends, HTTPException, Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.datastructures import FormData

from deepcite.runs.caller import Caller
from deepcite.store import HistoryStore
from deepcite.store.user_rights import Access
from deepcite.text.frames import frame_for
from deepcite.web.collection_jobs import IndexJobs
from deepcite.web.contracts import WebState
from deepcite.web.login_throttle import LoginThrottle
from deepcite.web.page_forms import page_words
from deepcite.web.request_scope import binder, bound
from deepcite.web.sessions import CSRF_FIELD, Session, Sessions
from deepcite.web.who_is_asking import Gate

PACKAGE_DIR = Path(__file__).parent.parent  # templates/ and static/ stay in deepcite/web
TEMPLATES_DIR = PACKAGE_DIR / "templates"
#: The stylesheet and scripts; :func:`deepcite.web.pages.mount_static` serves them.
STATIC_DIR = PACKAGE_DIR / "static"
STATIC_PATH = "/static"
#: Largest form field other than a file (pasted material text), in bytes.
MAX_FIELD_BYTES = 5 * 1024 * 1024


def environment() -> Environment:
    """The pages' Jinja2 environment: autoescape on for every template.

    ``frame_for(key, question)`` is a global: the labels that belong to an answer
    ("Sources", "Open source") are written in its question's language
    (:mod:`deepcite.text.frames`), as the answer's own frame is.
    """
    env = Environment(loader=FileSystemLoader(TEMPLATES_DIR),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.globals["frame_for"] = frame_for
    return env


class PageKit:
    """The state, sessions and templates of one app's pages, and the helpers every
    route uses: who is asking (:meth:`session_for`), a posted form with its CSRF check
    (:meth:`posted`), rendering (:meth:`render`), the history store (:attr:`history`)."""

    def __init__(self, state: WebState, gate: Gate, throttle: LoginThrottle) -> None:
        self.state = state
        self.gate = gate
        self.throttle = throttle
        self.templates = environment()
        self.jobs: IndexJobs = state.jobs  # the API's uploads index on the same jobs
        self._exports: list[str] = []

    @property
    def sessions(self) -> Sessions:
        """The sessions of the server's mode (blocks: it may read the store - call it
        from a sync route or a thread)."""
        return self.gate.sessions()

    def session_for(self, request: Request) -> Session:
        """The asking session (logged in as the trusted proxy's user, when one names
        a user); a redirect to the login page when it may not see pages."""
        sessions = self.sessions
        session = self.gate.page_session(sessions.load(request), request)
        if not sessions.allowed(session):
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            raise HTTPException(status_code=303, detail="Log in first",
                                headers={"Location": f"/login?next={quote_path(target)}"})
        return session

    def render(self, request: Request, session: Session, name: str, status: int = 200,
               **context: Any) -> HTMLResponse:
        """Template ``name`` with ``context`` and what every page needs (CSRF, login)."""
        sessions = self.sessions
        context.update(csrf_field=CSRF_FIELD, csrf_token=sessions.csrf_token(session),
                       logged_in=sessions.login_required and session.authed,
                       user=session.user, accounts=sessions.accounts,
                       registration=sessions.accounts and self.state.settings.web.registration,
                       static=STATIC_PATH, path=request.url.path)
        response = HTMLResponse(self.templates.get_template(name).render(context),
                                status_code=status)
        response.headers["Cache-Control"] = "no-store"
        sessions.store(response, session, request)
        return response

    async def posted(self, request: Request,
                     form: FormData | None = None) -> tuple[FormData, Session]:
        """The posted form and its session, once the CSRF token and login are checked;
        ``form`` when the route has read the body itself (with caps of its own)."""
        if form is None:
            form = await request.form(max_part_size=MAX_FIELD_BYTES)
        # a thread: a logged-in session is checked against the history store
        session = await anyio.to_thread.run_sync(self._posted_session, request,
                                                 form.get(CSRF_FIELD))
        return form, session

    def _posted_session(self, request: Request, sent: object) -> Session:
        sessions = self.sessions
        session = self.gate.page_session(sessions.check_csrf(request, sent), request)
        if not sessions.allowed(session):
            raise HTTPException(status_code=303, detail="Log in first",
                                headers={"Location": "/login"})
        return session

    def caller(self, session: Session) -> Caller:
        """Who a page's session is, for the store (:attr:`Caller.access`) and the runs
        it starts (:attr:`Caller.owner`)."""
        return Caller(session.user, "session") if session.user is not None else Caller()

    def access(self, session: Session) -> Access:
        """What the store may show ``session``'s user (everything without accounts)."""
        return self.caller(session).access

    @property
    def history(self) -> HistoryStore:
        """The executor's store, the one runs are recorded in (the executor's to close)."""
        return self.state.executor.store

    def not_found(self, request: Request, session: Session, what: str) -> HTMLResponse:
        """The 404 page saying ``what`` was not found (command-line advice in a store's
        or engine's message put in the pages' terms)."""
        return self.render(request, session, "error.html", 404, title="Not found",
                           message=page_words(what))

    def usable_exports(self) -> list[str]:
        """The export formats usable on this server (looked up once)."""
        if not self._exports:
            from deepcite.export import exporter_statuses

            self._exports.extend(s.name for s in exporter_statuses() if s.usable)
        return self._exports


def quote_path(text: str) -> str:
    """``text`` quoted for a URL path (slashes kept)."""
    return quote(text, safe="/")


def kit_binder(kit: PageKit) -> Callable[[Request], None]:
    """The dependency :func:`deepcite.web.pages.pages_router` puts on every page: a
    handler's :data:`Kit` parameter then reads ``kit`` - so the areas are modules of
    plain functions on module-level routers, not closures over one kit."""
    return binder(page_kit=kit)


def _page_kit(request: Request) -> PageKit:
    return bound(request, "page_kit", PageKit)


#: A route parameter giving the pages' shared :class:`PageKit` (``kit: Kit``).
Kit = Annotated[PageKit, Depends(_page_kit)]
