"""Materials from files: a document on disk, or a JSON list of materials.

A file becomes one material through the collections loaders (PDF, DOCX, EPUB, HTML,
Markdown, text ...): its pages are joined with blank lines and each page's place in
the joined text is kept (:class:`~deepcite.materials.PageSpan`), so a passage cited
from page 7 of a PDF says page 7. The url is the file's absolute path - a name for
citations, not something that is read again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from deepcite.errors import MaterialError
from deepcite.materials.limits import MAX_TOTAL_CHARS
from deepcite.materials.model import PageSpan, UserMaterial, validation_message
from deepcite.security.terminal import one_line

PAGE_SEPARATOR = "\n\n"
#: Largest materials JSON file read: room for the content limit written as \\u escapes.
MAX_JSON_BYTES = 8 * MAX_TOTAL_CHARS


def _json_kind(value: object) -> str:
    kinds = {bool: "a boolean", int: "a number", float: "a number", str: "a string",
             list: "a list", dict: "an object", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


def material_from_file(path: str | Path, *, material_id: str | None = None,
                       max_chars: int = MAX_TOTAL_CHARS) -> UserMaterial:
    """The material of the document at ``path``; :class:`MaterialError` when it cannot be
    read, holds no text, or more than ``max_chars`` characters (the message names the
    file).

    ``max_chars`` defaults to what a whole request may hold; a caller reading several
    files passes what is left, so the request is refused at the file that passes the
    limit instead of after every file has been parsed and kept in memory.
    """
    # The loaders pull in the PDF and HTML libraries; import them only when a file is read.
    from pydantic import ValidationError

    from deepcite.collections.documents import LoadError
    from deepcite.collections.loaders import load_document

    file = Path(path).expanduser().resolve()
    try:
        document = load_document(file)
    except LoadError as exc:
        raise MaterialError(f"Material file {one_line(str(file))}: {exc.reason}") from None
    size = sum(len(page.text) for page in document.pages)
    if size > max_chars:
        # Checked before the pages are joined: no second copy of a huge text is made.
        raise MaterialError(
            f"Material file {one_line(str(file))}: too large ({size:,} characters of text, "
            f"more than the {max_chars:,} the materials may still hold) - pass a shorter "
            "excerpt or fewer files"
        )
    parts: list[str] = []
    spans: list[PageSpan] = []
    offset = 0
    for page in document.pages:
        if parts:
            offset += len(PAGE_SEPARATOR)
        if page.page is not None:
            spans.append(PageSpan(page=page.page, start=offset, end=offset + len(page.text)))
        parts.append(page.text)
        offset += len(page.text)
    content = PAGE_SEPARATOR.join(parts)
    if not content.strip():
        raise MaterialError(
            f"Material file {one_line(str(file))}: no text could be extracted "
            "(a scanned document needs OCR first)"
        )
    try:
        return UserMaterial(
            url=str(file), content=content, material_id=material_id,
            title=document.title or None, pages=spans,
        )
    except ValidationError as exc:
        raise MaterialError(
            f"Material file {one_line(str(file))}: {validation_message(exc)}"
        ) from None


def materials_from_json(path: str | Path) -> list[dict[str, Any]]:
    """The material objects in the JSON file at ``path`` (a list of objects).

    Only the shape is checked here; :func:`~deepcite.materials.normalize_materials`
    validates the fields. Bad JSON, a file that is not a list, or an item that is not
    an object is a one-line :class:`MaterialError`.
    """
    file = Path(path).expanduser()
    name = one_line(str(file))
    try:
        if file.stat().st_size > MAX_JSON_BYTES:
            raise MaterialError(f"Materials file {name}: larger than {MAX_JSON_BYTES:,} bytes")
        text = file.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise MaterialError(f"Materials file {name}: cannot read it ({exc.strerror or exc})"
                            ) from None
    except UnicodeDecodeError:
        raise MaterialError(f"Materials file {name}: not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MaterialError(
            f"Materials file {name}: not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg})"
        ) from None
    if not isinstance(data, list):
        raise MaterialError(
            f"Materials file {name}: must hold a JSON list of materials, not "
            f"{_json_kind(data)}"
        )
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise MaterialError(
                f"Materials file {name}: item {index + 1} must be an object with url and "
                f"content, not {_json_kind(item)}"
            )
    return data
