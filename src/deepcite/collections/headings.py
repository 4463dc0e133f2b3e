"""Find Markdown and reStructuredText headings in plain text, and the paths they form.

Both the loaders (a document's title is its first heading) and the chunker (each chunk
remembers the headings it sits under, so a citation can say *where* in a long file the
text came from) need the same notion of a heading, so it lives here once.

Only unindented lines count: indented ``# ...`` lines are code comments, and the
``|  ---`` rules pydoc draws inside class listings are not titles. reStructuredText
has no fixed adornment per level: the first adornment style met is level 1, the next
new one level 2, and so on, which is how docutils itself assigns levels.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

_MD_HEADING = re.compile(r"#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")
# Line patterns start with a literal "\n" (searched in "\n" + text), which the regex
# engine scans for quickly; a "^" in MULTILINE mode is tried at every character.
_MD_LINE = re.compile(r"\n(#{1,6}[ \t][^\n]*)")
_FENCE_LINE = re.compile(r"\n(?:```|~~~)")
# RST allows any of these punctuation characters as adornment; three or more of one kind.
_RST_ADORNMENT = re.compile(r"([=\-~^\"'`+#*:.<>_])\1{2,}[ \t]*")
_ADORNMENT_LINE = re.compile(r"\n(([=\-~^\"'`+#*:.<>_])\2{2,}[ \t]*)(?=\n|$)")


@dataclass(frozen=True)
class Heading:
    """A heading line: ``offset`` is where its title line starts in the text."""

    offset: int
    text: str
    style: Literal["markdown", "rst"]
    level: int


def _line_before(text: str, offset: int) -> tuple[int, str] | None:
    """Start and text of the line ending just before the line starting at ``offset``."""
    if offset == 0:
        return None
    start = text.rfind("\n", 0, offset - 1) + 1
    return start, text[start : offset - 1]


def _rst_candidates(text: str, shifted: str) -> list[tuple[int, str, str, bool, int]]:
    """``(offset, title, adornment, has overline, underline offset)`` per underlined title."""
    found = []
    for under in _ADORNMENT_LINE.finditer(shifted):
        above = _line_before(text, under.start())  # shifted by one: the line's offset
        if above is None:
            continue
        offset, line = above
        if not line.strip() or line[0].isspace() or _RST_ADORNMENT.fullmatch(line):
            continue
        if len(under.group(1).rstrip()) < len(line.rstrip()):
            continue
        # A title starts a block: text start, a blank line or an overline above it.
        before = _line_before(text, offset)
        overline = before is not None and _RST_ADORNMENT.fullmatch(before[1]) is not None
        if before is None or not before[1].strip() or overline:
            found.append((offset, line.strip(), under.group(2), overline, under.start()))
    return found


def find_headings(text: str) -> list[Heading]:
    """Every Markdown (``# Title``) and RST/setext (underlined) heading, in text order.

    Lines inside fenced code blocks are ignored so that shell comments in examples do
    not become section names. Candidates are found by whole-text regular expressions
    rather than line by line, because this runs over every indexed page.
    """
    shifted = "\n" + text  # a match at shifted[i] is a line starting at text[i]
    rst = _rst_candidates(text, shifted)
    # "~~~" right under a title is an RST underline, not a Markdown fence.
    underlines = {candidate[4] for candidate in rst if candidate[2] == "~"}
    fences = [m.start() for m in _FENCE_LINE.finditer(shifted)
              if m.start() not in underlines]
    fence_lines = set(fences)

    def in_fence(offset: int) -> bool:
        return bisect.bisect_left(fences, offset) % 2 == 1

    candidates: dict[int, Heading | tuple[str, str, bool]] = {}
    for offset, title, char, overline, _ in rst:
        candidates[offset] = (title, char, overline)
    for line in _MD_LINE.finditer(shifted):
        md = _MD_HEADING.fullmatch(line.group(1))
        if md and md.group(1).strip():
            level = len(line.group(1)) - len(line.group(1).lstrip("#"))
            candidates[line.start()] = Heading(line.start(), md.group(1).strip(), "markdown", level)
    found: list[Heading] = []
    rst_levels: dict[tuple[str, bool], int] = {}
    for offset in sorted(candidates):
        if fences and (in_fence(offset) or offset in fence_lines):
            continue
        candidate = candidates[offset]
        if isinstance(candidate, Heading):
            found.append(candidate)
            continue
        title, char, overline = candidate
        level = rst_levels.setdefault((char, overline), len(rst_levels) + 1)
        found.append(Heading(offset, title, "rst", level))
    return found


def heading_paths(headings: list[Heading]) -> list[tuple[str, ...]]:
    """For each heading, the titles of it and its enclosing headings, outermost first.

    A heading closes every open heading of the same or a deeper level, so
    ``# Install``, ``## On Linux``, ``## On macOS`` give ``("Install", "On macOS")``
    for the third. Levels may skip (``#`` then ``###``); nesting still follows order.
    """
    paths: list[tuple[str, ...]] = []
    stack: list[Heading] = []
    for heading in headings:
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        paths.append(tuple(h.text for h in stack))
    return paths


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
