"""One document of a collection: its indexed text (``/collections/{name}/documents/{id}``),
its file (``.../file``) and its removal from the collection (``POST .../delete``).

A document is named by its row id in the collection's index, never by a path from the
request. Each route asks who is asking first (:meth:`PageKit.session_for`, or
:meth:`PageKit.posted` with its CSRF check); a collection the caller may not search is
answered as missing, as an unknown one is, and only those who may change it (its owner
or an admin, see :meth:`HistoryStore.may_change_collection`) may remove a document.

The text is shown escaped in the page. The file is served only when it is the very file
that was indexed (:func:`deepcite.web.sources_view.indexed_file`) and it lies in the
collection's upload folder or in one of the server's folder roots, as the source
viewer's documents are (:func:`deepcite.web.source_documents.document_response`): a
download-safe type with ``nosniff`` and a sandboxing policy. Removing a document takes it
out of the index and, when it was uploaded, deletes the uploaded file too, so that a
re-index does not bring it back.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from urllib.parse import quote

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from deepcite.collections.collection import Collection, DocumentText, validate_name
from deepcite.errors import DeepciteError, error_line
from deepcite.runs.checks import unknown_collection_message
from deepcite.web.collection_jobs import readable, upload_folder
from deepcite.web.pages.collections import collection_error, document_url, refusal
from deepcite.web.pages.kit import Kit, PageKit, quote_path
from deepcite.web.sessions import Session
from deepcite.web.source_documents import document_response
from deepcite.web.sources_view import indexed_file

router = APIRouter(include_in_schema=False)


def _opened(kit: PageKit, session: Session, name: str) -> Collection | None:
    """``name`` opened for this caller, or ``None`` when it is not theirs to see."""
    try:
        validate_name(name)
    except DeepciteError:
        return None
    if not readable(kit.history, kit.caller(session), name):
        return None
    try:
        opened = Collection.named(name, settings=kit.state.settings)
    except DeepciteError:
        return None
    return None if opened.search_only else opened


def _key(opened: Collection, doc_id: int) -> str | None:
    """The stored path of document ``doc_id``; ``None`` when there is none."""
    try:
        stored = opened.index.documents()
    except (DeepciteError, OSError):
        return None
    return next((key for key, doc in stored.items() if doc.id == doc_id), None)


def servable_file(kit: PageKit, name: str, key: str) -> Path | None:
    """The indexed file ``key`` when it may be downloaded: still the file that was
    indexed, inside ``name``'s upload folder or a folder root; else ``None``."""
    path = indexed_file(key)
    if path is None:
        return None
    folders = [upload_folder(kit.state.settings, name),
               *(Path(root).expanduser() for root in kit.state.folder_roots)]
    for folder in folders:
        with contextlib.suppress(OSError, RuntimeError):
            if path.is_relative_to(folder.resolve(strict=True)):
                return path
    return None


def _missing(kit: PageKit, request: Request, session: Session, name: str) -> HTMLResponse:
    return kit.not_found(request, session, f"No such document in collection {name}"
                         if _opened(kit, session, name) is not None
                         else unknown_collection_message(name))


@router.get("/collections/{name}/documents/{doc_id}", response_class=HTMLResponse)
def document(kit: Kit, request: Request, name: str, doc_id: int) -> Response:
    session = kit.session_for(request)
    opened = _opened(kit, session, name)
    key = None if opened is None else _key(opened, doc_id)
    text: DocumentText | None = None
    if opened is not None and key is not None:
        try:
            text = opened.document_text(key)
        except DeepciteError as exc:
            return kit.not_found(request, session, error_line(exc))
    if opened is None or key is None or text is None:
        return _missing(kit, request, session, name)
    removable = refusal(kit, name, session) is None and opened.index.writable
    return kit.render(request, session, "collection_document.html", title=text.title,
                      collection=name, document=text, doc_id=doc_id,
                      file=Path(key).name,
                      downloadable=servable_file(kit, name, key) is not None,
                      removable=removable, url=document_url(name, doc_id))


@router.get("/collections/{name}/documents/{doc_id}/file")
def document_file(kit: Kit, request: Request, name: str, doc_id: int) -> Response:
    session = kit.session_for(request)
    opened = _opened(kit, session, name)
    key = None if opened is None else _key(opened, doc_id)
    path = None if key is None else servable_file(kit, name, key)
    if path is None:
        return kit.not_found(request, session, "No such document file on this server")
    return document_response(path)


@router.post("/collections/{name}/documents/{doc_id}/delete")
async def delete_document(kit: Kit, request: Request, name: str, doc_id: int) -> Response:
    _, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(remove_document, kit, request, session, name,
                                          doc_id)


def remove_document(kit: PageKit, request: Request, session: Session, name: str,
                    doc_id: int) -> Response:
    """Take document ``doc_id`` out of ``name`` (and its uploaded file, if it was one)."""
    opened = _opened(kit, session, name)
    if opened is None:
        return kit.not_found(request, session, unknown_collection_message(name))
    refused = refusal(kit, name, session)
    if refused is not None:
        return collection_error(kit, request, session, *refused)
    key = _key(opened, doc_id)
    if key is None:
        return _missing(kit, request, session, name)
    uploaded = indexed_file(key)
    try:
        opened.remove_document(key)
    except DeepciteError as exc:
        return collection_error(kit, request, session, 409, error_line(exc))
    if uploaded is not None:
        with contextlib.suppress(OSError, RuntimeError):
            if uploaded.is_relative_to(upload_folder(kit.state.settings, name)
                                       .resolve(strict=True)):
                uploaded.unlink()
    return RedirectResponse(f"/collections/{quote_path(name)}?removed="
                            f"{quote(Path(key).name, safe='')}", status_code=303)
