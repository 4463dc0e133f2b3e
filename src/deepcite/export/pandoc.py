"""Word, OpenDocument and LaTeX exports through pandoc (the ``pandoc`` extra).

pypandoc-binary ships the pandoc executable, so nothing else is needed. pandoc reads
the Markdown export, with the features that would let report text reach outside the
document turned off:

- ``--sandbox``: readers and writers touch no file and no network, so an image link
  in an answer cannot pull a local file or a tracker into the .docx;
- no raw HTML, raw TeX, raw attribute blocks or TeX math: a ``\\input{/etc/passwd}``
  in an answer is text in the .tex, not a command for whoever compiles it;
- no YAML metadata or title blocks in the body, no pandoc citations (``@name`` stays
  text): only the title set here from the result;
- the Markdown is the inert one every exporter starts from (no images, no links outside
  the allow-list), and the document pandoc parsed from it is filtered again before any
  writer sees it (:func:`inert_document`): images become their alt text, links whose
  target :func:`~deepcite.citations.hyperlinks.safe_link_url` refuses (``javascript:``,
  ``vbscript:``, ``data:``, remote ``file:``; bare URIs pandoc links itself included)
  become their text, raw TeX/HTML becomes code. So no ``\\includegraphics`` of a local
  file reaches a .tex, and no ``javascript:`` hyperlink a .docx or .odt.
"""

from __future__ import annotations

import importlib
import json
import logging
import re
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import unquote

from deepcite.citations import answer_body
from deepcite.citations.hyperlinks import safe_link_url
from deepcite.citations.markers import prose_only
from deepcite.errors import ExportError
from deepcite.export.base import (
    ExportOptions,
    ExportResult,
    document_title,
    quiet_logger,
    report_markdown,
    result_for,
    without_title,
)
from deepcite.security.terminal import one_line
from deepcite.types import ResearchResult

#: pandoc's Markdown reader with every escape hatch closed (see the module docstring).
READER = "markdown" + "".join(f"-{extension}" for extension in (
    "raw_html", "raw_tex", "raw_attribute", "tex_math_dollars", "tex_math_single_backslash",
    "tex_math_double_backslash", "yaml_metadata_block", "pandoc_title_block", "citations",
    "implicit_figures")) + "+autolink_bare_uris"
_LEVEL_ONE = re.compile(r"^ {0,3}#[ \t]", re.MULTILINE)
#: ``--sandbox`` arrived in pandoc 2.15.
MIN_PANDOC = (2, 15)


def _missing(label: str) -> str:
    return (f"{label} export needs pandoc - pip install 'deepcite[pandoc]' "
            "(pypandoc-binary ships pandoc)")


def load_pypandoc(label: str) -> ModuleType:
    """pypandoc with a usable pandoc, or an :class:`ExportError` saying what to install."""
    try:
        pypandoc = importlib.import_module("pypandoc")
    except ImportError as exc:
        raise ExportError(_missing(label)) from exc
    try:
        version = str(pypandoc.get_pandoc_version())
    except OSError as exc:  # pypandoc without the binary and no pandoc on PATH
        raise ExportError(_missing(label)) from exc
    parts = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
    if parts < MIN_PANDOC:
        raise ExportError(f"{label} export needs pandoc 2.15 or later, found {version} - "
                          "pip install 'deepcite[pandoc]'")
    quiet_logger("pypandoc")  # it would print pandoc's warnings on stderr itself
    return pypandoc


def pandoc_markdown(report: ResearchResult, options: ExportOptions) -> str:
    """The Markdown export without its title line, Sources entries kept on their lines.

    An entry of the Sources block is a title line and indented URL/collection lines;
    pandoc would join them into one line, so each gets a hard line break (`` \\``).
    """
    body, sources = answer_body(without_title(report, report_markdown(report, options)))
    lines = sources.split("\n")
    for index, line in enumerate(lines[:-1]):
        if line.strip() and lines[index + 1].strip() and not line.lstrip().startswith("#"):
            lines[index] = f"{line.rstrip()} \\"
    return body + "\n".join(lines)


_NO_ATTR: list[Any] = ["", [], []]


def _link_allowed(target: str, local_files: frozenset[str]) -> bool:
    """A link target the document may keep: the shared allow-list, with ``file:``
    only for the report's own local sources (not a path the model or a page wrote)."""
    if safe_link_url(target) is not None:
        return True
    return unquote(target) in local_files and safe_link_url(target, allow_file=True) is not None


