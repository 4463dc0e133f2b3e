"""Check a document: the form (paste or upload, choose collections), submitting it, and
the annotated result.

A check is a run (``mode="check"``): the form's request goes to the executor like the
research form's (admitted there: the caller's collections, the previous check they may
see), the run page follows it live claim by claim, and its report page
(:func:`deepcite.web.pages.reports.report`) shows the document with each claim
highlighted by verdict - its evidence shown on hover and on keyboard focus, its sources
opening in the in-app viewer - built here by :func:`annotated_document` from the
stored claims and the document the run's request keeps. Every piece of the document,
claim, quote and note is escaped: they are the user's text or a source's.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup, escape
from pydantic import ValidationError
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException

from deepcite.errors import ConfigError, DeepciteError, InputError, error_line
from deepcite.export.base import without_local_paths
from deepcite.factcheck import VERDICT_LABELS, render_docx, render_html, render_markdown
from deepcite.runs import RunRequest
from deepcite.runs.request import MAX_DOCUMENT_CHARS
from deepcite.store import StoredRun
from deepcite.types import VERDICTS, ClaimVerdict, ResearchResult, Verdict
from deepcite.web.check_documents import CHECK_SUFFIXES, check_fields, document_of_upload
from deepcite.web.downloads import content_disposition
from deepcite.web.page_forms import (
    MAX_UPLOAD_BYTES,
    field_label,
    form_choices,
    page_words,
    submit_problem,
)
from deepcite.web.pages.kit import MAX_FIELD_BYTES, Kit, PageKit, quote_path
from deepcite.web.sessions import Session

router = APIRouter(include_in_schema=False)

#: How each verdict is named on the page: as in every output of a check, capitalised.
PAGE_LABELS: dict[Verdict, str] = {verdict: label.capitalize()
                                   for verdict, label in VERDICT_LABELS.items()}


def check_form(kit: PageKit, request: Request, session: Session, status: int = 200,
               problems: list[str] | None = None,
               values: FormData | None = None) -> HTMLResponse:
    """The "Check a document" form, with ``problems`` and the ``values`` sent before."""
    choices = form_choices(kit.state.settings, kit.history, kit.access(session))
    ticked = (values.getlist("collections") if values is not None else choices.preselected)
    return kit.render(request, session, "check.html", status, title="Check a document",
                      choices=choices, problems=[page_words(p) for p in problems or []],
                      values=values or {}, ticked=ticked,
                      ticked_engines=values.getlist("engines") if values is not None else [],
                      max_chars=MAX_DOCUMENT_CHARS,
                      max_upload_mb=MAX_UPLOAD_BYTES // (1024 * 1024),
                      accept=",".join(CHECK_SUFFIXES))


@router.get("/check", response_class=HTMLResponse)
def check_page(kit: Kit, request: Request) -> Response:
    return check_form(kit, request, kit.session_for(request))


@router.post("/check")
async def submit_check(kit: Kit, request: Request) -> Response:
    try:  # one file; parsed here with the caps, then its CSRF token checked
        read = await request.form(max_files=1, max_part_size=MAX_FIELD_BYTES)
    except StarletteHTTPException as exc:
        if exc.status_code != 400:
            raise
        refused = await anyio.to_thread.run_sync(kit.session_for, request)
        return await anyio.to_thread.run_sync(
            check_form, kit, request, refused, 400,
            [f"The form was refused ({exc.detail}) - upload one file, or paste the text"])
    form, session = await kit.posted(request, read)
    run, problems = await anyio.to_thread.run_sync(check_request, form)
    if run is None:
        return await anyio.to_thread.run_sync(check_form, kit, request, session, 400,
                                              problems, form)
    run = run.asked_by("web", kit.caller(session).owner)
    try:
        run_id = await anyio.to_thread.run_sync(kit.state.executor.submit, run)
    except (InputError, ConfigError) as exc:
        problem = submit_problem(exc)
        return await anyio.to_thread.run_sync(check_form, kit, request, session, 400,
                                              [problem], form)
    return RedirectResponse(f"/runs/{quote_path(run_id)}", status_code=303)


def check_request(form: FormData) -> tuple[RunRequest | None, list[str]]:
    """The check the form describes - the uploaded file, else the pasted text - or
    ``None`` with the problems to show. Blocking (it reads the upload)."""
    upload = form.get("file")
    pasted = form.get("text")
    document: dict[str, Any] | None = None
    if isinstance(upload, UploadFile) and upload.filename:
        try:
            document = document_of_upload(upload)
        except ValueError as exc:
            return None, [str(exc)]
    elif isinstance(pasted, str) and pasted.strip():
        document = {"text": pasted.replace("\r\n", "\n")}
    if document is None:
        return None, ["Paste the document's text or upload its file"]
    title = form.get("title")
    if isinstance(title, str) and title.strip():
        document["title"] = title
    previous = form.get("previous")
    fields = check_fields(
        document, collections=_names(form, "collections"), engines=_names(form, "engines"),
        previous=previous.strip() or None if isinstance(previous, str) else None,
        origin="web")
    try:
        return RunRequest.model_validate(fields), []
    except ValidationError as exc:
        return None, [f"{field_label(_where(error['loc']))}: {page_words(str(error['msg']))}"
                      for error in exc.errors()]


def _where(loc: tuple[int | str, ...]) -> str:
    """The form field a problem is about: the document's text is the form's text."""
    where = ".".join(str(part) for part in loc)
    return {"document.text": "document", "document.title": "title", "": "document",
            "parent_id": "previous"}.get(where, where)


def _names(form: FormData, name: str) -> list[str]:
    return [value for value in form.getlist(name) if isinstance(value, str) and value]


# ------------------------------------------------------------------ the result

#: The annotated document's downloads: its media type and file suffix.
ANNOTATED: dict[str, tuple[str, str]] = {
    "html": ("text/html; charset=utf-8", ".html"),
    "docx": ("application/vnd.openxmlformats-officedocument.wordprocessingml.document",
             ".docx"),
    "md": ("text/markdown; charset=utf-8", ".md")}


@router.get("/reports/{run_id}/annotated.{fmt}")
def annotated_download(kit: Kit, request: Request, run_id: str, fmt: str) -> Response:
    """A check's document annotated as ``deepcite check -o`` writes it: the standalone
    HTML (highlights, evidence on hover and focus), Word with a comment per claim, or
    Markdown - for the caller's own checks only (another's is as missing as none)."""
    session = kit.session_for(request)
    try:
        stored = kit.history.get(run_id, kit.access(session))
    except DeepciteError as exc:
        return kit.not_found(request, session, str(exc))
    document = _document_text(stored)
    if stored.mode != "check" or fmt not in ANNOTATED or document is None:
        return kit.not_found(request, session, f"No annotated document {fmt!r} of run "
                                               f"{run_id[:8]}")
    media, suffix = ANNOTATED[fmt]
    try:
        data = _annotated(stored.result, document, fmt)
    except ConfigError as exc:  # Word without python-docx: the extra to install
        return kit.render(request, session, "error.html", 501, title="Not available",
                          message=error_line(exc))
    name = stored.result.title or "document"
    known = next((ext for ext in CHECK_SUFFIXES if name.lower().endswith(ext)), "")
    name = name[:len(name) - len(known)] or "document"  # draft.md: draft.checked.html
    return Response(data, media_type=media, headers={
        "Content-Disposition": content_disposition(f"{name}.checked{suffix}"),
        "X-Content-Type-Options": "nosniff"})


def _annotated(result: ResearchResult, document: str, fmt: str) -> bytes:
    """The download's bytes; a local document named by its collection and file name,
    never by the server's path (as every export of the pages names it)."""
    result = without_local_paths(result)
    if fmt == "html":
        return render_html(result, document).encode("utf-8")
    if fmt == "md":
        return render_markdown(result).encode("utf-8")
    with tempfile.TemporaryDirectory(prefix="deepcite-check-") as folder:
        target = Path(folder) / "checked.docx"
        render_docx(result, document, target)
        return target.read_bytes()


