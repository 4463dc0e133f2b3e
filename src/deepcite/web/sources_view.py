"""What the source viewer shows: one numbered source of a stored run, its passage with
the cited quotes marked, where it comes from, and - for a collection document - the
file, found only through the collection that indexed it.

Everything here is data for templates (autoescaped) and the JSON API; nothing is HTML.
The passage is split into :class:`Segment` runs (marked or not) so a template can wrap
the marked ones in ``<mark>`` without ever trusting the text.

Marks come from the citation checks' offsets, which index the stored
:attr:`~deepcite.types.Source.text` in code points (``docs/citations.md``, "Evidence
offsets"). The passage is that text cleaned of markup once, as a whole
(:func:`~deepcite.citations.display.display_text` with its lines kept), and each span is
carried into it through the cleaning's map: the mark shows exactly the quoted span,
whatever markup, entities or CRLF line ends stand around or inside it.

:func:`document_file` is the one way from a stored source to a file on the server: the
source must name a collection this server can open by name (never a path), and the
collection must have indexed exactly that path; the file is then resolved and refused
when it is no longer the regular file that was indexed (a symlink put in its place, a
folder, gone) or when it has more than one hard link: another name of the same file
may lie anywhere, outside every folder that was indexed, and a path cannot tell (see
:mod:`deepcite.collections.files`; the server indexes no such file from its folders,
and one linked after indexing is not served either). A request can therefore never
make the server read a file outside an indexed collection, whatever the stored
metadata says. With accounts the caller must also still be allowed to search that
collection (``readable``): a run keeps the text it cited, but a file is served only to
whoever may read its collection now.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepcite.citations.display import display_text
from deepcite.citations.verify import nearest_occurrence
from deepcite.config import Settings
from deepcite.errors import DeepciteError
from deepcite.store.convert import USER_MATERIAL
from deepcite.types import CitationCheck, ResearchResult, Source

__all__ = ["Segment", "SourceView", "document_file", "evidence_spans", "source_view"]

#: Characters of a source's text the viewer shows at most (around the first quote).
MAX_PASSAGE = 20_000
#: Quotes listed per source.
MAX_QUOTES = 12

@dataclass(frozen=True)
class Segment:
    """A stretch of the passage; ``marked`` when a checked quote covers it."""

    text: str
    marked: bool = False


@dataclass(frozen=True)
class SourceView:
    """One source of a run as the viewer shows it (see the module docstring).

    ``kind`` is ``collection`` (a document of an indexed collection: ``document_url``
    serves it), ``web`` (``web_url`` links out), ``material`` (the user's own: its text
    is not kept) or ``other``.
    """

    run_id: str
    number: int
    title: str
    kind: str
    engine: str
    url: str
    web_url: str = ""
    collection: str | None = None
    path: str | None = None
    page: int | None = None
    heading_path: list[str] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    clipped: bool = False
    quotes: list[tuple[str, str]] = field(default_factory=list)  # (outcome, quote)
    #: Where each of ``quotes`` stands in the stored text: ``(start, end)`` code points.
    quote_spans: list[tuple[int, int]] = field(default_factory=list)
    sentences: list[tuple[str, str]] = field(default_factory=list)  # (outcome, sentence)
    document_url: str = ""

    def as_json(self) -> dict[str, Any]:
        """The view for ``GET /api/v1/runs/{id}/sources/{n}``."""
        text = "".join(s.text for s in self.segments)
        spans, at = [], 0
        for segment in self.segments:
            if segment.marked:
                spans.append({"start": at, "end": at + len(segment.text)})
            at += len(segment.text)
        return {"run_id": self.run_id, "number": self.number, "title": self.title,
                "kind": self.kind, "engine": self.engine, "url": self.url,
                "collection": self.collection, "path": self.path, "page": self.page,
                "heading_path": self.heading_path, "passage": text, "highlights": spans,
                "clipped": self.clipped,
                "quotes": [{"outcome": o, "quote": q, "start": a, "end": b}
                           for (o, q), (a, b) in zip(self.quotes, self.quote_spans,
                                                     strict=True)],
                "citations": [{"outcome": o, "sentence": s} for o, s in self.sentences],
                "document_url": self.document_url or None,
                "text_kept": self.kind != "material"}


def source_view(run_id: str, result: ResearchResult, number: int,
                document_url: str = "") -> SourceView | None:
    """Source ``number`` of ``result`` as the viewer shows it; ``None`` if it has none."""
    from deepcite.citations.hyperlinks import safe_link_url

    source = next((s for s in result.sources if s.number == number), None)
    if source is None:
        return None
    checks = [c for c in result.citation_checks
              if (c.source_number if c.source_number is not None else c.number) == number]
    meta = source.metadata
    kind = _kind(source)
    web = safe_link_url(source.url or source.canonical_url) or "" if kind == "web" else ""
    heading = meta.get("heading_path")
    headings = [str(h) for h in heading if isinstance(h, str)] if isinstance(heading, list) else []
    if not headings and isinstance(meta.get("heading"), str) and meta["heading"]:
        headings = [meta["heading"]]
    page = meta.get("page")
    segments, clipped = _segments(source.text, checks)
    quotes: list[tuple[str, str]] = []
    quote_spans: list[tuple[int, int]] = []
    sentences: list[tuple[str, str]] = []
    for check in checks:
        span = evidence_spans(source.text, [check])
        if span and (check.outcome, check.quote) not in quotes and check.quote:
            quotes.append((check.outcome, check.quote))
            quote_spans.append(span[0])
        if (check.outcome, check.sentence) not in sentences:
            sentences.append((check.outcome, check.sentence))
    return SourceView(
        run_id=run_id, number=number, title=source.title, kind=kind, engine=source.engine,
        url=source.url, web_url=web,
        collection=meta.get("collection") if isinstance(meta.get("collection"), str) else None,
        path=meta.get("path") if isinstance(meta.get("path"), str) else None,
        page=page if isinstance(page, int) and not isinstance(page, bool) else None,
        heading_path=headings, segments=segments, clipped=clipped,
        quotes=quotes[:MAX_QUOTES], quote_spans=quote_spans[:MAX_QUOTES],
        sentences=sentences[:MAX_QUOTES],
        document_url=document_url if kind == "collection" else "")


def _kind(source: Source) -> str:
    if source.engine == USER_MATERIAL:
        return "material"
    meta = source.metadata
    if isinstance(meta.get("collection"), str) and isinstance(meta.get("path"), str):
        return "collection"
    if (source.url or source.canonical_url).lower().startswith(("http://", "https://")):
        return "web"
    return "other"


def evidence_spans(text: str, checks: list[CitationCheck]) -> list[tuple[int, int]]:
    """The checks' quotes as ``(start, end)`` spans of ``text``, in their order: the
    stored offsets when ``text[start:end]`` is the quote, as they always are for a run
    verified against this text; else the quote's nearest occurrence to the stored start
    (a run stored before offsets were exact); a quote not in ``text`` has none."""
    spans: list[tuple[int, int]] = []
    for check in checks:
        if not check.quote:
            continue
        start, end = check.start, check.end
        if start is None or end is None or text[start:end] != check.quote:
            found = nearest_occurrence(text, check.quote, start or 0)
            if found < 0:
                continue
            start, end = found, found + len(check.quote)
        spans.append((start, end))
    return spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _segments(text: str, checks: list[CitationCheck]) -> tuple[list[Segment], bool]:
    """The passage as marked and unmarked runs of its cleaned text (see the module
    docstring); ``True`` with them when a long text was clipped around the first mark."""
    spans = _merged(evidence_spans(text, checks))
    lo, hi = 0, len(text)
    clipped = False
    if hi > MAX_PASSAGE:
        clipped = True
        centre = spans[0][0] if spans else 0
        lo = max(0, centre - MAX_PASSAGE // 4)
        hi = min(len(text), lo + MAX_PASSAGE)
    shown = display_text(text[lo:hi], keep_lines=True)
    segments: list[Segment] = []
    at = 0
    for start, end in spans:
        first, last = shown.to_display(max(start, lo) - lo, min(end, hi) - lo)
        first = max(first, at)
        if first >= last:
            continue
        if first > at:
            segments.append(Segment(shown.text[at:first]))
        segments.append(Segment(shown.text[first:last], marked=True))
        at = last
    if at < len(shown.text):
        segments.append(Segment(shown.text[at:]))
    return segments, clipped


def document_file(source: Source, settings: Settings,
                  readable: Callable[[str], bool] | None = None) -> Path | None:
    """The file of a collection source, when the collection it names indexed that very
    path and it is still that regular file, and ``readable`` (``None``: everything, a
    server without accounts) says the caller may search that collection; else ``None``
    (see the module docstring)."""
    from deepcite.collections.collection import Collection

    meta = source.metadata
    name, key = meta.get("collection"), meta.get("path")
    if source.engine == USER_MATERIAL or not isinstance(name, str) or not isinstance(key, str):
        return None
    if readable is not None and not readable(name):
        return None
    try:
        collection = Collection.named(name, settings=settings)  # a name, never a path
        if collection.search_only:
            return None
        with collection.index.connect() as conn:
            row = conn.execute("SELECT 1 FROM documents WHERE path = ?", (key,)).fetchone()
    except (DeepciteError, OSError, sqlite3.Error):  # cannot open or read: no file
        return None
    if row is None:
        return None
    return indexed_file(key)


def indexed_file(key: str) -> Path | None:
    """The file an index stores as ``key`` (its resolved path), when it is still that
    very regular file: no symbolic or hard link, nothing moved on the way; else ``None``.
    """
    from deepcite.collections.paths import file_path

    path = file_path(key)
    if not path.is_absolute() or path.is_symlink():
        return None
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    # The index keeps resolved paths: anything else (a symlinked folder put on the way,
    # "..") is no longer the file that was indexed.
    if resolved != path or not resolved.is_file():
        return None
    try:
        if resolved.stat().st_nlink > 1:  # a hard link: its contents may be anyone's
            return None
    except OSError:
        return None
    return resolved
