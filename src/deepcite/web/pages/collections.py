"""The collections: listing, creating one from uploaded files or a server folder inside
the folder roots, its documents and search, re-indexing and deleting (confirmed).

Every route checks who is asking (:meth:`PageKit.session_for`, or :meth:`PageKit.posted`
with its CSRF check for a post). Uploads are streamed to disk with the research form's
caps (:func:`deepcite.web.page_forms.save_upload`) into a staging folder, and kept
under ``<data_dir>/uploads/<name>`` only when every file passed; indexing then runs in
the background (:class:`deepcite.web.collection_jobs.IndexJobs`), its page reloading
itself (no script) until it is done - all in :func:`deepcite.web.collection_uploads.
keep_uploads`, which the API's upload route runs too.

With accounts a collection is its maker's (:func:`~deepcite.web.collection_jobs.
claim_collection`): one the caller may not search is left out of the list and answered
as missing; only its owner or an admin may re-index or delete it, and only an admin
shares it (``POST /collections/{name}/share``, audited as ``collection.share``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.datastructures import FormData

from deepcite.errors import DeepciteError, error_line
from deepcite.runs.checks import unknown_collection_message
from deepcite.store import CollectionSharing
from deepcite.web.collection_jobs import (
    FOLDERS_ARE_FOR_ADMINS,
    claim_collection,
    delete_collection,
    folder_problem,
    from_uploads,
    inside_roots,
    may_index_folders,
    readable,
    upload_folder,
)
from deepcite.web.collection_uploads import keep_uploads, uploaded_files
from deepcite.web.page_forms import (
    COLLECTION_UPLOAD_SUFFIXES,
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_FILES,
    MAX_UPLOAD_TOTAL_BYTES,
)
from deepcite.web.pages.kit import Kit, PageKit, quote_path
from deepcite.web.sessions import Session
from deepcite.web.upload_form import UploadRefused, read_upload_form
from deepcite.web.who_is_asking import client_address

#: Documents listed on a collection's page; the count says how many more there are.
MAX_DOCUMENTS_SHOWN = 1000
#: Passages a search shows, and the longest query taken.
SEARCH_RESULTS = 10
MAX_QUERY_CHARS = 500
MAX_SNIPPET_CHARS = 600
MB = 1024 * 1024


@dataclass(frozen=True)
class DocumentRow:
    """One indexed document as its collection's page shows it (``url``: its page)."""

    path: str
    chunks: int
    size: int
    modified: datetime | None
    url: str = ""


@dataclass(frozen=True)
class Passage:
    """One search result: where it is and how well it matched."""

    title: str
    file: str
    page: int | None
    heading: str
    score: float
    text: str
    url: str = ""


def _relative(path: str, folder: str) -> str:
    if folder:
        try:
            return str(Path(path).relative_to(folder))
        except ValueError:
            pass
    return path


router = APIRouter(include_in_schema=False)


def collections_page(kit: PageKit, request: Request, session: Session, status: int = 200,
                     problem: str | None = None, message: str | None = None,
                     problems_of_form: list[str] | None = None,
                     fields: dict[str, str] | None = None) -> HTMLResponse:
    from deepcite.collections.collection import scan_collections
    from deepcite.runs.checks import reserved_collection

    try:
        listing = scan_collections(kit.state.settings)
        infos, problems = listing.infos, [f"{p}: {why}" for p, why in listing.problems]
    except (DeepciteError, OSError) as exc:
        infos, problems = [], [str(exc)]
    store, caller = kit.history, kit.caller(session)
    states = kit.jobs.snapshot(store)
    shown = store.readable_collections(caller.access,
                                       [info.name for info in infos] + list(states))
    if caller.user is not None and not caller.admin:
        problems = []  # the files of others' collections are not theirs to hear of
    infos = [info for info in infos if info.name in shown]
    states = {name: state for name, state in states.items() if name in shown}
    listed = {info.name for info in infos}
    pending = sorted(name for name, state in states.items()
                     if name not in listed and state.state == "indexing")
    owners = ({name: store.collection_sharing(name).owner for name in listed}
              if caller.admin else {})
    folders = may_index_folders(caller)
    changeable = {name for name in listed
                  if store.may_change_collection(caller.access, name)}
    return kit.render(request, session, "collections.html", status, title="Collections",
                      accept=",".join(COLLECTION_UPLOAD_SUFFIXES), infos=infos,
                      problems=problems, problem=problem, message=message,
                      form_problems=problems_of_form or [], fields=fields or {},
                      states=states, pending=pending, roots=kit.state.folder_roots,
                      reserved={info.name for info in infos
                                if reserved_collection(info.name) is not None},
                      changeable=changeable, owners=owners, folders_allowed=folders,
                      reindexable={name for name in changeable if name in states and (
                          folders or from_uploads(kit.state.settings, name,
                                                  states[name].folder))},
                      max_file_mb=MAX_UPLOAD_BYTES // MB,
                      max_request_mb=MAX_UPLOAD_TOTAL_BYTES // MB,
                      max_files=MAX_UPLOAD_FILES)


