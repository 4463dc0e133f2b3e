"""A stored report: rendered like the HTML export, with its evidence popovers,
downloads and a follow-up box."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from deepcite.errors import DeepciteError
from deepcite.web.page_kit import PageKit, quote_path
from deepcite.web.pages_views import evidence, report_body


def routes(kit: PageKit) -> APIRouter:
    """The routes of this area of the pages."""
    router = APIRouter(include_in_schema=False)

    @router.get("/reports/{run_id}", response_class=HTMLResponse)
    def report(request: Request, run_id: str) -> Response:
        session = kit.session_for(request)
        try:
            with kit.store() as history:
                stored = history.get(run_id)
        except DeepciteError as exc:
            return kit.not_found(request, session, str(exc))
        result = stored.result
        return kit.render(request, session, "report.html",
                      title=result.title or result.question, run=stored, result=result,
                      body=report_body(result, stored.settings, kit.state.settings),
                      follow_up_collections=_snapshot_collections(stored.settings),
                      evidence=evidence(result), exports=kit.usable_exports(),
                      export_base=f"/api/v1/research/{quote_path(stored.id)}/export/")


    return router


def _snapshot_collections(snapshot: dict[str, Any]) -> list[str]:
    """The collections a stored run searched (a follow-up searches them again)."""
    search = snapshot.get("search")
    names = search.get("collections") if isinstance(search, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []
