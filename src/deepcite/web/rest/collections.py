"""``/api/v1/collections``: list, inspect, index and delete document collections.

Included by :func:`deepcite.web.rest.api_router` under its caller dependency, so the
access rules are every other API route's. A collection the caller may not search
(:meth:`~deepcite.store.HistoryStore.readable_collections`) is left out of the list
and answered 404 as a missing one; only its owner or an admin may delete it. One made
here is its maker's (:func:`~deepcite.web.collection_jobs.claim_collection`). With
accounts only admins may index a server folder
(:func:`~deepcite.web.collection_jobs.may_index_folders`): anyone else gets 403
before the folder is even looked at, so the answer says nothing about the server's
folders. Anyone may upload files instead (``POST /collections/{name}/files``), through
the collections page's own code path (:mod:`deepcite.web.collection_uploads`).
"""

from __future__ import annotations

import logging
import threading
from functools import partial
from pathlib import Path
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from deepcite.collections import Collection
from deepcite.collections.collection import list_collections, validate_name
from deepcite.errors import DeepciteError
from deepcite.runs.caller import Caller
from deepcite.runs.checks import reserved_collection, unknown_collection_message
from deepcite.web.collection_jobs import (
    FOLDERS_ARE_FOR_ADMINS,
    claim_collection,
    collection_exists,
    folder_problem,
    inside_roots,
    may_index_folders,
    readable,
)
from deepcite.web.collection_uploads import keep_uploads, uploaded_files
from deepcite.web.contracts import WebState
from deepcite.web.rest.common import ApiError, AskedBy, State, history_store
from deepcite.web.upload_form import UploadRefused, read_upload_form

logger = logging.getLogger(__name__)


class NewCollection(BaseModel):
    """``POST /collections``: index ``folder`` (under a folder root) as ``name``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    folder: str = Field(min_length=1, max_length=4096)


#: ``POST /collections/{name}/files``'s body, for the OpenAPI document (the route reads
#: it itself, with the caps kept as it streams).
_FILES_BODY: dict[str, Any] = {
    "required": True,
    "content": {"multipart/form-data": {"schema": {
        "type": "object", "required": ["files"],
        "properties": {"files": {"type": "array",
                                 "items": {"type": "string", "format": "binary"}}}}}}}


router = APIRouter()


@router.get("/collections", tags=["collections"])
def collections(state: State, caller: AskedBy) -> list[dict[str, Any]]:
    infos = list_collections(state.settings)
    shown = history_store(state).readable_collections(caller.access,
                                                      [i.name for i in infos])
    return [{"name": info.name, "documents": info.documents, "chunks": info.chunks,
             "size_bytes": info.size_bytes, "read_only": info.read_only,
             "updated": info.updated.isoformat() if info.updated else None}
            for info in infos if info.name in shown]


@router.get("/collections/{name}", tags=["collections"])
def collection(state: State, name: str, caller: AskedBy) -> dict[str, Any]:
    return _collection_detail(state, name, caller)


@router.delete("/collections/{name}", tags=["collections"])
def delete_collection(state: State, name: str, caller: AskedBy) -> dict[str, Any]:
    from deepcite.web.collection_jobs import delete_collection as delete

    validate_name(name)
    if not history_store(state).may_change_collection(caller.access, name):
        raise _unknown(name)
    reserved = reserved_collection(name)
    if reserved is not None:
        raise ApiError(409, "reserved_name", str(reserved))
    try:
        warning = delete(name, state.settings, history_store(state), caller.name)
    except DeepciteError as exc:
        raise ApiError(404, "unknown_collection", str(exc).splitlines()[0]) from None
    return {"name": name, "deleted": True, "warning": warning}


@router.post("/collections", status_code=202, tags=["collections"])
def add_collection(state: State, body: NewCollection, caller: AskedBy) -> dict[str, str]:
    if not may_index_folders(caller):
        raise ApiError(403, "admins_only", FOLDERS_ARE_FOR_ADMINS)
    validate_name(body.name)
    reserved = reserved_collection(body.name)
    if reserved is not None:
        raise ApiError(409, "reserved_name", str(reserved))
    folder = _allowed_folder(state, body.folder)
    taken = claim_collection(body.name, state.settings, history_store(state), caller)
    if taken is not None:
        raise ApiError(409, "name_taken", taken)
    threading.Thread(target=_index, args=(state, body.name, folder),
                     name=f"deepcite-index-{body.name}", daemon=True).start()
    return {"name": body.name, "status": "indexing"}


@router.post("/collections/{name}/files", status_code=202, tags=["collections"],
             openapi_extra={"requestBody": _FILES_BODY})


async def upload_files(state: State, name: str, request: Request,
                       caller: AskedBy) -> dict[str, str]:
    """Upload files (multipart, ``files`` parts) into collection ``name``: a new
    name is made the caller's, an existing one must be theirs to change (or the
    caller an admin); indexing runs in the background, as after the page's upload."""
    store = history_store(state)
    # before a byte of the body is read: another's collection the caller may not
    # search is answered as missing, as by every other route here
    await anyio.to_thread.run_sync(_visible_or_new, state, name, caller)
    try:
        form = await read_upload_form(request)
    except UploadRefused as refused:  # nothing changed; the rest of the body is unread
        raise ApiError(refused.status, refused.code, refused.message) from None
    try:
        await anyio.to_thread.run_sync(partial(
            keep_uploads, name, uploaded_files(form), settings=state.settings,
            store=store, jobs=state.jobs, caller=caller))
    except UploadRefused as refused:
        problems = f": {'; '.join(refused.problems)}" if refused.problems else ""
        raise ApiError(refused.status, refused.code, refused.message + problems) from None
    finally:
        await form.close()
    return {"name": name, "status": "indexing"}


