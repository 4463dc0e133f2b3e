"""Bibliographic exports: RIS, CSL-JSON (and the records BibTeX is written from).

A report's sources become :class:`Work` records, one per document of the Sources block
(passages of one file share it), in number order, each keeping the numbers it was
cited under so a reader can match ``[4]`` in the text to its record. What the engines
knew is carried over: OpenAlex, Semantic Scholar, arXiv and PubMed put authors, year,
venue, DOI and PubMed id in a source's metadata; local documents carry their
collection, path and pages.

The kind of record follows from that: a journal article where there is a venue or a
DOI, an arXiv preprint, a local document, otherwise a web page.
"""

from __future__ import annotations

import importlib
import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Literal
from urllib.parse import urlsplit

from deepcite.citations.hyperlinks import registrable_domain, safe_link_url
from deepcite.citations.render import SourceDocument
from deepcite.export.base import (
    ExportOptions,
    ExportResult,
    report_documents,
    result_for,
)
from deepcite.security.terminal import one_line
from deepcite.text.stopwords import TITLE_STOPWORDS
from deepcite.text.words import ANY_WORD
from deepcite.types import ResearchResult

WorkKind = Literal["article", "preprint", "webpage", "document"]

_PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "di", "da", "du",
                        "dos", "das", "la", "le", "ten", "ter", "bin", "al"})
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")
_YEAR = re.compile(r"\b(1[5-9]\d\d|2\d\d\d)\b")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)


@dataclass(frozen=True)
class Name:
    """A person's name split for bibliographies; ``literal`` for one-part and group names."""

    family: str = ""
    given: str = ""
    literal: str = ""


def split_name(name: str) -> Name:
    """``"Given Family"`` or ``"Family, Given"`` -> :class:`Name`.

    Lower-case particles stay with the family name (``"Ludwig van Beethoven"`` ->
    ``van Beethoven``); a name in one part (``"张伟"``, ``"OpenAI"``) or with ``and`` in it
    (a group) is kept whole as ``literal``, which is safer than a wrong split.
    """
    name = one_line(name)
    if not name:
        return Name()
    if "," in name:
        family, _, given = name.partition(",")
        if family.strip() and given.strip():
            return Name(family=family.strip(), given=given.strip())
    words = name.split()
    if len(words) < 2 or " and " in f" {name.lower()} ":
        return Name(literal=name)
    suffix = ""
    if words[-1].lower() in _SUFFIXES and len(words) > 2:
        suffix = words.pop()
    start = len(words) - 1
    while start > 1 and words[start - 1] in _PARTICLES:
        start -= 1
    family = " ".join(words[start:])
    given = " ".join(words[:start])
    return Name(family=family, given=f"{given} {suffix}".strip() if suffix else given)


@dataclass(frozen=True)
class Work:
    """One document of a report as a bibliography record."""

    key: str
    numbers: tuple[int, ...]
    kind: WorkKind
    title: str
    #: The document's link, empty when its URL is not one to link to (``javascript:``).
    url: str
    authors: tuple[Name, ...] = ()
    #: ``(year,)``, ``(year, month)`` or ``(year, month, day)``; empty when unknown.
    date: tuple[int, ...] = ()
    venue: str | None = None
    doi: str | None = None
    pmid: str | None = None
    arxiv_id: str | None = None
    path: str | None = None
    collection: str | None = None
    pages: tuple[int, ...] = ()
    accessed: tuple[int, ...] = ()

    @property
    def year(self) -> int | None:
        """The publication year, if known."""
        return self.date[0] if self.date else None

    @property
    def note(self) -> str:
        """Where the record sits in the report, and where a local document lives."""
        numbers = ", ".join(str(n) for n in self.numbers)
        note = f"deepcite source nr: {numbers}"
        if self.kind == "document":
            where = self.path or self.url
            detail = [f"collection {self.collection}"] if self.collection else []
            if self.pages:
                label = "p." if len(self.pages) == 1 else "pp."
                detail.append(f"{label} {', '.join(str(p) for p in self.pages)}")
            note += f"; local document: {where}" + (f" ({', '.join(detail)})" if detail else "")
        return note


def _text(value: object) -> str | None:
    if isinstance(value, str | int) and not isinstance(value, bool):
        return one_line(str(value)) or None
    return None