@router.get("/collections", response_class=HTMLResponse)
def collections(kit: Kit, request: Request, deleted: str | None = None) -> Response:
    session = kit.session_for(request)
    from deepcite.collections.collection import NAME_PATTERN

    message = None
    if deleted and NAME_PATTERN.fullmatch(deleted):
        message = f"Collection {deleted} was deleted"
    return collections_page(kit, request, session, message=message)


@router.post("/collections")
async def add_collection(kit: Kit, request: Request) -> Response:
    form, session = await kit.posted(request)
    name, folder = _field(form, "name"), _field(form, "folder")
    return await anyio.to_thread.run_sync(add_folder, kit, request, session, name, folder)


@router.post("/collections/upload")
async def upload_collection(kit: Kit, request: Request) -> Response:
    try:
        form = await read_upload_form(request)
    except UploadRefused as refused:  # nothing changed; the rest of the body is unread
        session = await anyio.to_thread.run_sync(kit.session_for, request)
        return await anyio.to_thread.run_sync(partial(
            collections_page, kit, request, session, refused.status, problem=refused.message))
    try:
        form, session = await kit.posted(request, form)
        return await anyio.to_thread.run_sync(add_uploads, kit, request, session, form)
    finally:
        await form.close()


@router.get("/collections/{name}", response_class=HTMLResponse)
def collection(kit: Kit, request: Request, name: str, q: str | None = None,
               removed: str | None = None) -> Response:
    session = kit.session_for(request)
    return collection_page(kit, request, session, name, (q or "").strip()[:MAX_QUERY_CHARS],
                           removed=removed)


@router.post("/collections/{name}/reindex")
async def reindex(kit: Kit, request: Request, name: str) -> Response:
    _, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(reindex_collection, kit, request, session, name)


@router.post("/collections/{name}/share")
async def share(kit: Kit, request: Request, name: str) -> Response:
    form, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(share_collection, kit, request, session, name,
                                          _field(form, "change"), _field(form, "user"))


@router.get("/collections/{name}/delete", response_class=HTMLResponse)
def confirm_delete(kit: Kit, request: Request, name: str) -> Response:
    session = kit.session_for(request)
    refused = refusal(kit, name, session)
    if refused is not None:
        return collection_error(kit, request, session, *refused)
    return kit.render(request, session, "collection_delete.html", title=f"Delete {name}",
                      collection=name, problem=None)


@router.post("/collections/{name}/delete")
async def delete(kit: Kit, request: Request, name: str) -> Response:
    form, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(delete_confirmed, kit, request, session, name,
                                          _field(form, "confirm"))


# ------------------------------------------------------------------ helpers
def refusal(kit: PageKit, name: str, session: Session | None = None, *,
            changing: bool = True) -> tuple[int, str] | None:
    """Why ``name`` may not be changed (status, message), or ``None``. With
    ``session``, a collection its user may not change is answered as missing."""
    from deepcite.collections.collection import validate_name
    from deepcite.runs.checks import reserved_collection

    try:
        validate_name(name)
    except DeepciteError as exc:
        return 404 if changing else 400, str(exc)
    if session is not None and not kit.history.may_change_collection(
            kit.access(session), name):
        return 404, unknown_collection_message(name)
    reserved = reserved_collection(name)  # the bundled demo is rebuilt, never replaced
    if reserved is not None:
        return 409, str(reserved)
    if kit.jobs.running(name):
        return 409, f"{name} is being indexed now - wait until it is done"
    return None


def collection_error(kit: PageKit, request: Request, session: Session, status: int,
                     problem: str) -> HTMLResponse:
    if status == 404:
        return kit.not_found(request, session, problem)
    return collections_page(kit, request, session, status, problem=problem)


def started(kit: PageKit, name: str) -> Response:
    return RedirectResponse(f"/collections/{quote_path(name)}", status_code=303)


