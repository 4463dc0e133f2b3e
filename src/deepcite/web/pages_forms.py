"""The new-research form: its choices, and turning a submitted form into a RunRequest.

Uploads are untrusted files. Each is streamed into a private temporary folder a chunk
at a time, and refused once it passes :data:`MAX_UPLOAD_BYTES` or all files together
pass :data:`MAX_UPLOAD_TOTAL_BYTES`, so memory stays bounded whatever is sent; at most
:data:`MAX_UPLOAD_FILES` files are taken per request. Its type comes from an allow-list
of suffixes read from the name the browser sent, and it is parsed by the same loaders
as ``--material`` files (:func:`deepcite.materials.material_from_file`), which cap how
far a file may expand; the folder is removed right after. The material's ``url`` then
names the upload (``/uploads/<name>``) instead of the temporary path, which means
nothing once deleted.

Parsing a PDF or an EPUB takes seconds of CPU, so :func:`run_request` does all of it
in a worker thread: the event loop keeps answering health checks and event streams.
At most :data:`MAX_CONCURRENT_PARSES` uploads are parsed at once, server-wide, so many
requests sent together cannot each hold a parser's memory; the others wait their turn.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import IO, Any

import anyio.to_thread
from pydantic import ValidationError
from starlette.datastructures import FormData, UploadFile

from deepcite.config import Settings
from deepcite.errors import DeepciteError
from deepcite.materials.limits import MAX_MATERIALS, MAX_TOTAL_CHARS
from deepcite.runs import RunRequest

#: The largest upload accepted, per file.
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
#: The most bytes all files of one request may hold together.
MAX_UPLOAD_TOTAL_BYTES = 5 * MAX_UPLOAD_BYTES
#: Files one request may upload: no more than the materials a run keeps.
MAX_UPLOAD_FILES = MAX_MATERIALS
#: File types a material may be uploaded as (lower case, with dot).
UPLOAD_SUFFIXES = (".pdf", ".docx", ".epub", ".html", ".htm", ".md", ".txt")
#: Longest safe name in UTF-8 bytes: well under the 255 most file systems allow.
MAX_NAME_BYTES = 120
_CHUNK = 1024 * 1024
_NAME_PUNCTUATION = frozenset("._-")
#: Names Windows reserves for devices, whatever the suffix; uploads are never given them.
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
                       *(f"lpt{i}" for i in range(10))})
_MB = 1024 * 1024
#: Uploads parsed at the same time, whatever the number of requests: a hostile file
#: within every limit may still take a few hundred MB while it is read.
MAX_CONCURRENT_PARSES = 2
_PARSING = threading.BoundedSemaphore(MAX_CONCURRENT_PARSES)


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


def _base_name(name: str | None) -> str:
    """The last path component of ``name`` (either slash), NFC-normalised."""
    return unicodedata.normalize("NFC", PurePath((name or "").replace("\\", "/")).name)


def upload_suffix(name: str | None) -> str:
    """The upload's suffix, lower case, read from the name as sent (not the cleaned one),
    so a name whose stem is all non-ASCII still has its type."""
    return PurePath(_base_name(name)).suffix.lower()


def _safe_char(char: str) -> bool:
    # Letters, digits and combining marks of any script; not spaces, symbols, controls
    # or format characters (U+202E RIGHT-TO-LEFT OVERRIDE would disguise the suffix).
    return unicodedata.category(char)[0] in "LNM" or char in _NAME_PUNCTUATION


def _clean(text: str) -> str:
    out: list[str] = []
    for char in text:
        if _safe_char(char):
            out.append(char)
        elif not out or out[-1] != "_":
            out.append("_")
    return "".join(out)


def safe_upload_name(name: str | None) -> str:
    """The upload's file name reduced to safe characters, its suffix kept.

    Unicode letters and digits stay (``论文.txt`` remains ``论文.txt``); path
    separators, control and format characters become ``_``; no leading dot, no
    device name (``CON``), and at most :data:`MAX_NAME_BYTES` bytes. A stem with
    nothing safe left becomes ``upload``.
    """
    base = _base_name(name)
    raw_suffix = upload_suffix(base)
    suffix = _clean(raw_suffix)[:16]  # only allowed suffixes get parsed; others are shown
    stem = _clean(base[: len(base) - len(raw_suffix)]).strip("._") or "upload"
    if stem.split(".", 1)[0].casefold() in _RESERVED:
        stem = f"upload_{stem}"
    room = MAX_NAME_BYTES - len(suffix.encode("utf-8"))
    stem = stem.encode("utf-8")[:max(room, 1)].decode("utf-8", "ignore").rstrip("._") \
        or "upload"
    return stem + suffix


def _copy_upload(source: IO[bytes], target: Path, name: str, room: int) -> int:
    """Copy ``source`` to ``target`` a chunk at a time; the bytes copied.

    :class:`ValueError` once the file passes :data:`MAX_UPLOAD_BYTES` or ``room``
    (what the request's other files left of :data:`MAX_UPLOAD_TOTAL_BYTES`).
    """
    size = 0
    with target.open("wb") as out:
        while chunk := source.read(_CHUNK):
            size += len(chunk)
            if size > MAX_UPLOAD_BYTES:
                raise ValueError(f"{name}: larger than the {MAX_UPLOAD_BYTES // _MB} MB limit "
                                 "per file - upload a smaller file or an excerpt")
            if size > room:
                raise ValueError(f"{name}: not read - all files together pass the "
                                 f"{MAX_UPLOAD_TOTAL_BYTES // _MB} MB limit per request; "
                                 "upload fewer or smaller files")
            out.write(chunk)
    return size


@dataclass
class UploadBudget:
    """What the files of one request have used so far, against the per-request limits."""

    bytes: int = 0
    chars: int = 0


def material_of_upload(upload: UploadFile, budget: UploadBudget) -> dict[str, Any]:
    """The material object of one uploaded file; :class:`ValueError` saying why not.

    Blocking (file copies and parsing): call it from a worker thread.
    """
    from deepcite.materials import material_from_file

    name = safe_upload_name(upload.filename)
    suffix = upload_suffix(upload.filename)
    if suffix not in UPLOAD_SUFFIXES:
        # The suffix as sent may hold bidi overrides (".txt\u202egpj" shows as ".txtjpg"):
        # control and format characters are shown as \uXXXX escapes, and it is cut short.
        shown = "".join(f"\\u{ord(char):04x}" if unicodedata.category(char)[0] in "CZ"
                        and char != " " else char for char in suffix[:32])
        raise ValueError(f"{name}: file type {shown or '(none)'} is not accepted - upload "
                         "PDF, DOCX, EPUB, HTML, Markdown or text files")
    with tempfile.TemporaryDirectory(prefix="deepcite-upload-") as folder:
        file = Path(folder) / name
        budget.bytes += _copy_upload(upload.file, file, name,
                                     MAX_UPLOAD_TOTAL_BYTES - budget.bytes)
        try:
            # A thread semaphore, not an anyio limiter: this runs in a worker thread, and
            # the bound must hold across event loops (and for callers outside one).
            with _PARSING:
                material = material_from_file(file,
                                              max_chars=MAX_TOTAL_CHARS - budget.chars)
        except DeepciteError as exc:
            raise ValueError(str(exc).replace(str(file), name)) from None
    budget.chars += len(material.content)
    update = {"url": f"/uploads/{name}", "title": material.title or name}
    return material.model_copy(update=update).model_dump(mode="json", exclude_none=True)


def _uploads(form: FormData) -> list[UploadFile]:
    return [u for u in form.getlist("files") if isinstance(u, UploadFile) and u.filename]


def request_of(form: FormData) -> tuple[RunRequest | None, list[str]]:
    """The request the form describes, or ``None`` with the problems to show.

    Blocking (it parses the uploads): :func:`run_request` runs it in a worker thread.
    """
    problems: list[str] = []
    materials: list[dict[str, Any]] = []
    uploads = _uploads(form)
    if len(uploads) > MAX_UPLOAD_FILES:
        problems.append(f"{len(uploads)} files uploaded; at most {MAX_UPLOAD_FILES} are "
                        "accepted at once - leave some out")
        uploads = []
    budget = UploadBudget()
    for upload in uploads:
        try:
            materials.append(material_of_upload(upload, budget))
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
        "parent_id": _text(form, "parent_id"),
        "origin": "web",
    }
    try:
        request = RunRequest.model_validate(fields)
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]) or "form"
            problems.append(f"{where}: {error['msg']}")
        return None, problems
    return (None, problems) if problems else (request, [])


async def run_request(form: FormData) -> tuple[RunRequest | None, list[str]]:
    """:func:`request_of` in a worker thread, so parsing uploads never blocks the loop."""
    return await anyio.to_thread.run_sync(request_of, form)