@dataclass(frozen=True)
class CheckView:
    """What the report page shows of a check: the annotated document, the counts per
    verdict, and whether the document was at hand to annotate."""

    document: Markup
    counts: list[tuple[Verdict, str, int]]
    annotated: bool


def check_view(stored: StoredRun, viewer_base: str) -> CheckView:
    """The report page's view of a stored check (``viewer_base``: where source ``n``
    opens in the in-app viewer, ``viewer_base + n``)."""
    result = stored.result
    counted = {verdict: 0 for verdict in VERDICTS}
    for claim in result.claims:
        counted[claim.verdict] += 1
    counts = [(verdict, PAGE_LABELS[verdict], counted[verdict]) for verdict in VERDICTS]
    document = _document_text(stored)
    if document is None:  # a request not kept: the claims alone, one after the other
        text = "\n\n".join(claim.text for claim in result.claims)
        claims, annotated = _relocated(result.claims, text), False
        return CheckView(annotated_document(text, claims, result, viewer_base), counts,
                         annotated)
    return CheckView(annotated_document(document, result.claims, result, viewer_base),
                     counts, True)


def _document_text(stored: StoredRun) -> str | None:
    request = stored.request or {}
    document = request.get("document")
    text = document.get("text") if isinstance(document, dict) else None
    return text if isinstance(text, str) else None


