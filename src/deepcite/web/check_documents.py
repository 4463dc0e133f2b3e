"""The document of a check, as the web front ends receive it: pasted or sent as JSON
text, or uploaded as a file, made into the :class:`~deepcite.runs.RunRequest` of a
check (``mode="check"``).

Shared by the "Check a document" page (:mod:`deepcite.web.pages.checks`) and
``POST /api/v1/checks`` (:mod:`deepcite.web.rest.checks`), so both read an uploaded
file the same way - streamed to a private temporary folder under its safe name, read by
:func:`deepcite.factcheck.read_document`, the folder removed - and refuse the same
things with the same words. The request then goes to the executor like any run, which
admits it (its owner, the collections they may read, the previous check they may see).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from starlette.datastructures import UploadFile

from deepcite.errors import DeepciteError
from deepcite.factcheck import read_document
from deepcite.web.page_forms import UploadBudget, safe_upload_name, save_upload

__all__ = ["CHECK_SUFFIXES", "check_fields", "document_of_upload"]

#: The files a check reads (what :func:`deepcite.factcheck.read_document` knows).
CHECK_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".docx", ".pdf")


def document_of_upload(upload: UploadFile) -> dict[str, str]:
    """The ``{"text", "filename"}`` of an uploaded document; :class:`ValueError` saying
    why not (a type a check cannot read, a file past the upload cap, one whose text
    cannot be read). Blocking (a file copy and parsing): call it from a worker thread."""
    name = safe_upload_name(upload.filename)
    with tempfile.TemporaryDirectory(prefix="deepcite-check-") as folder:
        file = save_upload(upload, Path(folder), UploadBudget(), CHECK_SUFFIXES)
        try:
            text = read_document(file)
        except DeepciteError as exc:
            raise ValueError(str(exc).replace(str(file), name)) from None
    return {"text": text, "filename": name}


def check_fields(document: dict[str, Any], *, collections: list[str], engines: list[str],
                 previous: str | None, origin: str) -> dict[str, Any]:
    """The fields of a check's :class:`~deepcite.runs.RunRequest`: ``document`` is its
    ``{"text", "title"?, "filename"?}``; ``previous`` the run id of the check of its
    earlier version (its ``parent_id``, checked at admission like a follow-up's)."""
    fields: dict[str, Any] = {"mode": "check", "document": document,
                              "collections": collections, "engines": engines,
                              "origin": origin}
    if previous:
        fields["parent_id"] = previous
    return fields
