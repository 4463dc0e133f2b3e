"""The history: every stored run, a search box, delete."""

from __future__ import annotations

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from deepcite.errors import DeepciteError, UnknownRunError
from deepcite.store import ACTIVE
from deepcite.web.page_kit import PageKit


def routes(kit: PageKit) -> APIRouter:
    """The routes of this area of the pages."""
    router = APIRouter(include_in_schema=False)

    @router.get("/history", response_class=HTMLResponse)
    def history(request: Request, q: str = "") -> Response:
        session = kit.session_for(request)
        problem = None
        try:
            with kit.store() as history_store:
                runs = history_store.list(search=q or None, limit=500)
        except DeepciteError as exc:
            runs, problem = [], str(exc)
        return kit.render(request, session, "history.html", title="History", runs=runs, q=q,
                      problem=problem)

    @router.post("/history/{run_id}/delete")
    async def delete(request: Request, run_id: str) -> Response:
        _, session = await kit.posted(request)
        problem = await anyio.to_thread.run_sync(delete_run, run_id)
        if problem is not None:
            return await anyio.to_thread.run_sync(kit.not_found, request, session, problem)
        return RedirectResponse("/history", status_code=303)

    def delete_run(run_id: str) -> str | None:
        """Cancel the run if it is active, then delete it; the problem, if any."""
        try:
            if kit.state.executor.status(run_id).state in ACTIVE:
                kit.state.executor.cancel(run_id)
        except UnknownRunError:
            pass
        try:
            with kit.store() as history_store:
                history_store.delete(run_id)
        except DeepciteError as exc:
            return str(exc)
        return None

    return router
