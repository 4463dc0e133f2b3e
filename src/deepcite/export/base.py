"""What every exporter shares: options, results, the exporter protocol, file names.

Kept apart from :mod:`deepcite.export` (the registry and the public entry points) so
that the built-in exporter modules can import these types without importing the
registry that imports them.

The exporters start from the same two things so that every format reads the same
numbers: the Markdown of :func:`deepcite.export.markdown.to_markdown` (the body and its Sources
block) and the result's own sources, grouped into documents exactly as that block
groups them (:func:`source_documents`). No exporter renumbers anything.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from deepcite.citations import CITATION_LINK_MODES, hyperlink
from deepcite.citations.render import SourceDocument, source_documents
from deepcite.errors import ConfigError
from deepcite.export.inert import inert_markdown
from deepcite.export.markdown import to_markdown
from deepcite.security.terminal import one_line
from deepcite.types import ResearchResult, Source

if TYPE_CHECKING:
    from deepcite.config import Settings

#: The file name used when a title leaves nothing usable.
FALLBACK_STEM = "report"
#: Longest file name, extension included, in characters and in UTF-8 bytes (ext4 and
#: most other file systems stop at 255 bytes; a CJK title uses three per character).
MAX_NAME_CHARS = 100
MAX_NAME_BYTES = 240


@dataclass(frozen=True)
class ExportOptions:
    """How a report is exported, independent of the format.

    ``links`` is the ``citations.links`` mode: it labels citations in Markdown and the
    formats built from it (pandoc formats, Quarto) and labels the anchor links of HTML
    and PDF. ``show_findings`` adds how the answer was found (queries, phases).
    ``local_paths`` keeps local documents' ``file:`` URLs and paths.
    """

    links: str = "none"
    show_findings: bool = False
    #: Whether a local document keeps its ``file:`` URL and path (the CLI's user reads
    #: their own files); ``False`` for exports served to someone else (the web app),
    #: whom the server's paths tell nothing they may open: :func:`without_local_paths`.
    local_paths: bool = True

    def __post_init__(self) -> None:
        if self.links not in CITATION_LINK_MODES:
            raise ConfigError(f"Unknown citation link mode {self.links!r} - use one of "
                              f"{', '.join(CITATION_LINK_MODES)}")

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> ExportOptions:
        """Options from the effective settings, with ``overrides`` (CLI flags) on top.

        An override of ``None`` is a flag the user did not give and changes nothing.
        """
        options = cls(links=settings.citations.links)
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise ConfigError(f"Unknown export option {', '.join(unknown)} - known: "
                              f"{', '.join(known)}")
        given = {key: value for key, value in overrides.items() if value is not None}
        return dataclasses.replace(options, **given)

    @classmethod
    def for_run(cls, snapshot: Mapping[str, Any], fallback: Settings,
                **overrides: Any) -> ExportOptions:
        """Options for a stored run: the settings it was made with (its snapshot), so a
        report exports the same from the CLI, the API and the pages whatever the
        exporting machine's own settings are; ``fallback``'s where the snapshot has no
        usable value (a run stored before the setting existed), ``overrides`` on top."""
        options = cls.from_settings(fallback, **overrides)
        citations = snapshot.get("citations")
        links = citations.get("links") if isinstance(citations, Mapping) else None
        if overrides.get("links") is None and links in CITATION_LINK_MODES:
            options = dataclasses.replace(options, links=links)
        return options


@dataclass(frozen=True)
class ExportResult:
    """An exported report: its bytes, a file name safe on every OS, and its media type."""

    data: bytes
    filename: str
    media_type: str


@runtime_checkable
class Exporter(Protocol):
    """One export format; built-ins and plugins alike.

    ``extension`` includes the dot (``".md"``). Runtime-checkable so that what a plugin
    registers is checked when it is loaded, not when a user first exports with it.
    """

    name: str
    extension: str
    media_type: str
    description: str

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        """The report in this format; an :class:`~deepcite.errors.ExportError` if not."""
        ...


@runtime_checkable
class ChecksAvailability(Protocol):
    """An exporter that can say, without exporting, why it cannot run here.

    Optional for plugins; the built-ins that need an extra implement it so that
    ``deepcite exporters`` can say what to install.
    """

    def unavailable(self) -> str | None:
        """Why this exporter cannot run here (one line saying what to install), or None."""
        ...


# ------------------------------------------------------------------------ file names

# Characters no file system of Windows, macOS or Linux takes in a name, plus whitespace
# (kept out so names work unquoted in shells).
_UNSAFE_CHARS = frozenset('/\\:*?"<>|')
_SEPARATOR_RUN = re.compile(r"[\s\-]+")
# Names Windows keeps for devices, whatever the extension ("con.pdf" opens the console).
_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$"}
    | {f"{port}{digit}" for port in ("COM", "LPT") for digit in "0123456789¹²³"})
_TRIM = " .-"


def safe_filename(title: str, extension: str) -> str:
    """A file name for ``title`` that every OS accepts, ending in ``extension``.

    Titles come from models and documents, so anything may be in them: path separators
    (``../../etc/passwd``), characters Windows refuses, control and bidi-override
    characters that would disguise the extension, device names (``CON``). Letters of
    every script are kept; whitespace becomes ``-``; leading and trailing dots, dashes
    and spaces go; the name is cut to :data:`MAX_NAME_CHARS` characters and
    :data:`MAX_NAME_BYTES` UTF-8 bytes. Nothing left means ``report``.
    """
    kept = []
    for char in unicodedata.normalize("NFC", title):
        category = unicodedata.category(char)
        unsafe = char in _UNSAFE_CHARS or category[0] in "CZ"
        kept.append(" " if unsafe else char)
    stem = _SEPARATOR_RUN.sub("-", "".join(kept)).strip(_TRIM)
    stem = stem[:max(1, MAX_NAME_CHARS - len(extension))]
    budget = MAX_NAME_BYTES - len(extension.encode("utf-8"))
    while len(stem.encode("utf-8")) > budget:
        stem = stem[:-1]
    stem = stem.strip(_TRIM) or FALLBACK_STEM
    if stem.split(".", 1)[0].upper() in _RESERVED:
        stem = f"_{stem}"
    return f"{stem}{extension}"


def is_safe_filename(name: str) -> bool:
    """Whether ``name`` is already what :func:`safe_filename` would make of it."""
    stem, dot, extension = name.rpartition(".")
    if not dot:
        stem, extension = name, ""
    suffix = f".{extension}" if dot else ""
    return bool(stem) and safe_filename(stem, suffix) == name


# --------------------------------------------------------------------- shared pieces


def document_title(report: ResearchResult) -> str:
    """The title exports show: the report's own, else the question, on one line."""
    return one_line(report.title or report.question) or FALLBACK_STEM


