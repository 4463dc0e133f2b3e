"""Find Markdown and reStructuredText headings in plain text.

Both the loaders (a document's title is its first heading) and the chunker (each chunk
remembers the heading it sits under, so a citation can say *where* in a long file the
text came from) need the same notion of a heading, so it lives here once.

Only unindented lines count: indented ``# ...`` lines are code comments, and the
``|  ---`` rules pydoc draws inside class listings are not titles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

_MD_HEADING = re.compile(r"#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")
_FENCE = re.compile(r"(```|~~~)")
# RST allows any of these punctuation characters as adornment; three or more of one kind.
_RST_ADORNMENT = re.compile(r"([=\-~^\"'`+#*:.<>_])\1{2,}[ \t]*")


@dataclass(frozen=True)
class Heading:
    """A heading line: ``offset`` is where its title line starts in the text."""

    offset: int
    text: str
    style: Literal["markdown", "rst"]
    level: int


def _lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    pos = 0
    for line in text.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def find_headings(text: str) -> list[Heading]:
    """Every Markdown (``# Title``) and RST/setext (underlined) heading, in text order.

    Lines inside fenced code blocks are ignored so that shell comments in examples do
    not become section names.
    """
    lines = _lines(text)
    found: list[Heading] = []
    in_fence = False
    for i, (offset, line) in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        md = _MD_HEADING.fullmatch(line)
        if md and md.group(1).strip():
            level = len(line) - len(line.lstrip("#"))
            found.append(Heading(offset, md.group(1).strip(), "markdown", level))
            continue
        if i + 1 < len(lines) and _is_rst_title(lines, i):
            underline = lines[i + 1][1].strip()
            found.append(Heading(offset, line.strip(), "rst", 1 if underline[0] == "=" else 2))
    return found


def _is_rst_title(lines: list[tuple[int, str]], i: int) -> bool:
    line = lines[i][1]
    under = lines[i + 1][1]
    if not line.strip() or line[0].isspace() or _RST_ADORNMENT.fullmatch(line):
        return False
    if not _RST_ADORNMENT.fullmatch(under) or len(under.rstrip()) < len(line.rstrip()):
        return False
    # A title starts a block: text start, a blank line or an overline above it.
    if i == 0:
        return True
    above = lines[i - 1][1]
    return not above.strip() or _RST_ADORNMENT.fullmatch(above) is not None


def markdown_title(text: str) -> str | None:
    """The first level-1 Markdown heading (``# Title``), if any."""
    for heading in find_headings(text):
        if heading.style == "markdown" and heading.level == 1:
            return heading.text
    return None


def rst_title(text: str) -> str | None:
    """The first underlined (RST/setext) heading, if any."""
    for heading in find_headings(text):
        if heading.style == "rst":
            return heading.text
    return None


def leading_title(text: str) -> str | None:
    """A heading on the first non-blank line (``# Title`` or an underlined title).

    Plain-text files get this stricter rule because a ``#`` line deeper in a ``.txt``
    file is more likely a comment than a title.
    """
    stripped = text.lstrip()
    skipped = len(text) - len(stripped)
    first_line_start = text.rfind("\n", 0, skipped) + 1
    head = "\n".join(text[first_line_start:].split("\n", 2)[:2])
    for heading in find_headings(head):
        return heading.text if heading.offset == 0 else None
    return None
