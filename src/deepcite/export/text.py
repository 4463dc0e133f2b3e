"""The text exports that need no converter: Markdown, Quarto and JSON."""

from __future__ import annotations

import datetime
import json
import re
import unicodedata

from deepcite.export.base import (
    ExportOptions,
    ExportResult,
    document_title,
    report_markdown,
    result_for,
    without_title,
)
from deepcite.export.inert import escape_shortcodes, inert_line, neutral_fence_info
from deepcite.export.markdown import to_json_dict
from deepcite.types import ResearchResult


class MarkdownExporter:
    """The Markdown report with its Sources block, as ``deepcite ask`` prints it."""

    name = "markdown"
    extension = ".md"
    media_type = "text/markdown; charset=utf-8"
    description = "Markdown with the Sources block (citations.links applies)"

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        """:func:`~deepcite.export.markdown.to_markdown`, citations linked per ``options.links``."""
        return result_for(report, self, report_markdown(report, options).encode("utf-8"))


class JsonExporter:
    """The whole structured result, for scripts and other tools."""

    name = "json"
    extension = ".json"
    media_type = "application/json"
    description = "the structured result: answer, sources with metadata, checks, metrics"

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        """:func:`deepcite.export.markdown.to_json_dict`, UTF-8 and indented; ``options`` unused."""
        text = json.dumps(to_json_dict(report), ensure_ascii=False, indent=2, default=str)
        return result_for(report, self, (text + "\n").encode("utf-8"))


# ----------------------------------------------------------------------------- Quarto

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def yaml_string(text: str) -> str:
    """``text`` as a double-quoted YAML scalar that no title can break out of.

    A JSON string is a valid YAML double-quoted scalar; characters YAML may read as
    line breaks or refuse (format and private-use characters, the byte order mark)
    are escaped too, so a title like ``a: "b"\\n---`` stays one value.
    """
    quoted = json.dumps(text, ensure_ascii=False)
    return "".join(f"\\u{ord(char):04x}" if unicodedata.category(char)[0] in "CZ"
                   and char != " " else char for char in quoted)


def quarto_body(markdown: str) -> str:
    """``markdown`` made inert for ``quarto render``.

    Quarto runs code cells (```` ```{python} ````), expands shortcodes
    (``{{< include /etc/passwd >}}``, ``{{< env SECRET >}}``) and reads YAML blocks
    anywhere in the body; a model's answer or a quoted page could hold any of them.
    Cell fences lose their braces (plain highlighted code), shortcodes are written in
    Quarto's escaped form (``{{{< x >}}}`` shows ``{{< x >}}``), a ``---`` line after a
    blank line becomes ``***`` (the same thematic break, but no YAML block), and a raw
    inline attribute `` `x`{=latex} `` is escaped. The report's Markdown is already
    inert (:func:`~deepcite.export.inert.inert_markdown` does all of this outside code,
    with the same helpers); here shortcodes are escaped in code blocks too, since Quarto
    expands them there.
    """
    text = escape_shortcodes(markdown)
    lines = []
    fence: str | None = None
    previous_blank = True
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence is None and match is not None:
            fence = match.group("fence")
            line = (f"{match.group('indent')}{fence}"
                    f"{neutral_fence_info(match.group('info'))}")
        elif fence is not None:
            if match is not None and match.group("fence").startswith(fence) \
                    and not match.group("info").strip():
                fence = None
        else:
            if line.rstrip() == "---" and previous_blank:
                line = "***"
            line = line.replace("`{=", "`\\{=")
        lines.append(line)
        previous_blank = not line.strip()
    return "\n".join(lines)


class QuartoExporter:
    """A Quarto document: YAML front matter, then the Markdown report, inert to render."""

    name = "quarto"
    extension = ".qmd"
    media_type = "text/markdown; charset=utf-8"
    description = "Quarto document (.qmd) with title and date, to render with quarto"

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        """Front matter (title, date, ``format: html``, no code execution), then the body.

        Quarto reads a front matter string as Markdown and expands shortcodes in it, so
        the title (a model's, or the user's question) is made inert as the body is
        (:func:`~deepcite.export.inert.inert_line`) before it is quoted for YAML; every
        other value here is fixed text.
        """
        body = quarto_body(without_title(report, report_markdown(report, options)))
        front = "\n".join([
            "---",
            f"title: {yaml_string(inert_line(document_title(report)))}",
            f"date: {yaml_string(datetime.date.today().isoformat())}",
            "format: html",
            "engine: markdown",
            "execute:",
            "  enabled: false",
            "---",
        ])
        return result_for(report, self, f"{front}\n\n{body.lstrip()}".encode())