def _relocated(claims: list[ClaimVerdict], text: str) -> list[ClaimVerdict]:
    """``claims`` with offsets into ``text``, the claims joined by blank lines."""
    placed, at = [], 0
    for claim in claims:
        placed.append(claim.model_copy(update={"start": at, "end": at + len(claim.text)}))
        at += len(claim.text) + 2
    return placed


def annotated_document(document: str, claims: list[ClaimVerdict], result: ResearchResult,
                       viewer_base: str) -> Markup:
    """``document`` as escaped HTML, each claim a focusable ``<mark>`` coloured by its
    verdict and followed by its evidence (shown on hover and on focus, described to
    screen readers by ``aria-describedby``): the verdict, the note, each quote with the
    source it comes from, linked to the in-app viewer.

    Claims whose offsets do not fit the document, or overlap a claim before them, are
    left unmarked rather than marking the wrong text; they still count and are listed."""
    titles = {source.number: source.title for source in result.sources}
    parts: list[str] = []
    at = 0
    for claim in sorted(claims, key=lambda c: (c.start, c.end)):
        if claim.start < at or claim.end > len(document) or claim.end <= claim.start:
            continue
        parts.append(str(escape(document[at:claim.start])))
        parts.append(_claim_html(document[claim.start:claim.end], claim, titles,
                                 viewer_base))
        at = claim.end
    parts.append(str(escape(document[at:])))
    return Markup("".join(parts))


def _claim_html(text: str, claim: ClaimVerdict, titles: dict[int, str],
                viewer_base: str) -> str:
    number = claim.number
    label = PAGE_LABELS[claim.verdict]
    quotes = "".join(
        f'<span class="claim-quote">“{escape(item.quote)}” '
        f'<a href="{escape(viewer_base)}{item.number}" class="view-source">'
        f"[{item.number}] {escape(titles.get(item.number, 'source'))}</a></span>"
        for item in claim.evidence)
    cited = "".join(f'<a href="{escape(viewer_base)}{n}" class="view-source">[{n}]</a>'
                    for n in claim.citations if n not in {e.number for e in claim.evidence})
    note = f'<span class="claim-note">{escape(claim.note)}</span>' if claim.note else ""
    return (f'<span class="claim claim-{claim.verdict}" id="claim-{number}">'
            f'<mark tabindex="0" aria-describedby="claim-evidence-{number}">{escape(text)}'
            f'<span class="visually-hidden"> ({escape(label)})</span></mark>'
            f'<span class="claim-evidence" id="claim-evidence-{number}" role="note">'
            f'<strong class="verdict verdict-{claim.verdict}">{escape(label)}</strong>'
            f"{note}{quotes}"
            + (f'<span class="claim-cited">Cited: {cited}</span>' if cited else "")
            + "</span></span>")
