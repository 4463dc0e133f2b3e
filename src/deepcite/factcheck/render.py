"""A checked document, shown: Markdown with each claim's verdict and ``[n]`` after it,
standalone HTML with each claim highlighted and its evidence on hover or focus, a Word
document with one comment per claim, and the JSON of ``deepcite check --json``.

Every renderer takes the :class:`~deepcite.types.ResearchResult` of
:func:`~deepcite.factcheck.run_check`; HTML and DOCX also take the document as given,
since they mark the claims in place by their offsets. Document text, notes, quotes,
titles and URLs come from people and pages anyone can write: HTML escapes all of it
(and links only ``http``, ``https`` and ``file`` URLs), Markdown neutralises raw tags.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from deepcite._optional import installed
from deepcite.citations.render import render_sources
from deepcite.citations.text import neutralise_html
from deepcite.errors import ConfigError
from deepcite.export.markdown import to_json_dict
from deepcite.security.terminal import one_line
from deepcite.text.cjk import has_cjk
from deepcite.text.frames import frame
from deepcite.text.language import DEFAULT, detect
from deepcite.types import VERDICTS, ClaimVerdict, ResearchResult, Source, Verdict

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from docx.text.run import Run

__all__ = ["VERDICT_LABELS", "annotate", "check_json", "counts", "render_docx",
           "render_html", "render_markdown", "summary_line", "verdict_label"]

#: How each verdict reads in every output.
VERDICT_LABELS: dict[Verdict, str] = {
    "supported": "supported", "partly_supported": "partly supported",
    "contradicted": "contradicted", "not_found": "not found",
}
_MD_SPECIAL = re.compile(r"([*_`\\])")
_OWN_MARK = re.compile(r"\[(\d+(?:\s*[,\u2013-]\s*\d+)*)\]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LINKABLE = ("http://", "https://", "file://")
_FULL_WIDTH = re.compile(r"[\u3000-\u303f\uff00-\uffef]")  # CJK punctuation, full-width forms
_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")


def counts(claims: Sequence[ClaimVerdict]) -> dict[str, int]:
    """How many claims got each verdict (every verdict named, zeros included)."""
    found = Counter(claim.verdict for claim in claims)
    return {verdict: found.get(verdict, 0) for verdict in VERDICTS}


def verdict_label(verdict: Verdict, language: str = DEFAULT) -> str:
    """How ``verdict`` reads in ``language`` (:data:`VERDICT_LABELS` in English)."""
    return frame(f"verdict_{verdict}", language)


def summary_line(claims: Sequence[ClaimVerdict], language: str = DEFAULT) -> str:
    """"12 claims checked: 8 supported, 2 contradicted ..." (verdicts with none left
    out), in ``language``."""
    found = Counter(claim.verdict for claim in claims)
    parts = [f"{found[verdict]} {verdict_label(verdict, language)}" for verdict in VERDICTS
             if found[verdict]]
    head = frame("claim_checked", language) if len(claims) == 1 \
        else frame("claims_checked", language).format(n=len(claims))
    return head + (frame("colon", language) + frame("list_separator", language).join(parts)
                   if parts else "")


def _marker(claim: ClaimVerdict, language: str = DEFAULT, after: str = ".") -> str:
    """What follows a claim in the annotated Markdown: its citations and verdict. After
    CJK text (``after``, the claim's last character) it takes no space, as CJK
    punctuation carries its own."""
    cited = "".join(f"[{n}]" for n in claim.citations)
    label = verdict_label(claim.verdict, language)
    note = _MD_SPECIAL.sub(r"\\\1", one_line(claim.note)) if claim.note else ""
    shown = label + frame("colon", language) + note if note and claim.verdict != "supported" \
        else label
    space = "" if has_cjk(after) or _FULL_WIDTH.match(after) else " "
    return (f"{space}{cited}" if cited else "") \
        + f"{space}*{frame('verdict_mark', language).format(text=shown)}*"


def _own_markers(text: str) -> str:
    """``text`` with the document's own citation marks (a report from another tool
    cites its own sources, "[1]") escaped, so every ``[n]`` left is one of the check's."""
    return _OWN_MARK.sub(lambda m: "\\[" + m.group(1) + "\\]", text)


def annotate(document: str, claims: Sequence[ClaimVerdict]) -> str:
    """``document`` with each claim's ``[n]`` and verdict written after it, in the
    document's language (the document's own ``[n]`` marks escaped: they are not this
    check's sources)."""
    language = detect(document)
    pieces: list[str] = []
    at = 0
    for claim in sorted(claims, key=lambda c: c.end):
        if claim.end < at or claim.end > len(document):
            continue
        pieces += [_own_markers(document[at:claim.end]),
                   _marker(claim, language, document[claim.end - 1:claim.end])]
        at = claim.end
    pieces.append(_own_markers(document[at:]))
    return "".join(pieces).strip()