def _inert_node(node: Any, local_files: frozenset[str]) -> Any:
    """One node of pandoc's JSON document, and everything under it, made inert."""
    if isinstance(node, list):
        return [_inert_node(item, local_files) for item in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("t")
    content = node.get("c")
    if kind == "Image" and isinstance(content, list) and len(content) == 3:
        # The alt text stays readable; nothing is fetched, embedded or \includegraphics'd.
        return {"t": "Span", "c": [_NO_ATTR, _inert_node(content[1], local_files)]}
    if kind == "Link" and isinstance(content, list) and len(content) == 3:
        target = content[2][0] if isinstance(content[2], list) and content[2] else ""
        if not isinstance(target, str) or not _link_allowed(target, local_files):
            return {"t": "Span", "c": [_NO_ATTR, _inert_node(content[1], local_files)]}
    if kind in ("RawInline", "RawBlock") and isinstance(content, list) and len(content) == 2:
        code = "Code" if kind == "RawInline" else "CodeBlock"
        return {"t": code, "c": [_NO_ATTR, str(content[1])]}
    return {key: _inert_node(value, local_files) for key, value in node.items()}


def inert_document(document_json: str, local_files: frozenset[str] = frozenset()) -> str:
    """pandoc's JSON document with images, unsafe links and raw blocks taken out.

    The last line of defence for the pandoc formats: it judges what pandoc actually
    parsed, whatever Markdown spelling produced it (bare URIs pandoc links itself
    included). ``local_files`` are the report's local source URLs, percent-decoded:
    the only ``file:`` links kept.
    """
    document = json.loads(document_json)
    document["blocks"] = _inert_node(document.get("blocks", []), local_files)
    document["meta"] = _inert_node(document.get("meta", {}), local_files)
    return json.dumps(document, ensure_ascii=False)


def local_sources(report: ResearchResult) -> frozenset[str]:
    """The report's ``file:`` source URLs, percent-decoded, as :func:`inert_document`
    compares them."""
    # Links open the URL as found; its canonical form names the same file, so it may too.
    urls = [url for source in report.sources for url in (source.url, source.canonical_url)]
    return frozenset(unquote(url.strip()) for url in urls
                     if url.strip().lower().startswith("file:"))


class PandocExporter:
    """A format pandoc writes from the Markdown export."""

    def __init__(self, name: str, to: str, extension: str, media_type: str, label: str,
                 description: str, *, binary: bool, standalone: bool = False) -> None:
        self.name = name
        self.extension = extension
        self.media_type = media_type
        self.description = description
        self.label = label
        self._to = to
        self._binary = binary
        self._standalone = standalone

    def unavailable(self) -> str | None:
        """Why pandoc cannot run here, or None."""
        try:
            load_pypandoc(self.label)
        except ExportError as exc:
            return str(exc)
        return None

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        """Convert with pandoc; its failure is an :class:`ExportError` quoting it."""
        pypandoc = load_pypandoc(self.label)
        markdown = pandoc_markdown(report, options)
        # "--metadata=KEY:VALUE" splits at the first ":" and takes VALUE as a literal
        # string, so a title with colons or Markdown in it stays exactly the title -
        # except "true"/"false", which become booleans (no title): a zero-width space
        # keeps those a string.
        title = document_title(report)
        if title.lower() in ("true", "false"):
            title += "\u200b"
        args = [f"--metadata=title:{title}"]
        if not _LEVEL_ONE.search(prose_only(markdown)):
            # Reports start at "##" under their title: make those the document's
            # sections (Heading 1, \section) instead of leaving level 1 unused.
            args.append("--shift-heading-level-by=-1")
        writer_args = ["--standalone"] if self._standalone else []
        try:
            parsed = pypandoc.convert_text(markdown, "json", format=READER, extra_args=args,
                                           sandbox=True)
            document = inert_document(str(parsed), local_sources(report))
            if not self._binary:
                text = pypandoc.convert_text(document, self._to, format="json",
                                             extra_args=writer_args, sandbox=True)
                return result_for(report, self, str(text).encode("utf-8"))
            with tempfile.TemporaryDirectory(prefix="deepcite-export-") as folder:
                target = Path(folder) / f"report{self.extension}"
                pypandoc.convert_text(document, self._to, format="json",
                                      extra_args=writer_args, outputfile=str(target),
                                      sandbox=True)
                return result_for(report, self, target.read_bytes())
        except (RuntimeError, OSError) as exc:
            logging.getLogger(__name__).debug("pandoc failed", exc_info=True)
            detail = one_line(str(exc))[:300]
            raise ExportError(f"pandoc could not write the {self.label} ({detail}) - try "
                              "another format, or report this with the Markdown export"
                              ) from exc


def docx() -> PandocExporter:
    """Word (.docx) through pandoc."""
    return PandocExporter(
        "docx", "docx", ".docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "DOCX",
        "Word document (needs deepcite[pandoc])", binary=True)


def odt() -> PandocExporter:
    """OpenDocument text (.odt) through pandoc."""
    return PandocExporter(
        "odt", "odt", ".odt", "application/vnd.oasis.opendocument.text", "ODT",
        "OpenDocument text for LibreOffice (needs deepcite[pandoc])", binary=True)


def latex() -> PandocExporter:
    """A standalone LaTeX document through pandoc."""
    return PandocExporter(
        "latex", "latex", ".tex", "application/x-tex", "LaTeX",
        "standalone LaTeX; compile with xelatex for CJK (needs deepcite[pandoc])",
        binary=False, standalone=True)
