"""The new-research form: its choices, and turning a submitted form into a RunRequest.

Uploads are untrusted files: each is size-checked while it is read, its type is taken
from an allow-list of suffixes, and it is parsed by the same loaders as ``--material``
files (:func:`deepcite.materials.material_from_file`) from a private temporary folder
that is removed right after. The material's ``url`` then names the upload
(``/uploads/<name>``) instead of the temporary path, which means nothing once deleted.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from pydantic import ValidationError
from starlette.datastructures import FormData, UploadFile

from deepcite.config import Settings
from deepcite.errors import DeepciteError
from deepcite.web.contracts import RunRequest

#: The largest upload accepted, per file.
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
#: File types a material may be uploaded as (lower case, with dot).
UPLOAD_SUFFIXES = (".pdf", ".docx", ".epub", ".html", ".htm", ".md", ".txt")
_CHUNK = 1024 * 1024
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class FormChoices:
    """What the form offers; names only, each list safe to show (autoescaped)."""

    strategies: list[str] = field(default_factory=list)
    engines: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    providers: list[str] = field(default_factory=list)


def form_choices(settings: Settings) -> FormChoices:
    """The strategies, usable engines, collections and providers to choose from.

    A listing that fails (a broken plugin, an unreadable data folder) leaves its list
    empty instead of breaking the form: the defaults still work.
    """
    from deepcite.collections.collection import list_collections
    from deepcite.llm import describe_providers
    from deepcite.research.strategies import strategy_statuses
    from deepcite.search import describe_engines

    choices = FormChoices()
    with contextlib.suppress(DeepciteError):
        choices.strategies = [s.name for s in strategy_statuses() if s.usable]
    with contextlib.suppress(DeepciteError):
        choices.engines = [e.name for e in describe_engines(settings) if e.usable]
    with contextlib.suppress(DeepciteError, OSError):
        choices.collections = [c.name for c in list_collections(settings)]
    if "demo" not in choices.collections:  # bundled: built on first use, so always offered
        choices.collections.insert(0, "demo")
    with contextlib.suppress(DeepciteError):
        choices.providers = [p.name for p in describe_providers(settings)]
    return choices


def _text(form: FormData, name: str) -> str | None:
    value = form.get(name)
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip()


def _names(form: FormData, name: str) -> list[str]:
    return [v.strip() for v in form.getlist(name) if isinstance(v, str) and v.strip()]


def safe_upload_name(name: str | None) -> str:
    """The upload's file name reduced to safe characters (no folders, no dots first)."""
    base = PurePath((name or "").replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).lstrip("._") or "upload"
    return cleaned[-100:]


async def read_upload(upload: UploadFile) -> tuple[str, bytes]:
    """The upload's safe name and bytes; :class:`ValueError` saying why it is refused."""
    name = safe_upload_name(upload.filename)
    suffix = PurePath(name).suffix.lower()
    if suffix not in UPLOAD_SUFFIXES:
        raise ValueError(f"{name}: file type {suffix or '(none)'} is not accepted - upload "
                         "PDF, DOCX, EPUB, HTML, Markdown or text files")
    data = bytearray()
    while chunk := await upload.read(_CHUNK):
        data.extend(chunk)
        if len(data) > MAX_UPLOAD_BYTES:
            raise ValueError(f"{name}: larger than the "
                             f"{MAX_UPLOAD_BYTES // (1024 * 1024)} MB limit per file")
    return name, bytes(data)


def material_of(name: str, data: bytes) -> dict[str, Any]:
    """The material object of an uploaded file, read by the ``--material`` loaders."""
    from deepcite.materials import material_from_file

    with tempfile.TemporaryDirectory(prefix="deepcite-upload-") as folder:
        file = Path(folder) / name
        file.write_bytes(data)
        try:
            material = material_from_file(file)
        except DeepciteError as exc:
            raise ValueError(str(exc).replace(str(file), name)) from None
    update = {"url": f"/uploads/{name}", "title": material.title or name}
    return material.model_copy(update=update).model_dump(mode="json", exclude_none=True)


async def run_request(form: FormData) -> tuple[RunRequest | None, list[str]]:
    """The request the form describes, or ``None`` with the problems to show."""
    problems: list[str] = []
    materials: list[dict[str, Any]] = []
    for upload in form.getlist("files"):
        if not isinstance(upload, UploadFile) or not upload.filename:
            continue
        try:
            name, data = await read_upload(upload)
            materials.append(material_of(name, data))
        except ValueError as exc:
            problems.append(str(exc))
    pasted = _text(form, "pasted")
    if pasted:
        materials.append({"url": f"/pasted/text-{len(materials) + 1}",
                          "title": _text(form, "pasted_title") or "Pasted text",
                          "content": pasted})
    iterations = _text(form, "iterations")
    fields: dict[str, Any] = {
        "question": _text(form, "question") or "",
        "mode": _text(form, "mode") or "quick",
        "strategy": _text(form, "strategy"),
        "engines": _names(form, "engines"),
        "collections": _names(form, "collections"),
        "provider": _text(form, "provider"),
        "model": _text(form, "model"),
        "iterations": iterations,
        "materials": materials,
    }
    try:
        request = RunRequest.model_validate(fields)
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]) or "form"
            problems.append(f"{where}: {error['msg']}")
        return None, problems
    return (None, problems) if problems else (request, [])