def _visible_or_new(state: WebState, name: str, caller: Caller) -> None:
    """Refuse an upload to ``name`` before its body is read: 400 for a bad name, 404
    for a collection the caller may not search (as missing). One they may search but
    not change is refused later, as taken (409), by the claim itself."""
    try:
        validate_name(name)
    except DeepciteError as exc:
        raise ApiError(400, "bad_name", str(exc).splitlines()[0]) from None
    store = history_store(state)
    if collection_exists(name, state.settings, store) and not readable(store, caller, name):
        raise _unknown(name)


def _allowed_folder(state: WebState, folder: str) -> Path:
    """``folder`` resolved (absolute, or relative to a folder root), if it lies inside
    a folder root - the pages' rule (:func:`~deepcite.web.collection_jobs.inside_roots`);
    else a 403 (a 400 when it is a path inside a root that is not a folder)."""
    path = inside_roots(folder, state.folder_roots)
    if path is not None:
        return path
    given = Path(folder).expanduser()
    inside = [Path(root).expanduser().resolve() for root in state.folder_roots
              if (Path(root) / given if not given.is_absolute() else given).resolve()
              .is_relative_to(Path(root).expanduser().resolve())]
    if inside:
        raise ApiError(400, "not_a_folder", f"{folder} is not a folder on the server")
    raise ApiError(403, "folder_not_allowed", folder_problem(state.folder_roots))


def _unknown(name: str) -> ApiError:
    """The 404 of a collection that is missing or not the caller's to see."""
    return ApiError(404, "unknown_collection", unknown_collection_message(name))


def _collection_detail(state: WebState, name: str, caller: Caller) -> dict[str, Any]:
    """``GET /collections/{name}``: counts, documents and the web indexing as last
    recorded (its folder, state, summary and failed documents); with accounts, who it
    is shared with, for its owner and admins."""
    validate_name(name)
    store = history_store(state)
    if not readable(store, caller, name):
        raise _unknown(name)
    try:
        opened = Collection.named(name, settings=state.settings)
        info = opened.info()
        documents = [] if opened.search_only else sorted(
            opened.index.documents().values(), key=lambda d: d.path)
    except DeepciteError as exc:
        raise ApiError(404, "unknown_collection", str(exc).splitlines()[0]) from None
    entries = [e for e in store.collections() if e.name == name]
    kept = entries[0].settings.get("web") if entries else None
    live = state.jobs.get(name, store)
    if live is not None and live.state == "indexing":
        # begun by this process: its thread records it in the registry only once it
        # runs, so until then the registry still holds the previous indexing's end
        kept = live.stored()
    sharing = None
    if caller.user is not None and store.may_change_collection(caller.access, name):
        sharing = store.collection_sharing(name).model_dump(
            include={"owner", "everyone", "users", "public"})
    return {"name": info.name, "backend": info.backend, "documents": info.documents,
            "sharing": sharing, "chunks": info.chunks, "size_bytes": info.size_bytes,
            "read_only": info.read_only,
            "updated": info.updated.isoformat() if info.updated else None,
            "indexing": kept if isinstance(kept, dict) else None,
            "files": [{"path": d.path, "chunks": d.chunks, "size": d.size}
                      for d in documents]}


def _index(state: WebState, name: str, folder: Path) -> None:
    """Index ``folder`` into collection ``name`` (a background thread: indexing a
    folder takes minutes, longer than a request should)."""
    try:
        report = Collection.create(name, settings=state.settings).add(
            folder, refuse_hard_links=True)  # a server folder: see collections.files
    except DeepciteError as exc:
        logger.warning("indexing %s into collection %s failed: %s", folder, name, exc)
    except Exception:  # a crash here must be visible, not a silently dead thread
        logger.exception("indexing %s into collection %s crashed", folder, name)
    else:
        logger.info("collection %s: %s", name, report.summary())