def add_folder(kit: PageKit, request: Request, session: Session, name: str,
               folder: str) -> Response:
    fields = {"name": name, "folder": folder}
    if not may_index_folders(kit.caller(session)):
        return collections_page(kit, request, session, 403, problem=FOLDERS_ARE_FOR_ADMINS,
                                fields=fields)
    refused = refusal(kit, name, changing=False)
    if refused is not None:
        return collections_page(kit, request, session, refused[0], problem=refused[1],
                                fields=fields)
    path = inside_roots(folder, kit.state.folder_roots)
    if path is None:
        return collections_page(kit, request, session, 400,
                                problem=folder_problem(kit.state.folder_roots),
                                fields=fields)
    taken = claim_collection(name, kit.state.settings, kit.history, kit.caller(session))
    if taken is not None:
        return collections_page(kit, request, session, 409, problem=taken, fields=fields)
    if not kit.jobs.start(name, path, kit.state.settings, kit.state.executor.store):
        return collections_page(kit, request, session, 409, fields=fields,
                                problem=f"{name} is being indexed already")
    return started(kit, name)


def add_uploads(kit: PageKit, request: Request, session: Session, form: FormData) -> Response:
    name = _field(form, "name")
    try:
        keep_uploads(name, uploaded_files(form), settings=kit.state.settings,
                     store=kit.state.executor.store, jobs=kit.jobs,
                     caller=kit.caller(session))
    except UploadRefused as refused:
        return collections_page(kit, request, session, refused.status, problem=refused.message,
                                problems_of_form=list(refused.problems),
                                fields={"upload_name": name})
    return started(kit, name)


def reindex_collection(kit: PageKit, request: Request, session: Session, name: str) -> Response:
    refused = refusal(kit, name, session)
    if refused is not None:
        return collection_error(kit, request, session, *refused)
    settings, store = kit.state.settings, kit.state.executor.store
    known = kit.jobs.get(name, store)
    if known is None:
        return collections_page(kit, request, session, 409, problem=(
            f"No folder is recorded for {name} - add its folder or files again"))
    uploads = upload_folder(settings, name).resolve()
    if not from_uploads(settings, name, known.folder) \
            and not may_index_folders(kit.caller(session)):
        return collections_page(kit, request, session, 403, problem=FOLDERS_ARE_FOR_ADMINS)
    path: Path | None = uploads if Path(known.folder) == uploads else inside_roots(
        known.folder, kit.state.folder_roots)
    if path is None or not path.is_dir():
        return collections_page(kit, request, session, 400, problem=(
            f"{name} was indexed from {known.folder}, which is no longer allowed or "
            f"there. {folder_problem(kit.state.folder_roots)}"))
    if not kit.jobs.start(name, path, settings, store):
        return collections_page(kit, request, session, 409,
                                problem=f"{name} is being indexed already")
    return started(kit, name)


def sharing_of(kit: PageKit, session: Session, name: str) -> CollectionSharing | None:
    """Who may search ``name``, shown to its owner and admins (with accounts)."""
    if session.user is None or not kit.history.may_change_collection(
            kit.access(session), name):
        return None
    return kit.history.collection_sharing(name)


def collection_page(kit: PageKit, request: Request, session: Session, name: str,
                    query: str, status: int = 200, problem: str | None = None,
                    removed: str | None = None) -> HTMLResponse:
    """``removed``: the file name a document removal redirected with; said only when
    no document of that name is listed (a link cannot make the page claim otherwise)."""
    from deepcite.collections.collection import Collection, validate_name
    from deepcite.runs.checks import reserved_collection

    try:
        validate_name(name)
    except DeepciteError as exc:
        return kit.not_found(request, session, error_line(exc))
    if not readable(kit.history, kit.caller(session), name):
        return kit.not_found(request, session, unknown_collection_message(name))
    sharing = sharing_of(kit, session, name)
    admin = kit.caller(session).admin
    changeable = kit.history.may_change_collection(kit.access(session), name)
    state = kit.jobs.get(name, kit.state.executor.store)
    reindexable = changeable and state is not None and (
        may_index_folders(kit.caller(session))
        or from_uploads(kit.state.settings, name, state.folder))
    indexing = state is not None and state.state == "indexing"
    try:
        opened = Collection.named(name, settings=kit.state.settings)
        info = opened.info()
    except DeepciteError as exc:
        if not indexing:
            return kit.not_found(request, session, error_line(exc))
        # being created right now: the page waits for it, reloading itself
        return kit.render(request, session, "collection.html", status, title=name,
                          collection=name, info=None, state=state, documents=[],
                          more=0, query="", passages=[], problem=problem,
                          reserved=False, refresh=True, sharing=sharing, admin=admin,
                          changeable=changeable, reindexable=reindexable)
    folder = state.folder if state else ""
    documents: list[DocumentRow] = []
    ids: dict[str, int] = {}
    if not opened.search_only:
        try:
            stored = sorted(opened.index.documents().values(), key=lambda d: d.path)
        except Exception as exc:  # noqa: BLE001 - a damaged file: say so, keep the page
            stored, problem = [], f"The documents cannot be listed: {error_line(exc)}"
        ids = {d.path: d.id for d in stored}
        # ``mtime``, not ``mtime_ns``: the latter is 0 ("hash it next time") for a file
        # changed just before indexing, as every freshly uploaded one is.
        documents = [DocumentRow(_relative(d.path, folder), d.chunks, d.size,
                                 datetime.fromtimestamp(d.mtime, tz=UTC)
                                 if d.mtime > 0 else None, document_url(name, d.id))
                     for d in stored[:MAX_DOCUMENTS_SHOWN]]
    names = {Path(row.path).name for row in documents}
    message = (f"{removed} was removed from {name}" if removed and len(removed) <= 255
               and removed.isprintable() and "/" not in removed and removed not in names
               else None)
    passages: list[Passage] = []
    if query:
        try:
            passages = [_passage(hit.title, hit.snippet, hit.metadata, folder, name, ids)
                        for hit in opened.search(query, SEARCH_RESULTS)]
        except DeepciteError as exc:
            problem = f"The search failed: {error_line(exc)}"
    return kit.render(request, session, "collection.html", status, title=name,
                      collection=name, info=info, state=state, documents=documents,
                      more=max(info.documents - len(documents), 0), query=query,
                      passages=passages, problem=problem,
                      reserved=reserved_collection(name) is not None,
                      refresh=indexing, sharing=sharing, admin=admin,
                      changeable=changeable, reindexable=reindexable, message=message)


