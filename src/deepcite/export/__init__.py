"""Exporting a research result: Markdown, HTML, PDF, Word, ODT, LaTeX, Quarto, RIS,
BibTeX, CSL-JSON and JSON, plus plugin formats.

Formats are named through :class:`deepcite.plugins.Registry` like every other
pluggable kind: ``md``, ``Markdown`` and ``markdown`` are the same format, an unknown
name is a :class:`~deepcite.errors.ConfigError` naming the closest ones, and plugins
register an exporter (a class, an instance or a factory building one) in the
``deepcite.exporters`` entry point group; they cannot take a built-in's name, so
installing a package never changes what ``--format pdf`` writes.

Importing this package needs none of the optional extras: the PDF exporter imports
WeasyPrint (``deepcite[pdf]``) and the Word/ODT/LaTeX exporters pypandoc
(``deepcite[pandoc]``) only when they export, and a missing one is an
:class:`~deepcite.errors.ExportError` saying what to install.

Every output passes :func:`export_report`'s checks: at most :data:`MAX_EXPORT_BYTES`,
and a file name that is safe on every OS, whoever wrote the exporter.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, replace

from deepcite.errors import ConfigError, DeepciteError, ExportError
from deepcite.export.base import (
    ChecksAvailability,
    Exporter,
    ExportOptions,
    ExportResult,
    document_title,
    is_safe_filename,
    safe_filename,
    without_local_paths,
)
from deepcite.export.markdown import to_json_dict, to_markdown
from deepcite.plugins import EXPORTERS_GROUP, Registry
from deepcite.types import ResearchResult

#: The largest export :func:`export_report` hands back; a bigger one is an ExportError.
MAX_EXPORT_BYTES = 50 * 1024 * 1024

DEFAULT_EXPORTER = "markdown"

#: name -> "module:attribute" (a class or a factory); imported on first use, so a
#: format's dependencies are loaded only when it is used.
EXPORTERS: dict[str, str] = {
    "markdown": "deepcite.export.text:MarkdownExporter",
    "html": "deepcite.export.html:HtmlExporter",
    "pdf": "deepcite.export.pdf:PdfExporter",
    "docx": "deepcite.export.pandoc:docx",
    "odt": "deepcite.export.pandoc:odt",
    "latex": "deepcite.export.pandoc:latex",
    "quarto": "deepcite.export.text:QuartoExporter",
    "ris": "deepcite.export.bibliography:RisExporter",
    "bibtex": "deepcite.export.bibtex:BibtexExporter",
    "csl-json": "deepcite.export.bibliography:CslJsonExporter",
    "json": "deepcite.export.text:JsonExporter",
}
#: File extensions and other names people type for the built-ins.
ALIASES: dict[str, str] = {
    "md": "markdown", "htm": "html", "word": "docx", "tex": "latex", "qmd": "quarto",
    "bib": "bibtex", "csl": "csl-json",
}

HINT = "See `deepcite exporters`"

#: What an exporter must have, for messages naming what a plugin's lacks.
EXPORTER_MEMBERS: tuple[str, ...] = ("name", "extension", "media_type", "description",
                                     "export")


def _exporter(name: str, obj: object) -> Exporter:
    """``obj`` as an :class:`Exporter`, or a ConfigError saying why it is not one.

    A class or a factory is called without arguments; an instance is used as it is.
    The result must have every member of the protocol, checked here so that a broken
    plugin is reported when it is loaded (and listed as unusable), not mid-export.
    """
    origin = EXPORTER_REGISTRY.origin(name)
    built = obj
    if isinstance(obj, type) or (callable(obj) and not isinstance(obj, Exporter)):
        try:
            built = obj()
        except Exception as exc:  # a broken plugin costs only its own entry
            raise ConfigError(f"The exporter {name!r} ({origin}) cannot be built "
                              f"({type(exc).__name__}: {exc}) - see "
                              "deepcite.export.Exporter") from exc
    if isinstance(built, Exporter) and callable(getattr(built, "export", None)):
        return built
    missing = [member for member in EXPORTER_MEMBERS if not hasattr(built, member)]
    raise ConfigError(f"The exporter {name!r} ({origin}) is not an exporter: "
                      f"{type(built).__name__} lacks {', '.join(missing) or 'export()'} - "
                      "see deepcite.export.Exporter")


EXPORTER_REGISTRY: Registry[Exporter] = Registry(
    "export format", group=EXPORTERS_GROUP, builtins=EXPORTERS, aliases=ALIASES,
    check=_exporter, hint=HINT,
)
"""Every export format; see :class:`deepcite.plugins.Registry`."""


@dataclass(frozen=True)
class ExporterStatus:
    """One row of ``deepcite exporters``."""

    name: str
    usable: bool
    #: What the format is, or why it cannot be used here (what to install).
    description: str
    #: The file extension, dot included; empty when the exporter cannot be loaded.
    extension: str
    builtin: bool


def get_exporter(name: str) -> Exporter:
    """The exporter registered as ``name`` (any spelling or alias).

    An unknown name is a :class:`ConfigError` naming the closest known formats; a
    plugin that cannot be loaded is one naming the plugin.
    """
    return EXPORTER_REGISTRY.load(name)


def export_report(report: ResearchResult, fmt: str = DEFAULT_EXPORTER,
                  options: ExportOptions | None = None) -> ExportResult:
    """``report`` in format ``fmt``, checked for size and file name.

    Raises :class:`ConfigError` for an unknown format and :class:`ExportError` when the
    format's extra is missing, its converter fails, or the output is larger than
    :data:`MAX_EXPORT_BYTES`.
    """
    exporter = get_exporter(fmt)
    options = options or ExportOptions()
    # Here, not in each exporter, so a plugin format cannot leak the server's paths.
    shown = report if options.local_paths else without_local_paths(report)
    result = exporter.export(shown, options)
    if not isinstance(result, ExportResult) or not isinstance(result.data, bytes):
        raise ExportError(f"The exporter {fmt!r} returned {type(result).__name__}, not an "
                          "ExportResult with bytes - fix or uninstall the plugin that "
                          "provides it")
    limit = MAX_EXPORT_BYTES
    if len(result.data) > limit:
        raise ExportError(f"The {exporter.name} export is {_size(len(result.data))}, over the "
                          f"{_size(limit)} limit - export fewer sources or sections "
                          "(research.max_sources, report.max_sections)")
    if not is_safe_filename(result.filename):
        result = replace(result, filename=safe_filename(document_title(report),
                                                        exporter.extension))
    return result


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB"
    if count >= 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count} bytes"


def exporter_status(name: str) -> ExporterStatus:
    """Whether the format ``name`` can export here, and why not; no exception for a
    missing extra or a broken plugin (a :class:`ConfigError` for an unknown name).

    Cheaper than :func:`exporter_statuses` when one format is asked for: only that
    format's library is imported (WeasyPrint alone takes a second).
    """
    key = EXPORTER_REGISTRY.resolve(name)
    builtin = EXPORTER_REGISTRY.is_builtin(key)
    try:
        exporter = EXPORTER_REGISTRY.load(key)
    except DeepciteError as exc:
        return ExporterStatus(key, False, str(exc), "", builtin)
    why = exporter.unavailable() if isinstance(exporter, ChecksAvailability) else None
    description = str(getattr(exporter, "description", "") or
                      (inspect.getdoc(exporter) or "").split("\n", 1)[0])
    return ExporterStatus(key, why is None, why or description, str(exporter.extension),
                          builtin)


def exporter_statuses() -> list[ExporterStatus]:
    """Every format, built-ins first, and whether it can export here.

    A format whose extra is missing, or a plugin that cannot be loaded, is a row saying
    why rather than an error, so one broken package cannot hide the other formats.
    """
    return [exporter_status(name) for name in EXPORTER_REGISTRY.names()]


__all__ = [
    "ALIASES",
    "DEFAULT_EXPORTER",
    "EXPORTERS",
    "EXPORTER_REGISTRY",
    "MAX_EXPORT_BYTES",
    "ChecksAvailability",
    "ExportError",
    "ExportOptions",
    "ExportResult",
    "Exporter",
    "ExporterStatus",
    "export_report",
    "exporter_status",
    "exporter_statuses",
    "get_exporter",
    "is_safe_filename",
    "safe_filename",
    "to_json_dict",
    "to_markdown",
]