def result_for(report: ResearchResult, exporter: Exporter, data: bytes) -> ExportResult:
    """``data`` as an :class:`ExportResult` named after the report's title."""
    return ExportResult(data=data, filename=safe_filename(document_title(report),
                                                          exporter.extension),
                        media_type=exporter.media_type)


def inert_report_markdown(report: ResearchResult, options: ExportOptions) -> str:
    """:func:`to_markdown` made inert (:func:`~deepcite.export.inert.inert_markdown`).

    The one place model text enters every exporter: images, links outside the
    allow-list and HTML tags are text from here on, before citation links (which may
    point at the report's own local files) are added.
    """
    return inert_markdown(to_markdown(report, show_findings=options.show_findings))


def report_markdown(report: ResearchResult, options: ExportOptions) -> str:
    """The Markdown export: the inert Markdown with citation links per ``options``."""
    return hyperlink(inert_report_markdown(report, options), report.sources, options.links)


_TITLE_LINE = re.compile(r"\A\s*# [^\n]*\n+")


def without_title(report: ResearchResult, markdown: str) -> str:
    """``markdown`` without the ``# title`` line :func:`to_markdown` puts on top.

    Formats with a title of their own (HTML ``<h1>``, document metadata, YAML front
    matter) set it from :func:`document_title`; keeping the line would show it twice.
    Without ``report.title`` there is no such line, and a heading the model wrote first
    is kept.
    """
    if not report.title:
        return markdown
    return _TITLE_LINE.sub("", markdown, count=1)