def render_markdown(result: ResearchResult) -> str:
    """The annotated document, a line counting the verdicts, and the Sources block."""
    language = detect(result.answer)  # the document's, as its notes are
    parts = [neutralise_html(result.answer.strip())]
    if result.cancelled:
        parts.append(f"_{frame('check_cancelled', language)}_")
    parts.append(f"_{summary_line(result.claims, language)}{frame('full_stop', language)}_")
    block = render_sources(result.sources, text=result.answer, language=language)
    if block:
        parts.append(f"## {frame('sources', language)}\n\n{block}")
    return "\n\n".join(parts) + "\n"


def check_json(result: ResearchResult, *, run_id: str | None = None) -> dict[str, object]:
    """The check as ``deepcite check --json`` prints it: ``id`` (the run's, when it was
    recorded), ``claims``, ``sources`` (as every JSON result gives them), ``counts``,
    ``metrics`` and ``warnings``."""
    general = to_json_dict(result)
    return {
        "id": run_id,
        "claims": [{
            "number": claim.number, "text": claim.text, "start": claim.start,
            "end": claim.end, "verdict": claim.verdict, "citations": list(claim.citations),
            "evidence": [{"number": item.number, "quote": item.quote}
                         for item in claim.evidence],
            "note": claim.note,
        } for claim in result.claims],
        "sources": general["sources"],
        "counts": counts(result.claims),
        "metrics": general["metrics"],
        "warnings": general["warnings"],
    }


# ------------------------------------------------------------------------------ HTML

_STYLE = """
body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;
color:#1d1d1f}
.document{white-space:pre-wrap;word-wrap:break-word}
.claim{position:relative;border-radius:3px;padding:0 1px;cursor:help;outline-offset:2px}
.claim.supported{background:#d5f5dc}.claim.partly_supported{background:#fff1c2}
.claim.contradicted{background:#ffd6d6;text-decoration:underline wavy #c0392b}
.claim.not_found{background:#e8e8ed}
.claim .tip{display:none;position:absolute;left:0;top:100%;z-index:2;width:min(30rem,80vw);
white-space:normal;background:#fff;border:1px solid #999;border-radius:6px;padding:.5rem .7rem;
box-shadow:0 4px 14px rgba(0,0,0,.15);font-size:.9rem;color:#1d1d1f}
.claim:hover .tip,.claim:focus .tip,.claim:focus-within .tip{display:block}
.tip blockquote{margin:.3rem 0 .3rem .5rem;padding-left:.5rem;border-left:3px solid #bbb}
.verdict{font-weight:600}.counts{color:#555}
sup a{text-decoration:none}
.sources li{margin:.4rem 0;word-break:break-word}
"""


def _esc(text: str) -> str:
    return html.escape(_CONTROL.sub("", text), quote=True)


def _source_link(source: Source) -> str:
    title = _esc(one_line(source.title) or source.url)
    if source.url.startswith(_LINKABLE):
        return f'<a href="{_esc(source.url)}">{title}</a>'
    return title


def _tip(claim: ClaimVerdict, by_number: dict[int, Source],
         language: str = DEFAULT) -> tuple[str, str]:
    """The evidence of a claim as the tooltip's HTML and as plain text (its title)."""
    label = verdict_label(claim.verdict, language)
    colon = frame("colon", language)
    plain = [label + (colon + claim.note if claim.note else "")]
    parts = [f'<span class="verdict">{_esc(label)}</span>'
             + (_esc(colon + claim.note) if claim.note else "")]
    for item in claim.evidence:
        source = by_number.get(item.number)
        title = one_line(source.title) if source else ""
        plain.append(f"[{item.number}] \u201c{one_line(item.quote)}\u201d {title}".rstrip())
        parts.append(f"<blockquote>\u201c{_esc(one_line(item.quote))}\u201d "
                     f'<a href="#source-{item.number}">[{item.number}]</a> '
                     f"{_esc(title)}</blockquote>")
    return "".join(parts), "\n".join(plain)


