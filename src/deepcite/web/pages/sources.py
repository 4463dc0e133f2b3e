"""The source viewer (``/runs/{id}/sources/{n}``), a collection document
(``/runs/{id}/sources/{n}/document``) and the comparison of two runs (``/compare``).

Each route asks who is asking first (:meth:`PageKit.session_for`); another user's run
is not found, as a missing one. The document route serves only what
:func:`deepcite.web.sources_view.document_file` finds: a file its collection indexed,
never a path from the request, and only while the caller may still search that
collection. It is served as a download-safe
type (PDF, plain text, else an attachment) with ``nosniff`` and a sandboxing policy, so
an HTML or SVG file of a collection can never run script on the app's origin.
"""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from deepcite.errors import DeepciteError
from deepcite.store import StoredRun
from deepcite.web.pages.kit import Kit, PageKit, quote_path
from deepcite.web.sessions import Session
from deepcite.web.source_documents import document_response, may_read, viewer_url
from deepcite.web.sources_view import document_file, source_view

router = APIRouter(include_in_schema=False)


def stored_run(kit: PageKit, run_id: str, session: Session) -> StoredRun | None:
    try:
        return kit.history.get(run_id, kit.access(session))
    except DeepciteError:
        return None


@router.get("/runs/{run_id}/sources/{number}", response_class=HTMLResponse)
def source(kit: Kit, request: Request, run_id: str, number: int) -> Response:
    session = kit.session_for(request)
    stored = stored_run(kit, run_id, session)
    if stored is None:
        return kit.not_found(request, session, f"No run {run_id}")
    base = viewer_url(stored.id, number)
    view = source_view(stored.id, stored.result, number, f"{base}/document")
    if view is not None and view.collection is not None and not may_read(
            kit.history, kit.access(session))(view.collection):
        view = replace(view, document_url="")  # no link to a file it would refuse
    if view is None:
        return kit.not_found(request, session, f"Run {stored.id[:8]} has no source {number}")
    return kit.render(request, session, "source.html",
                      title=f"[{number}] {view.title}", view=view, run=stored,
                      report_url=f"/reports/{quote_path(stored.id)}")


@router.get("/runs/{run_id}/sources/{number}/document")
def document(kit: Kit, request: Request, run_id: str, number: int) -> Response:
    session = kit.session_for(request)
    stored = stored_run(kit, run_id, session)
    found = None if stored is None else next(
        (s for s in stored.result.sources if s.number == number), None)
    path = None if found is None else document_file(
        found, kit.state.settings, may_read(kit.history, kit.access(session)))
    if path is None:
        return kit.not_found(request, session, "No such document in an indexed "
                             "collection of this server")
    return document_response(path)


@router.get("/compare", response_class=HTMLResponse)
def compare(kit: Kit, request: Request, a: str = "", b: str = "") -> Response:
    from deepcite.runs.compare import compare_runs

    session = kit.session_for(request)
    runs = [stored_run(kit, ref, session) if ref else None for ref in (a, b)]
    if runs[0] is None or runs[1] is None:
        missing = next(ref for ref, run in zip((a, b), runs, strict=True) if run is None)
        return kit.not_found(request, session,
                             f"No run {missing}" if missing else "Choose two runs to compare")
    # A is the earlier run, whichever order the two were asked in: "gained" and "lost"
    # then read forwards in time (the report page's "Compare with..." names itself first).
    first, second = sorted((runs[0], runs[1]), key=lambda run: run.created_at)
    return kit.render(request, session, "compare.html", title="Compare runs",
                      a=first, b=second, comparison=compare_runs(first, second))