def _authors(value: object) -> tuple[Name, ...]:
    if isinstance(value, str):
        value = value.split(";")
    if not isinstance(value, list | tuple):
        return ()
    names = []
    for item in value:
        if isinstance(item, Mapping):
            item = item.get("name") or " ".join(
                str(item.get(part) or "") for part in ("given", "family"))
        if isinstance(item, str):
            name = split_name(item)
            if name != Name():
                names.append(name)
    return tuple(names)


def _parse_date(value: object) -> tuple[int, ...]:
    text = _text(value)
    if not text:
        return ()
    match = _DATE.match(text)
    if match is not None:
        parts = [int(p) for p in match.groups() if p]
        if len(parts) > 1 and not 1 <= parts[1] <= 12:
            parts = parts[:1]
        if len(parts) > 2 and not 1 <= parts[2] <= 31:
            parts = parts[:2]
        return tuple(parts)
    year = _YEAR.search(text)
    return (int(year.group(1)),) if year else ()


def _date(meta: Mapping[str, Any], published: str | None) -> tuple[int, ...]:
    from_published = _parse_date(published)
    year = meta.get("year")
    if isinstance(year, str) and year.strip().isdecimal() and len(year.strip()) <= 4:
        year = int(year)  # isdecimal: isdigit also takes "²", which int() refuses
    if isinstance(year, int) and not isinstance(year, bool) and 1000 <= year <= 2999:
        if from_published and from_published[0] == year:
            return from_published
        return (year,)
    return from_published


def _fold(text: str) -> str:
    """ASCII letters and digits of ``text``, lower case (``Müller`` -> ``muller``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", ascii_text.lower())


def _key_base(number: int, kind: WorkKind, title: str, url: str, authors: tuple[Name, ...],
              year: int | None) -> str:
    who = ""
    if authors:
        words = (authors[0].family or authors[0].literal).split()
        who = _fold(words[-1]) if words else ""
    if not who and kind in ("webpage", "preprint") and urlsplit(url).hostname:
        who = _fold(registrable_domain(url).split(".")[0])
    word = next((folded for folded in (_fold(w) for w in ANY_WORD.findall(title))
                 if folded and folded not in TITLE_STOPWORDS), "")
    key = f"{who}{year or ''}{word}"
    if not key:
        return f"source{number}"
    return key if key[0].isalpha() else f"ref{key}"


def _unique(key: str, used: set[str]) -> str:
    candidate, index = key, 0
    while candidate in used:
        index += 1
        candidate = f"{key}{chr(ord('a') + index - 1)}" if index <= 26 else f"{key}-{index}"
    used.add(candidate)
    return candidate


def _work(document: SourceDocument, published: str | None, used: set[str]) -> Work:
    entry, meta = document.entry, document.metadata
    local = bool(entry.collection) or urlsplit(entry.canonical_url).scheme.lower() == "file"
    venue = _text(meta.get("venue"))
    doi = _text(meta.get("doi"))
    doi = _DOI_PREFIX.sub("", doi) if doi else None
    arxiv_id = _text(meta.get("arxiv_id"))
    kind: WorkKind
    if local:
        kind = "document"
    elif venue or doi:
        kind = "article"
    elif arxiv_id or entry.engine.lower() == "arxiv":
        kind = "preprint"
    else:
        kind = "webpage"
    authors = _authors(meta.get("authors"))
    date = _date(meta, published)
    title = one_line(entry.title) or (PurePath(entry.path).name if entry.path else entry.url)
    raw_url = entry.url or entry.canonical_url  # as found: what the reader opens
    key = _unique(_key_base(document.numbers[0], kind, title, raw_url, authors,
                            date[0] if date else None), used)
    # A reference manager makes the URL a link: only what the shared allow-list takes.
    url = safe_link_url(raw_url, allow_file=True) or ""
    return Work(
        key=key, numbers=tuple(document.numbers), kind=kind, title=title, url=url,
        authors=authors, date=date, venue=venue, doi=doi, pmid=_text(meta.get("pmid")),
        arxiv_id=arxiv_id, path=one_line(entry.path) if entry.path else None,
        collection=one_line(entry.collection) if entry.collection else None,
        pages=tuple(sorted(document.pages)), accessed=_parse_date(meta.get("accessed")))


def works(report: ResearchResult) -> list[Work]:
    """The report's documents as bibliography records, in number order, keys unique."""
    published = {source.number: source.published for source in report.sources}
    used: set[str] = set()
    return [_work(document, published.get(document.numbers[0]), used)
            for document in report_documents(report, cited_order=False)]


