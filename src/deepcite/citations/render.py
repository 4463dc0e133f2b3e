"""Rendering the Sources block.

One entry per document (canonical URL), listing every number under which it was
cited, so a document reached through several passages or URLs appears once::

    [1, 4] Title (source nr: 1, 4)
       URL: https://example.org/page?id=7#results

The canonical form (tracking parameters and fragments removed) is only the key that
groups the entries; the URL shown is the one the first of them was found at, so the
link opens the page that was read, fragment and all. Local PDF passages keep their
``#page=N`` (the canonical form keeps it too, and the key drops it so that the pages
of one file are one entry).

Entries may be :class:`~deepcite.types.Source` objects or plain mappings (what the
API, saved reports and the web UI hand around), so both are first normalised into
:class:`CitedEntry`. :mod:`deepcite.citations.hyperlinks` reuses that normalisation and
:func:`answer_body`, so the block and the in-text links always agree on numbers.

Titles, collection and file names come from documents and pages anyone can write, so
the block shows them on one line with HTML escaped, and URLs with no blank, quote or
angle bracket that could end the line or open a tag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from deepcite.citations.markers import cited_numbers, prose_only
from deepcite.citations.text import escape_html
from deepcite.search.urls import canonical_url
from deepcite.security.terminal import one_line, terminal_safe
from deepcite.text.frames import frame, labelled, variants
from deepcite.text.language import DEFAULT
from deepcite.types import Source

#: The engine of sources that are the user's own materials (:mod:`deepcite.materials`).
USER_MATERIAL = "user_material"

EntryLike = Source | Mapping[str, Any]
"""What callers may pass: a registry source or a mapping with ``number``/``title``/``url``."""

# A Markdown heading (any level) that opens the sources section. Everything after it is
# the bibliography, which must never be rewritten or counted as in-text citations.
# Its name in every language of the frame too (:mod:`deepcite.text.frames`): a Chinese
# answer's Sources block is headed "来源".
_SOURCES_HEADING = re.compile(
    r"^[ ]{0,3}#{1,6}[ \t]+(?:sources|references|bibliography|citations|"
    + "|".join(re.escape(name) for name in variants("sources")[1:])
    + r")[ \t]*[:\uff1a]?[ \t]*#*[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True)
class CitedEntry:
    """One numbered source, whatever shape it arrived in.

    ``url`` is the URL as found, what readers see and links open; ``canonical_url`` is
    only the key that tells which entries are one document.
    """

    number: int
    title: str
    url: str
    canonical_url: str
    engine: str = ""
    collection: str | None = None
    path: str | None = None
    kind: str | None = None
    page: int | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def document_key(self) -> str:
        """Passages of one local file share the file; pages are listed on the entry."""
        return self.canonical_url.split("#page=", 1)[0]


def normalise(entry: EntryLike) -> CitedEntry:
    """Turn a :class:`Source` or a mapping into a :class:`CitedEntry`.

    Mapping keys ``collection``/``page``/``path``/``kind`` may sit at the top level or in
    ``metadata``; the top level wins, because it is what a caller set deliberately.
    """
    if isinstance(entry, Source):
        meta: Mapping[str, Any] = entry.metadata
        number, title, url = entry.number, entry.title, entry.url
        canonical, engine = entry.canonical_url, entry.engine
        top: Mapping[str, Any] = {}
    else:
        raw_meta = entry.get("metadata")
        meta = raw_meta if isinstance(raw_meta, Mapping) else {}
        number = int(entry["number"])
        title = str(entry.get("title") or "")
        url = str(entry.get("url") or "")
        canonical = str(entry.get("canonical_url") or canonical_url(url)) if url else ""
        engine = str(entry.get("engine") or meta.get("engine") or "")
        top = entry

    def pick(key: str) -> Any:
        value = top.get(key)
        return value if value not in (None, "") else meta.get(key)

    collection, path, kind, page = pick("collection"), pick("path"), pick("kind"), pick("page")
    return CitedEntry(
        number=number, title=one_line(title) or url, url=url, canonical_url=canonical,
        engine=engine,
        collection=str(collection) if collection else None,
        path=str(path) if path else None,
        kind=str(kind) if kind else None,
        page=page if isinstance(page, int) and not isinstance(page, bool) else None,
        metadata=meta,
    )


def by_number(entries: Iterable[EntryLike]) -> dict[int, CitedEntry]:
    """Entries with a URL, keyed by number; the first entry of a number wins."""
    table: dict[int, CitedEntry] = {}
    for raw in entries:
        entry = normalise(raw)
        if entry.url and entry.number not in table:
            table[entry.number] = entry
    return table


def answer_body(text: str) -> tuple[str, str]:
    """Split ``text`` at its Sources heading: ``(body, sources_section)``.

    Headings inside code blocks do not count (they are examples, not the report's own
    section), so the search runs on the text with code blanked out.
    """
    match = _SOURCES_HEADING.search(prose_only(text))
    if match is None:
        return text, ""
    return text[:match.start()], text[match.start():]


@dataclass
class SourceDocument:
    """One entry of the Sources block: a document and every number it was cited under.

    ``entry`` is its lowest-numbered source, the first seen (title, the URL as found,
    engine and metadata come from it); ``pages`` are the pages its passages came from,
    in citation-number order.
    Exporters group sources with the same function, so every format lists the same
    documents under the same numbers.
    """

    entry: CitedEntry
    numbers: list[int] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The metadata of the document's first source."""
        return self.entry.metadata


