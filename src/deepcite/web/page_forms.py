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
import re
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
from deepcite.errors import DeepciteError, RequestError, error_line
from deepcite.materials.limits import MAX_MATERIALS, MAX_TOTAL_CHARS
from deepcite.runs import RunRequest
from deepcite.store import HistoryStore
from deepcite.store.user_rights import EVERYTHING, Access

#: The largest upload accepted, per file.
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
#: The most bytes all files of one request may hold together.
MAX_UPLOAD_TOTAL_BYTES = 5 * MAX_UPLOAD_BYTES
#: Files one request may upload: no more than the materials a run keeps.
MAX_UPLOAD_FILES = MAX_MATERIALS
#: File types a material may be uploaded as (lower case, with dot).
UPLOAD_SUFFIXES = (".pdf", ".docx", ".epub", ".html", ".htm", ".md", ".txt")
#: What a collection indexes besides (its loaders' built-in types): tables and other
#: plain-text formats, which a research upload's material loader does not read.
COLLECTION_UPLOAD_SUFFIXES = (*UPLOAD_SUFFIXES, ".markdown", ".rst", ".csv", ".tsv")
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


@dataclass(frozen=True)
class Choice:
    """One engine or collection the form offers, whether it can be used now, and why
    not (in page words, see :func:`page_words`)."""

    name: str
    usable: bool
    detail: str


@dataclass
class FormChoices:
    """What the form offers; names only, each list safe to show (autoescaped).

    ``engines`` and ``collections`` are the usable names (ticking one works);
    ``engine_rows``/``collection_rows`` are every one with its availability, as
    ``deepcite engines`` lists them. ``preselected`` are the collections ticked when
    the form opens: with no usable web engine (offline, or none configured) a run
    needs a collection, so the last-used ones (the caller's newest run's), else
    ``demo``.
    """

    strategies: list[str] = field(default_factory=list)
    engines: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    providers: list[str] = field(default_factory=list)
    engine_rows: list[Choice] = field(default_factory=list)
    collection_rows: list[Choice] = field(default_factory=list)
    preselected: list[str] = field(default_factory=list)
    web_usable: bool = True


#: Engines that are not web search: ``auto`` picks among the others, ``local`` searches
#: the collections.
_NOT_WEB = frozenset({"auto", "local"})

#: CLI advice as the form puts it: (pattern, replacement), applied in order.
_PAGE_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\(?`?deepcite collection add FOLDER --name [^`)\s]+`?\)?"),
     "(add a folder on the Collections page)"),
    (re.compile(r"`?deepcite collection rm [^`)\s]+`?"), "remove it on the Collections page"),
    (re.compile(r"\(?`?--collection NAME`?\)?"), "(tick a collection under Sources and model)"),
    (re.compile(r"pass \(tick a collection under Sources and model\)"),
     "tick a collection under Sources and model"),
    (re.compile(r"--collection (\S+)"), r"the \1 collection"),
    (re.compile(r"--provider (\S+) --model (\S+)"), r"provider \1 with model \2"),
    (re.compile(r"(?:use )?--provider (\S+)"), r"choose provider \1 under Sources and model"),
    (re.compile(r"(?:use )?--strategy (\S+)"), r"choose strategy \1 under Sources and model"),
    (re.compile(r"(?:use )?--model (\S+)"), r"enter model \1 under Sources and model"),
    (re.compile(r"(?:use )?--engine (\S+)"), r"tick engine \1 under Sources and model"),
    (re.compile(r"`deepcite history` lists (?:the runs|them all)"),
     "the History page lists the runs"),
    (re.compile(r"--iterations"), "the Iterations field"),
    (re.compile(r"--offline"), "offline mode"),
    (re.compile(r"\bset ((?:engines|llm|search|research)\.[a-z_]+)"),
     r"set \1 in the server's configuration"),
)

#: Request fields as the form labels them.
_FIELD_LABELS = {"question": "Question", "mode": "Report", "strategy": "Strategy",
                 "engines": "Search engines", "collections": "Collections",
                 "provider": "Provider", "model": "Model", "iterations": "Iterations",
                 "materials": "Your materials", "parent_id": "Follow-up",
                 "search.collections": "Collections", "search.engines": "Search engines"}


def page_words(message: str) -> str:
    """``message`` with CLI advice (``--collection NAME``, ``deepcite collection add``)
    put in the form's terms; the engines' own messages stay as they are elsewhere."""
    for pattern, replacement in _PAGE_WORDS:
        message = pattern.sub(replacement, message)
    return message


def field_label(name: str) -> str:
    """A request field (``collections``, ``materials.0``) as the form labels it."""
    head = name.split(".", 1)[0]
    return _FIELD_LABELS.get(name) or _FIELD_LABELS.get(head) or name


def submit_problem(exc: DeepciteError) -> str:
    """What a form shows for a run the executor refused at submit: the error's line,
    led by the form's label for the field it names."""
    problem = error_line(exc)
    return f"{field_label(exc.field)}: {problem}" if isinstance(exc, RequestError) else problem


def own_runs(access: Access) -> Access:
    """``access`` narrowed to the caller's own runs: what *they* last used is theirs,
    even for an admin, who sees everyone's (without accounts: every run)."""
    if access.user_id is None:
        return access
    return Access(user_id=access.user_id, admin=False, name=access.name)


def last_collections(store: HistoryStore | None,
                     access: Access = EVERYTHING) -> list[str]:
    """The collections of the caller's newest stored run (its settings snapshot), or
    none: another user's choice is never shown, nor does it reveal they ran."""
    if store is None:
        return []
    try:
        newest = store.list(limit=1, access=own_runs(access))
    except (DeepciteError, OSError):
        return []
    return newest[0].collections if newest else []