# -------------------------------------------------------------------------------- RIS

_RIS_TYPES: dict[WorkKind, str] = {"article": "JOUR", "preprint": "UNPB", "webpage": "ELEC",
                                   "document": "GEN"}


def _ris_name(name: Name) -> str:
    return name.literal or (f"{name.family}, {name.given}" if name.given else name.family)


def ris_record(work: Work) -> dict[str, Any]:
    """One RIS record as rispy writes it (every value one line: RIS is line-based)."""
    record: dict[str, Any] = {"type_of_reference": _RIS_TYPES[work.kind], "id": work.key}
    if work.authors:
        record["authors"] = [_ris_name(name) for name in work.authors]
    record["title"] = work.title
    if work.date:
        record["year"] = str(work.date[0])
        parts = [f"{work.date[0]:04d}", *(f"{p:02d}" for p in work.date[1:])]
        record["date"] = "/".join((parts + ["", ""])[:3]) + "/"  # RIS: YYYY/MM/DD/other
    if work.venue:
        record["journal_name" if work.kind == "article" else "secondary_title"] = work.venue
    if work.doi:
        record["doi"] = work.doi
    if work.pmid:
        record["accession_number"] = f"PMID:{work.pmid}"
    if work.arxiv_id:
        record["number"] = f"arXiv:{work.arxiv_id}"
    if work.path:
        record["file_attachments1"] = work.path
    if work.accessed:
        record["access_date"] = "-".join(f"{p:02d}" for p in work.accessed)
    if work.url:
        record["urls"] = [work.url]
    record["notes"] = [work.note]
    return record


def _no_header(self: object, count: int) -> str:
    return ""


class RisExporter:
    """RIS records for reference managers (Zotero, EndNote, Mendeley)."""

    name = "ris"
    extension = ".ris"
    media_type = "application/x-research-info-systems"
    description = "RIS bibliography for Zotero, EndNote, Mendeley"

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        """One record per document of the Sources block."""
        rispy = importlib.import_module("rispy")  # a core dependency without type hints
        # rispy numbers records with a "1." line before each; RIS has no such line.
        writer = type("PlainRisWriter", (rispy.RisWriter,), {"set_header": _no_header})
        text = str(rispy.dumps([ris_record(work) for work in works(report)],
                               implementation=writer))
        return result_for(report, self, text.encode("utf-8"))


# --------------------------------------------------------------------------- CSL-JSON

_CSL_TYPES: dict[WorkKind, str] = {"article": "article-journal", "preprint": "article",
                                   "webpage": "webpage", "document": "document"}


def _csl_name(name: Name) -> dict[str, str]:
    if name.literal:
        return {"literal": name.literal}
    return {"family": name.family, "given": name.given} if name.given else {
        "family": name.family}


def csl_item(work: Work) -> dict[str, Any]:
    """One CSL-JSON item (the input format of citeproc, pandoc --citeproc and Zotero)."""
    item: dict[str, Any] = {"id": work.key, "type": _CSL_TYPES[work.kind],
                            "title": work.title}
    if work.url:
        item["URL"] = work.url
    item["note"] = work.note
    if work.authors:
        item["author"] = [_csl_name(name) for name in work.authors]
    if work.date:
        item["issued"] = {"date-parts": [list(work.date)]}
    if work.venue:
        item["container-title"] = work.venue
    if work.doi:
        item["DOI"] = work.doi
    if work.pmid:
        item["PMID"] = work.pmid
    if work.arxiv_id:
        item["number"] = f"arXiv:{work.arxiv_id}"
        item["publisher"] = "arXiv"
    if work.accessed:
        item["accessed"] = {"date-parts": [list(work.accessed)]}
    return item


class CslJsonExporter:
    """CSL-JSON items, for citeproc, pandoc ``--citeproc`` and reference managers."""

    name = "csl-json"
    extension = ".csl.json"  # not ".json": that is the structured result's export
    media_type = "application/vnd.citationstyles.csl+json"
    description = "CSL-JSON bibliography for citeproc, pandoc and Zotero"

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        """A JSON array of items, one per document of the Sources block."""
        items = [csl_item(work) for work in works(report)]
        text = json.dumps(items, ensure_ascii=False, indent=2) + "\n"
        return result_for(report, self, text.encode("utf-8"))
