"""The REST routes of document checks (``/api/v1/checks``): submit a document, read its
verdicts.

A check is a run (``mode="check"``): ``POST /checks`` builds its
:class:`~deepcite.runs.RunRequest` and submits it to the executor like
``POST /research`` does - admitted the same way (422 naming the field), owned by the
caller, cancelled with ``POST /research/{id}/cancel``, followed with
``GET /research/{id}/events`` (one ``section_started`` per claim). ``GET /checks/{id}``
answers the verdicts as ``deepcite check --json`` prints them, with the run's state;
another user's check is as missing as one that does not exist, and a run that is not a
check is not one here either.

The body is JSON (``{"text", "title"?, "collections"?, "engines"?, "previous"?}``) or a
multipart form with the document as its ``file`` part and the same fields (several
``collections``/``engines`` parts).
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import FormData, UploadFile

from deepcite.errors import UnknownRunError
from deepcite.factcheck import check_json
from deepcite.runs import RunRequest
from deepcite.runs.request import MAX_DOCUMENT_CHARS, MAX_DOCUMENT_TITLE_CHARS
from deepcite.store import ENDED
from deepcite.web.check_documents import check_fields, document_of_upload
from deepcite.web.rest.common import (
    ApiError,
    AskedBy,
    State,
    history_store,
    unknown_run,
    visible_run,
)
from deepcite.web.rest.runs import RunAccepted

#: The most characters of a form field that is not the file (title, names, the id).
_FIELD_CHARS = 4096


class CheckBody(BaseModel):
    """``POST /checks``'s JSON body: the document's text and where to check it."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=8 * MAX_DOCUMENT_CHARS)
    title: str | None = Field(default=None, max_length=MAX_DOCUMENT_TITLE_CHARS)
    filename: str | None = Field(default=None, max_length=1024)
    collections: list[str] = Field(default_factory=list, max_length=64)
    engines: list[str] = Field(default_factory=list, max_length=64)
    #: The id of the check of this document's earlier version.
    previous: str | None = Field(default=None, max_length=64)


_CHECK_BODY: dict[str, Any] = {
    "required": True,
    "content": {
        "application/json": {"schema": CheckBody.model_json_schema()},
        "multipart/form-data": {"schema": {
            "type": "object", "required": ["file"],
            "properties": {
                "file": {"type": "string", "format": "binary"},
                "title": {"type": "string"},
                "collections": {"type": "array", "items": {"type": "string"}},
                "engines": {"type": "array", "items": {"type": "string"}},
                "previous": {"type": "string"}}}}}}

router = APIRouter()


@router.post("/checks", status_code=202, response_model=RunAccepted, tags=["checks"],
             openapi_extra={"requestBody": _CHECK_BODY})
async def submit_check(state: State, request: Request, caller: AskedBy) -> RunAccepted:
    """Check a document claim by claim (JSON text or an uploaded file); 202 with the
    run's id, 422 naming what cannot be checked."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind == "multipart/form-data":
        fields = await _form_fields(request)
    elif kind in ("application/json", ""):
        try:
            body = CheckBody.model_validate_json(await request.body())
        except ValidationError as exc:
            raise RequestValidationError(exc.errors()) from None
        fields = check_fields({"text": body.text, "title": body.title,
                               "filename": body.filename},
                              collections=body.collections, engines=body.engines,
                              previous=body.previous, origin="api")
    else:
        raise ApiError(415, "unsupported_media_type",
                       "Send the document as JSON ({\"text\": ...}) or as the file part of "
                       "a multipart/form-data form")
    try:
        run = RunRequest.model_validate(fields)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None
    # the server says who asked, whatever the client sent
    run = run.asked_by("api", caller.owner)
    return RunAccepted(id=await anyio.to_thread.run_sync(state.executor.submit, run))


async def _form_fields(request: Request) -> dict[str, Any]:
    """The check a multipart form describes: its ``file`` read as the document."""
    form = await request.form(max_files=1, max_part_size=_FIELD_CHARS * 4)
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile) or not upload.filename:
            raise ApiError(422, "invalid_request",
                           "Invalid request: file: send the document as the form's file part")
        try:
            document = await anyio.to_thread.run_sync(document_of_upload, upload)
        except ValueError as exc:
            raise ApiError(422, "invalid_request", f"Invalid request: file: {exc}") from None
        title = _text(form, "title")
        if title:
            document["title"] = title
        return check_fields(document, collections=_names(form, "collections"),
                            engines=_names(form, "engines"),
                            previous=_text(form, "previous"), origin="api")
    finally:
        await form.close()


def _text(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value.strip() or None if isinstance(value, str) else None


def _names(form: FormData, name: str) -> list[str]:
    return [value.strip() for value in form.getlist(name)
            if isinstance(value, str) and value.strip()]


@router.get("/checks/{run_id}", tags=["checks"])
def check_status(state: State, run_id: str, caller: AskedBy) -> dict[str, Any]:
    """A check's state and, once it has ended, its verdicts: ``claims`` (each with its
    offsets in the document, verdict, citations, evidence and note), ``sources``,
    ``counts``, ``metrics`` and ``warnings`` (``docs/check.md``)."""
    asked = run_id
    run_id = visible_run(state, caller, run_id)
    try:
        info = state.executor.status(run_id)
    except UnknownRunError:
        raise unknown_run(asked) from None
    if info.mode != "check":  # not a check: as missing here as any other id
        raise unknown_run(asked)
    reply: dict[str, Any] = {"claims": []}
    if info.state in ENDED:
        try:
            stored = history_store(state).get(run_id)
        except UnknownRunError:  # deleted since it ended
            raise unknown_run(run_id) from None
        reply = check_json(stored.result, run_id=info.id)
    return {**reply, "id": info.id, "state": info.state, "question": info.question,
            "created_at": info.created_at.isoformat(),
            "finished_at": info.finished_at.isoformat() if info.finished_at else None,
            "events": f"/api/v1/research/{info.id}/events"}
