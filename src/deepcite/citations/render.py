"""Rendering the Sources block.

One entry per document (canonical URL), listing every number under which it was
cited, so a document reached through several passages or URLs appears once::

    [1, 4] Title (source nr: 1, 4)
       URL: https://example.org/page
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePath

from deepcite.types import Source


@dataclass
class _Entry:
    title: str
    url: str
    numbers: list[int] = field(default_factory=list)
    collection: str | None = None
    file_name: str | None = None
    kind: str | None = None
    pages: list[int] = field(default_factory=list)


def render_sources(sources: Iterable[Source]) -> str:
    """Render sources as the Sources block body (without heading); empty in, empty out."""
    entries: dict[str, _Entry] = {}
    for source in sorted(sources, key=lambda s: s.number):
        if not source.url:
            continue
        key = _document_key(source)
        entry = entries.get(key)
        if entry is None:
            entry = entries[key] = _Entry(title=source.title, url=_document_url(source))
            collection = source.metadata.get("collection")
            entry.collection = str(collection) if collection else None
            path = source.metadata.get("path")
            entry.file_name = PurePath(str(path)).name if path else None
            entry.kind = str(source.metadata.get("kind") or "") or None
        if source.number not in entry.numbers:
            entry.numbers.append(source.number)
        page = source.metadata.get("page")
        if isinstance(page, int) and page not in entry.pages:
            entry.pages.append(page)
    return "\n\n".join(_format(entry) for entry in entries.values())


def _document_key(source: Source) -> str:
    # Passages of one local file share the file; pages are listed on the entry.
    return source.canonical_url.split("#page=", 1)[0]


def _document_url(source: Source) -> str:
    return source.canonical_url


def _format(entry: _Entry) -> str:
    numbers = ", ".join(str(n) for n in sorted(entry.numbers))
    lines = [f"[{numbers}] {entry.title} (source nr: {numbers})", f"   URL: {entry.url}"]
    if entry.collection:
        where = f"   Collection: {entry.collection}"
        if entry.file_name:
            where += f" · {entry.file_name}"
        if entry.pages:
            # EPUB "pages" are spine sections; PDFs have real pages.
            if entry.kind == "epub":
                label = "section" if len(entry.pages) == 1 else "sections"
            else:
                label = "p." if len(entry.pages) == 1 else "pp."
            where += f", {label} {', '.join(str(p) for p in sorted(entry.pages))}"
        lines.append(where)
    return "\n".join(lines)