def _collection_rows(settings: Settings) -> list[Choice]:
    from deepcite.collections.collection import scan_collections

    rows: list[Choice] = []
    with contextlib.suppress(DeepciteError, OSError):
        listing = scan_collections(settings)
        for info in listing.infos:
            if info.documents:
                detail = f"ready: {info.documents} document{'s' if info.documents != 1 else ''}"
            elif info.name == "demo":
                detail = "bundled: its index is built on first use"
            else:
                detail = "empty: add files to it on the Collections page"
            rows.append(Choice(info.name, True, detail))
        for path, problem in listing.problems:
            rows.append(Choice(path.stem, False, f"cannot be read: {page_words(problem)}"))
    if all(row.name != "demo" for row in rows):  # bundled: built on first use
        rows.insert(0, Choice("demo", True, "bundled: its index is built on first use"))
    return rows


def form_choices(settings: Settings, store: HistoryStore | None = None,
                 access: Access = EVERYTHING) -> FormChoices:
    """The strategies, engines, collections and providers to choose from, each engine
    and collection with its availability, and the collections to preselect (from the
    runs of ``access``'s own user).

    A listing that fails (a broken plugin, an unreadable data folder) leaves its list
    empty instead of breaking the form: the defaults still work.
    """
    from deepcite.llm.providers import PROVIDER_REGISTRY
    from deepcite.research.strategies import strategy_statuses
    from deepcite.runs.checks import provider_refusal
    from deepcite.search import describe_engines

    choices = FormChoices()
    with contextlib.suppress(DeepciteError):
        choices.strategies = [s.name for s in strategy_statuses() if s.usable]
    with contextlib.suppress(DeepciteError):
        choices.engine_rows = [
            Choice(e.name, e.usable, "ready" if e.usable else page_words(e.detail))
            for e in describe_engines(settings)]
    choices.engines = [row.name for row in choices.engine_rows if row.usable]
    rows = _collection_rows(settings)
    if store is not None and not access.sees_all:  # only what the asker may search
        readable = store.readable_collections(access, [row.name for row in rows])
        rows = [row for row in rows if row.name in readable]
    choices.collection_rows = rows
    choices.collections = [row.name for row in choices.collection_rows if row.usable]
    with contextlib.suppress(DeepciteError):  # only what can answer here (offline: no API)
        # provider_refusal checks each (but does not probe Ollama, which may start later):
        # describe_providers would check them all once more, and wait on Ollama's probe
        choices.providers = [name for name in PROVIDER_REGISTRY.names()
                             if provider_refusal(name, settings) is None]
    choices.web_usable = not settings.security.offline and any(
        name not in _NOT_WEB for name in choices.engines)
    configured = [n for n in settings.search.collections if n in choices.collections]
    if configured:
        choices.preselected = configured
    elif not choices.web_usable:
        last = [n for n in last_collections(store, access) if n in choices.collections]
        choices.preselected = last or ["demo"]
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


def save_upload(upload: UploadFile, folder: Path, budget: UploadBudget,
                suffixes: tuple[str, ...] = UPLOAD_SUFFIXES) -> Path:
    """Stream one uploaded file into ``folder`` under its safe name; the file written.

    :class:`ValueError` saying why not: a type outside ``suffixes`` (a research upload's
    :data:`UPLOAD_SUFFIXES`, a collection's :data:`COLLECTION_UPLOAD_SUFFIXES`), a file
    past :data:`MAX_UPLOAD_BYTES` or past what ``budget`` leaves of
    :data:`MAX_UPLOAD_TOTAL_BYTES` (what was written of it is then removed). A name
    already in ``folder`` gets ``-2``, ``-3``... before its suffix. Blocking: call it
    from a worker thread. Research uploads and collection uploads both use it.
    """
    name = safe_upload_name(upload.filename)
    suffix = upload_suffix(upload.filename)
    if suffix not in suffixes:
        # The suffix as sent may hold bidi overrides (".txt\u202egpj" shows as ".txtjpg"):
        # control and format characters are shown as \uXXXX escapes, and it is cut short.
        shown = "".join(f"\\u{ord(char):04x}" if unicodedata.category(char)[0] in "CZ"
                        and char != " " else char for char in suffix[:32])
        raise ValueError(f"{name}: file type {shown or '(none)'} is not accepted - upload "
                         f"{', '.join(s.lstrip('.').upper() for s in suffixes)} files")
    file = folder / name
    stem, ext = file.stem, file.suffix
    number = 1
    while file.exists():
        number += 1
        file = folder / f"{stem}-{number}{ext}"
    try:
        budget.bytes += _copy_upload(upload.file, file, name,
                                     MAX_UPLOAD_TOTAL_BYTES - budget.bytes)
    except BaseException:
        file.unlink(missing_ok=True)
        raise
    return file


def material_of_upload(upload: UploadFile, budget: UploadBudget) -> dict[str, Any]:
    """The material object of one uploaded file; :class:`ValueError` saying why not.

    Blocking (file copies and parsing): call it from a worker thread.
    """
    from deepcite.materials import material_from_file

    name = safe_upload_name(upload.filename)
    with tempfile.TemporaryDirectory(prefix="deepcite-upload-") as folder:
        file = save_upload(upload, Path(folder), budget)
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
            problems.append(f"{field_label(where)}: {page_words(str(error['msg']))}")
        return None, problems
    return (None, problems) if problems else (request, [])


async def run_request(form: FormData) -> tuple[RunRequest | None, list[str]]:
    """:func:`request_of` in a worker thread, so parsing uploads never blocks the loop."""
    return await anyio.to_thread.run_sync(request_of, form)
