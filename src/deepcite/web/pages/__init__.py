"""The server-rendered pages: new research, live progress, reports, history,
collections, watches, settings, the account and admin pages, and login.

Every page is one Jinja2 template extending ``layout.html`` (autoescape on), styled by
one stylesheet, and readable without JavaScript; small static scripts only enhance
them. Runs are reached only through :class:`~deepcite.runs.executor.RunExecutor` and
the history store, so the pages work with any executor. Sessions, CSRF and login are
in :mod:`deepcite.web.sessions`; each area of the pages is a module of its own
(``research``, ``checks``, ``reports``, ``sources``, ``history``, ``collections``, ``settings``,
``login``, ``account``, ``admin``, ``watches``, ``usage``) sharing one
:class:`~deepcite.web.pages.kit.PageKit`.

Wiring (``create_app``)::

    app.include_router(pages_router(state))
    mount_static(app)          # serves STATIC_DIR at /static
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, FastAPI
from fastapi.staticfiles import StaticFiles

from deepcite.web.contracts import WebState
from deepcite.web.login_throttle import LoginThrottle
from deepcite.web.pages import (
    account,
    admin,
    checks,
    collection_documents,
    collections,
    history,
    login,
    reports,
    research,
    settings,
    sources,
    usage,
    watches,
)
from deepcite.web.pages.kit import (
    MAX_FIELD_BYTES,
    STATIC_DIR,
    STATIC_PATH,
    TEMPLATES_DIR,
    PageKit,
    kit_binder,
)
from deepcite.web.sessions import Sessions
from deepcite.web.who_is_asking import Gate

__all__ = ["MAX_FIELD_BYTES", "STATIC_DIR", "STATIC_PATH", "TEMPLATES_DIR", "mount_static",
           "pages_router"]

#: The areas of the pages, each a module with its ``router`` of plain handler functions.
AREAS = (research, checks, reports, history, collections, collection_documents, settings, login,
         sources, account, admin, watches,
         usage)


def mount_static(app: FastAPI) -> None:
    """Serve the pages' stylesheet and scripts at ``/static`` (a mount, not a route:
    routers cannot carry mounts)."""
    app.mount(STATIC_PATH, StaticFiles(directory=STATIC_DIR), name="static")


def pages_router(state: WebState, *, auth: Sessions | None = None,
                 login_throttle: LoginThrottle | None = None,
                 gate: Gate | None = None) -> APIRouter:
    """The pages' routes for ``state``; include it and call :func:`mount_static`.

    ``gate`` says who is asking (``create_app`` shares its own); ``auth`` and
    ``login_throttle`` replace the token mode's sessions (kept in the history store of
    ``state``) and the login throttle, for tests that need a clock of their own."""
    kit = PageKit(state, gate or Gate(state, sessions=auth), login_throttle or LoginThrottle())
    router = APIRouter(include_in_schema=False, dependencies=[Depends(kit_binder(kit))])
    for area in AREAS:
        router.include_router(area.router)
    return router