def render_html(result: ResearchResult, document: str) -> str:
    """A standalone page: the document with every claim highlighted by its verdict, its
    note and evidence on hover or keyboard focus (and in its ``title``), the counts, and
    the sources with links."""
    language = detect(document)
    by_number = {source.number: source for source in result.sources}
    pieces: list[str] = []
    at = 0
    for claim in sorted(result.claims, key=lambda c: c.start):
        if claim.start < at or claim.end > len(document):
            continue  # offsets of another version of the document: not marked
        pieces.append(_esc(document[at:claim.start]))
        tip, plain = _tip(claim, by_number, language)
        cited = "".join(f'<a href="#source-{n}">[{n}]</a>' for n in claim.citations)
        pieces.append(
            f'<span class="claim {claim.verdict}" id="claim-{claim.number}" tabindex="0" '
            f'title="{_esc(plain)}">{_esc(document[claim.start:claim.end])}'
            f'<span class="tip" role="tooltip">{tip}</span></span>'
            + (f"<sup>{cited}</sup>" if cited else ""))
        at = claim.end
    pieces.append(_esc(document[at:]))
    sources = "".join(
        f'<li id="source-{s.number}">[{s.number}] {_source_link(s)}'
        + (f"<br><small>{_esc(s.url)}</small>" if s.url else "") + "</li>"
        for s in result.sources)
    named = one_line(result.title or result.question)
    title = _esc(frame("check_title", language).format(title=named) if named
                 else frame("document_check", language))
    cancelled = (f"<p><em>{_esc(frame('check_cancelled', language))}</em></p>"
                 if result.cancelled else "")
    return (
        f"<!DOCTYPE html>\n<html lang=\"{language}\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{title}</title><style>{_STYLE}</style></head><body>"
        f"<header><h1>{title}</h1><p class=\"counts\">"
        f"{_esc(summary_line(result.claims, language))}</p>{cancelled}</header>"
        f"<main><div class=\"document\">{''.join(pieces)}</div></main>"
        + (f"<section class=\"sources\"><h2>{_esc(frame('sources', language))}</h2>"
           f"<ol>{sources}</ol></section>" if sources else "")
        + "</body></html>\n")


# ------------------------------------------------------------------------------ DOCX

def _docx_text(text: str) -> str:
    """Text Word can hold: no control characters, lines of a paragraph joined."""
    return _CONTROL.sub("", text.replace("\r", "").replace("\n", " "))


def _blocks(document: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the document's paragraphs (text between blank lines)."""
    blocks: list[tuple[int, int]] = []
    for match in re.finditer(r"(?:[^\n]|\n(?![ \t]*\n))+", document):
        if match.group(0).strip():
            blocks.append((match.start(), match.end()))
    return blocks


def _comment(doc: DocxDocument, run: Run, claim: ClaimVerdict,
             by_number: dict[int, Source], language: str = DEFAULT) -> None:
    label = verdict_label(claim.verdict, language)
    text = _docx_text(label + (frame("colon", language) + claim.note if claim.note else ""))
    comment = doc.add_comment(run, text=text, author="deepcite", initials="dc")
    for item in claim.evidence:
        source = by_number.get(item.number)
        where = f" ({one_line(source.title)})" if source is not None else ""
        comment.add_paragraph(_docx_text(f"[{item.number}] \u201c{item.quote}\u201d{where}"))


def render_docx(result: ResearchResult, document: str, out: Path) -> None:
    """Write ``out``: the document as a Word file, each claim highlighted by its verdict
    with a comment saying the verdict, the note and the evidence (quote and source),
    and the sources listed at the end. Needs python-docx (``deepcite[docx]``)."""
    if not installed("docx"):
        raise ConfigError("Writing .docx needs python-docx: pip install 'deepcite[docx]'")
    from docx import Document
    from docx.enum.text import WD_COLOR_INDEX

    colours = {"supported": WD_COLOR_INDEX.BRIGHT_GREEN, "partly_supported":
               WD_COLOR_INDEX.YELLOW, "contradicted": WD_COLOR_INDEX.RED,
               "not_found": WD_COLOR_INDEX.GRAY_25}
    language = detect(document)
    by_number = {source.number: source for source in result.sources}
    doc = Document()
    doc.add_heading(_docx_text(one_line(result.title or result.question)
                               or frame("document_check", language)), level=0)
    doc.add_paragraph(_docx_text(summary_line(result.claims, language)))
    claims = sorted(result.claims, key=lambda c: c.start)
    for start, end in _blocks(document):
        heading = _HEADING.match(document[start:end]) if "\n" not in document[start:end] \
            else None
        if heading is not None:
            doc.add_heading(_docx_text(heading.group(2)), level=min(len(heading.group(1)), 9))
            continue
        paragraph = doc.add_paragraph()
        at = start
        for claim in claims:
            if claim.start < at or claim.end > end or claim.start < start:
                continue
            if claim.start > at:
                paragraph.add_run(_docx_text(document[at:claim.start]))
            run = paragraph.add_run(_docx_text(document[claim.start:claim.end]))
            run.font.highlight_color = colours[claim.verdict]
            _comment(doc, run, claim, by_number, language)
            at = claim.end
        if end > at:
            paragraph.add_run(_docx_text(document[at:end]))
    if result.sources:
        doc.add_heading(frame("sources", language), level=1)
        for source in result.sources:
            doc.add_paragraph(_docx_text(f"[{source.number}] {one_line(source.title)} - "
                                         f"{source.url}"))
    doc.save(str(out))
