"""The collections: listing, indexing a server folder inside the folder roots, re-indexing."""

from __future__ import annotations

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from deepcite.errors import DeepciteError
from deepcite.web.page_kit import PageKit
from deepcite.web.pages_auth import Session
from deepcite.web.pages_views import inside_roots


def routes(kit: PageKit) -> APIRouter:
    """The routes of this area of the pages."""
    router = APIRouter(include_in_schema=False)

    def collections_page(request: Request, session: Session, status: int = 200,
                         problem: str | None = None, message: str | None = None,
                         ) -> HTMLResponse:
        from deepcite.collections.collection import scan_collections

        try:
            listing = scan_collections(kit.state.settings)
            infos, problems = listing.infos, [f"{p}: {why}" for p, why in listing.problems]
        except (DeepciteError, OSError) as exc:
            infos, problems = [], [str(exc)]
        with kit.jobs.lock:
            states, folders = dict(kit.jobs.states), dict(kit.jobs.folders)
        return kit.render(request, session, "collections.html", status, title="Collections",
                      infos=infos, problems=problems, problem=problem, message=message,
                      states=states, folders=folders, roots=kit.state.folder_roots)

    @router.get("/collections", response_class=HTMLResponse)
    def collections(request: Request) -> Response:
        return collections_page(request, kit.session_for(request))

    @router.post("/collections")
    async def add_collection(request: Request) -> Response:
        form, session = await kit.posted(request)
        name, folder = str(form.get("name") or "").strip(), str(form.get("folder") or "")
        return await anyio.to_thread.run_sync(start_index, request, session, name, folder)

    @router.post("/collections/{name}/reindex")
    async def reindex(request: Request, name: str) -> Response:
        _, session = await kit.posted(request)
        with kit.jobs.lock:
            folder = kit.jobs.folders.get(name, "")
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
        path = inside_roots(folder.strip(), kit.state.folder_roots) if folder.strip() else None
        if path is None:
            return collections_page(request, session, 400, problem=(
                "The folder must be an existing folder inside one of the allowed folders "
                f"({', '.join(kit.state.folder_roots) or 'none configured'})"))
        if kit.jobs.running(name):
            return collections_page(request, session, 409,
                                    problem=f"{name} is being indexed already")
        kit.jobs.start(name, path, kit.state.settings)
        return collections_page(request, session, 202,
                                message=f"Indexing {path} into {name} - reload for progress")

    return router
