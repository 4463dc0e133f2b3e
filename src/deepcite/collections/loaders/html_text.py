"""Visible text of an HTML or XHTML document, with headings kept as ``#`` lines.

Used where trafilatura's boilerplate removal would do harm: EPUB chapters (every word
of a book is content) and web pages on which trafilatura found nothing. Headings
``<h1>``-``<h6>`` become Markdown heading lines, so the chunker records the section
path of every passage exactly as it does for Markdown files.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

_TITLE_TAG = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_HEADING_TAG = re.compile(r"h([1-6])")


class _TextCollector(HTMLParser):
    """Collects paragraphs: block elements break paragraphs, headings become ``#`` lines."""

    _SKIP = frozenset({"script", "style", "title", "noscript", "template", "head"})
    _BLOCK = frozenset(
        {"p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "pre",
         "blockquote", "header", "footer", "dd", "dt", "figcaption", "aside", "nav", "hr"}
    )
    _CELL = frozenset({"td", "th"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0
        self._heading_level = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        heading = _HEADING_TAG.fullmatch(tag)
        if tag in self._SKIP:
            self._skipping += 1
        elif heading and not self._skipping:
            self._heading_level = int(heading.group(1))
            self.parts.append("\n\n" + "#" * self._heading_level + " ")
        elif tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._BLOCK:  # <br/> and <hr/> in XHTML never get an end tag
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self._skipping:
            self._skipping -= 1
        elif _HEADING_TAG.fullmatch(tag) and self._heading_level:
            self._heading_level = 0
            self.parts.append("\n\n")
        elif tag in self._BLOCK:
            self.parts.append("\n\n")
        elif tag in self._CELL:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            # A heading must stay on one line to be recognised as a heading.
            self.parts.append(data.replace("\n", " ") if self._heading_level else data)

    def text(self) -> str:
        joined = "".join(self.parts)
        paragraphs = (" ".join(p.split()) for p in re.split(r"\n\s*\n", joined))
        # Drop headings left empty (an <h2> holding only an image).
        return "\n\n".join(p for p in paragraphs if p and p.strip("# "))


def html_to_text(markup: str) -> str:
    """Visible text of ``markup``: paragraphs separated by blank lines, headings as ``#``."""
    collector = _TextCollector()
    collector.feed(markup)
    collector.close()
    return collector.text()


def html_title(markup: str) -> str | None:
    """The document's ``<title>``, whitespace collapsed, or ``None`` if absent or empty."""
    match = _TITLE_TAG.search(markup)
    if not match:
        return None
    title = " ".join(html.unescape(match.group(1)).split())
    return title or None