def report_documents(report: ResearchResult, *, cited_order: bool = True
                     ) -> list[SourceDocument]:
    """The report's sources grouped into documents as its Sources block groups them;
    ``cited_order`` orders them as the block does, otherwise by number."""
    return source_documents(report.sources, report.answer if cited_order else None)


def quiet_logger(name: str, level: int = logging.ERROR) -> None:
    """Keep a chatty library's log records below ``level`` off the user's terminal.

    WeasyPrint warns about every CSS property it ignores, fontTools about every font
    it subsets and pypandoc adds its own stderr handler; none of that helps a user who
    asked for a file. A level the application set on the logger itself is kept.
    """
    logger = logging.getLogger(name)
    if logger.level == logging.NOTSET:
        logger.setLevel(level)
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


# ----------------------------------------------------------------- local documents

#: The scheme of what stands for a local document's URL in an export without local
#: paths: no link anywhere (the exports' allow-list refuses it), read as where it is.
LOCAL_SCHEME = "collection:"
_WINDOWS_ABSOLUTE = re.compile(r"^[A-Za-z]:[\\/]|^\\\\")


def _local_path(url: str) -> str | None:
    """The file system path ``url`` names (a ``file:`` URL or an absolute path, as a
    material file's source has), else ``None``."""
    stripped = url.strip()
    if stripped[:5].lower() == "file:":
        return stripped.split("#", 1)[0]
    if stripped.startswith("/") or _WINDOWS_ABSOLUTE.match(stripped):
        return stripped
    return None


def _file_name(path: str) -> str:
    """The last part of ``path`` whatever OS wrote it (``%xx`` of a URL left as is)."""
    name = PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name
    return name or "document"


def without_local_paths(report: ResearchResult) -> ResearchResult:
    """``report`` with nothing of the exporting machine's file system in its sources.

    A local document's ``file:`` URL (or absolute path) becomes ``collection:NAME/FILE``
    (its collection and file name, a ``#page=`` kept), and its ``path`` metadata its
    file name, so every format - plugins too - shows where it is without the server's
    directories. Two files of one name in a collection stay two documents (a short
    digest of the path tells them apart); the answer and checks are untouched.
    """
    labels: dict[str, str] = {}
    taken: set[str] = set()
    sources: list[Source] = []
    for source in report.sources:
        paths = {url: path for url in (source.url, source.canonical_url)
                 if (path := _local_path(url)) is not None}
        if not paths:
            sources.append(source)
            continue
        meta = dict(source.metadata)
        collection = meta.get("collection")
        where = str(collection) if isinstance(collection, str) and collection else "local"

        def label(url: str, path: str, where: str = where) -> str:
            if path not in labels:
                name = f"{where}/{_file_name(path)}"
                if name in taken:
                    digest = hashlib.sha256(path.encode("utf-8")).hexdigest()[:8]
                    name = f"{name}~{digest}"
                taken.add(name)
                labels[path] = name
            fragment = url.strip().partition("#")[2]
            return LOCAL_SCHEME + labels[path] + (f"#{fragment}" if fragment else "")

        update: dict[str, object] = {
            field: label(url, paths[url]) for field, url in
            (("url", source.url), ("canonical_url", source.canonical_url)) if url in paths}
        if isinstance(meta.get("path"), str):
            meta["path"] = _file_name(meta["path"])
        update["metadata"] = meta
        sources.append(source.model_copy(update=update))
    return report.model_copy(update={"sources": sources})