def share_collection(kit: PageKit, request: Request, session: Session, name: str, change: str,
                     user: str) -> Response:
    """An admin's change of who may search ``name`` (anyone else: not found)."""
    from deepcite.collections.collection import validate_name

    caller = kit.caller(session)
    try:
        validate_name(name)
    except DeepciteError as exc:
        return kit.not_found(request, session, error_line(exc))
    if caller.user is None or not caller.admin:
        return kit.not_found(request, session, unknown_collection_message(name))
    choices: dict[str, dict[str, Any]] = {
        "everyone-on": {"everyone": True}, "everyone-off": {"everyone": False},
        "private": {"private": True}, "add": {"add_users": [user]},
        "remove": {"remove_users": [user]}}
    changes = choices.get(change, {})
    if not changes or (change in ("add", "remove") and not user):
        return collection_page(kit, request, session, name, "", 400, problem=(
            "Choose what to change: everyone on or off, a user's name to add or "
            "remove, or private"))
    try:
        shared = kit.history.share_collection(name, **changes)
    except DeepciteError as exc:
        return collection_page(kit, request, session, name, "", 400, problem=error_line(exc))
    kit.history.audit("collection.share", actor=caller.name, target=name,
                      detail={"change": change, "user": user or None,
                              "everyone": shared.everyone, "users": shared.users},
                      address=client_address(request))
    return RedirectResponse(f"/collections/{quote_path(name)}", status_code=303)


def delete_confirmed(kit: PageKit, request: Request, session: Session, name: str,
                     confirm: str) -> Response:
    refused = refusal(kit, name, session)
    if refused is not None:
        return collection_error(kit, request, session, *refused)
    if confirm != name:
        return kit.render(request, session, "collection_delete.html", 400,
                          title=f"Delete {name}", collection=name,
                          problem=f"Tick \u201cyes, delete {name}\u201d to delete it")
    try:
        warning = delete_collection(name, kit.state.settings, kit.state.executor.store,
                                    kit.caller(session).name)
    except DeepciteError as exc:
        return collections_page(kit, request, session, 409, problem=error_line(exc))
    kit.jobs.forget(name)
    if warning:
        return collections_page(kit, request, session, 200,
                                message=f"Collection {name} was deleted; {warning}")
    return RedirectResponse(f"/collections?deleted={quote_path(name)}", status_code=303)


def _field(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip()[:4096] if isinstance(value, str) else ""


def document_url(name: str, doc_id: int) -> str:
    """A document's page (:mod:`deepcite.web.pages.collection_documents`)."""
    return f"/collections/{quote_path(name)}/documents/{doc_id}"


def _passage(title: str, text: str, metadata: dict[str, Any], folder: str, name: str,
             ids: dict[str, int]) -> Passage:
    page = metadata.get("page")
    score = metadata.get("score")
    path = str(metadata.get("path") or "")
    snippet = text if len(text) <= MAX_SNIPPET_CHARS else text[:MAX_SNIPPET_CHARS] + "..."
    return Passage(title=title, file=_relative(path, folder),
                   page=page if isinstance(page, int) else None,
                   heading=str(metadata.get("heading") or ""),
                   score=float(score) if isinstance(score, int | float) else 0.0,
                   text=snippet,
                   url=document_url(name, ids[path]) if path in ids else "")