def source_documents(entries: Iterable[EntryLike], text: str | None = None
                     ) -> list[SourceDocument]:
    """``entries`` grouped into documents (one canonical URL, ``#page=`` aside).

    With ``text`` (the answer), documents come in the order the answer first cites
    them, which is the order a reader meets them, and never-cited ones follow in number
    order; without it, number order (what bibliographies use).
    """
    table = by_number(entries)
    documents: dict[str, SourceDocument] = {}
    for number in sorted(table):
        entry = table[number]
        document = documents.setdefault(entry.document_key, SourceDocument(entry))
        document.numbers.append(number)
        if entry.page is not None and entry.page not in document.pages:
            document.pages.append(entry.page)
    ordered = list(documents.values())
    if text is not None:
        first_seen = {n: i for i, n in enumerate(cited_numbers(answer_body(text)[0]))}
        never = len(first_seen)
        ordered.sort(key=lambda doc: (min(first_seen.get(n, never) for n in doc.numbers),
                                      doc.numbers[0]))
    return ordered


def render_sources(entries: Iterable[EntryLike], text: str | None = None,
                   language: str = DEFAULT) -> str:
    """Render the Sources block body (without heading); empty in, empty out.

    Documents are ordered as :func:`source_documents` orders them; the labels of each
    entry ("URL:", "Your material") are in ``language``, the question's
    (:mod:`deepcite.text.frames`), as the block's heading is.
    """
    return "\n\n".join(_format(doc, language) for doc in source_documents(entries, text))


_UNSAFE_IN_URL = re.compile(r"[\s<>\"]")


def _safe_url(url: str) -> str:
    """``url`` percent-encoded where it could end the line, a link or open a tag."""
    return _UNSAFE_IN_URL.sub(lambda m: quote(m.group(0)), terminal_safe(url))


def _safe_name(name: str) -> str:
    return escape_html(one_line(name))


def _format(doc: SourceDocument, language: str = DEFAULT) -> str:
    numbers = ", ".join(str(n) for n in doc.numbers)
    entry = doc.entry
    label = frame("source_numbers", language).format(numbers=numbers)
    # A full-width bracket carries its own spacing; an ASCII one follows a space.
    lines = [f"[{numbers}] {_safe_name(entry.title)}{'' if label[0] == '（' else ' '}{label}",
             "   " + labelled("url", _safe_url(entry.url), language)]
    where = ""
    if entry.collection:
        where = "   " + labelled("collection", _safe_name(entry.collection), language)
        if entry.path:
            where += f" · {_safe_name(PurePath(entry.path).name)}"
    elif entry.engine == USER_MATERIAL:
        material = entry.metadata.get("material_id")
        where = f"   {frame('your_material', language)}" + (
            f": {_safe_name(str(material))}" if material else "")
    if where and doc.pages:
        # EPUB "pages" are spine sections; PDFs have real pages.
        key = "section" if entry.kind == "epub" else "page"
        if len(doc.pages) > 1:
            key += "s"
        pages = ", ".join(str(p) for p in sorted(doc.pages))
        where += ", " + frame(key, language).format(pages=pages)
    if where:
        lines.append(where)
    return "\n".join(lines)
