"""Model text made inert before any exporter renders it: no images, no unsafe links.

The answer is Markdown written by a model that read untrusted pages, and every export
hands Markdown to something that acts on it: a Markdown viewer, Quarto, pandoc (whose
LaTeX writer turns ``![x](file:///etc/passwd)`` into ``\\includegraphics``), the HTML
renderer. An image is a request for a file or a server the moment the document is
opened or compiled, and a ``javascript:`` link runs when clicked, so both are taken out
here, once, for every format (:func:`deepcite.export.base.inert_report_markdown`):

* image syntax, inline or by reference (``![x](u)``, ``![x][r]``, ``![x]``), loses its
  meaning: ``!\\[x](u)`` shows the text the model wrote and fetches nothing;
* a link, an autolink or a reference definition whose target
  :func:`~deepcite.citations.hyperlinks.safe_link_url` refuses (any scheme but http,
  https and mailto, however it is spelt) becomes text the same way;
* a ``<`` opening an HTML tag becomes ``&lt;``, so ``<img>``, ``<iframe>`` and
  ``<object>`` are text for every renderer.

A user may also convert the ``.md`` with pandoc's *default* Markdown reader or with
Quarto, which read raw output, TeX and metadata in plain text, so these are text too:

* a backslash before an ASCII letter is escaped (``\\\\input`` shows ``\\input``;
  no raw TeX command), and ``$`` becomes ``\\$`` (no TeX math);
* a raw attribute after a code span or a fence (`` `x`{=html} ``) is escaped, and a
  fence's braced info string (```` ```{=latex} ````, ```` ```{python} ````, an
  executable Quarto cell) becomes its first word (```` ```latex ````);
* a ``---`` line after a blank line becomes ``***`` (the same thematic break, but no
  YAML metadata block), and a ``%`` opening the document is escaped (no title block);
* shortcodes are written in Quarto's escaped form (``{{{< x >}}}`` shows ``{{< x >}}``).

Metadata that Quarto reads as Markdown (a ``.qmd``'s ``title:``) gets the same
treatment, one line at a time, through :func:`inert_line`.

Fenced code blocks and one-line code spans are left as written (nothing in them is
rendered; only a fence's info string changes); anything the scanner cannot be sure is
code is treated as prose, so a doubt costs at most a visible backslash, never an image.
The pandoc formats also filter the parsed document (:mod:`deepcite.export.pandoc`), so
no Markdown reading the scanner did not foresee can reach a .tex or .docx.
"""

from __future__ import annotations

import functools
import importlib
import re
from typing import Any

from deepcite.citations.hyperlinks import safe_link_url

_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_EMAIL_AUTOLINK = re.compile(r"<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~\-]+@[A-Za-z0-9\-.]+>")
_TAG_START = re.compile(r"<[A-Za-z/!?]")
_BACKTICKS = re.compile(r"`+")
_TILDES = re.compile(r"~+")
_TEX_LETTER = re.compile(r"[A-Za-z]")
_RAW_ATTRIBUTE = re.compile(r"\{\s*=")
_FENCE_MARK = re.compile(r"(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_WORD = re.compile(r"[A-Za-z0-9_+#-]+")
_SHORTCODE_OPEN = re.compile(r"(?<!\{)\{\{(?=[<%])")
_SHORTCODE_CLOSE = re.compile(r"(?<=[>%])\}\}(?!\})")
# A "---" line that may open a YAML block: at the top level, in a block quote or a list.
_YAML_DELIMITER = re.compile(
    r"^(?P<prefix>[ \t>]*(?P<item>(?:[-*+]|\d{1,9}[.)]|#[.)]|[A-Za-z][.)])[ \t]+)?)"
    r"---[ \t]*$")
_BLANKISH = re.compile(r"^[ \t>]*$")


# What makes one line a block rather than text where metadata is read as Markdown:
# a heading, quote, list item, table or line block, setext/thematic mark, fence, or a
# definition; and an ordered-list number, letter or roman numeral with its "." or ")".
_BLOCK_MARK = re.compile(r"[#>+*\-|:=~%]|`{3}|\((?:\d{1,9}|[A-Za-z]|@\w*)\)|\[[^\]]*\]:")
_ORDINAL = re.compile(r"(?:\d{1,9}|[A-Za-z]|[ivxlcdmIVXLCDM]+)(?=[.)](?:\s|$))")


def inert_line(text: str) -> str:
    """``text`` on one line, inert as Markdown *inline* text: for the metadata that
    Quarto and pandoc read as Markdown (a ``.qmd``'s ``title:``), where a report's
    title or question lands.

    It gets the body's treatment (:func:`inert_markdown`: shortcodes escaped, tags,
    images, unsafe links, raw attributes, TeX and math made text), and a start that
    would make the value a block - ``# x``, ``- x``, ``1. x``, ``> x``, a fence, a
    reference definition - is escaped, so the title shows as the words it is.
    Applying it twice changes nothing more.
    """
    line = inert_markdown(" ".join(text.split()))
    if _BLOCK_MARK.match(line):
        return f"\\{line}"
    ordinal = _ORDINAL.match(line)
    if ordinal:
        return f"{line[:ordinal.end()]}\\{line[ordinal.end():]}"
    return line


def escape_shortcodes(text: str) -> str:
    """``text`` with Quarto (and Hugo) shortcodes in Quarto's escaped form.

    ``{{< include /etc/passwd >}}`` becomes ``{{{< include /etc/passwd >}}}``, which
    Quarto shows as the shortcode's text instead of running it; applying it twice
    changes nothing more.
    """
    return _SHORTCODE_CLOSE.sub("}}}", _SHORTCODE_OPEN.sub("{{{", text))


def neutral_fence_info(info: str) -> str:
    """A fence's info string without attributes: ``{=latex}`` (raw output), ``{python}``
    (an executable Quarto cell) or ``r {=html}`` become their first word, ``latex``,
    ``python``, ``r``; an info string without braces is kept."""
    if "{" not in info:
        return info
    word = _WORD.search(info)
    return word.group(0) if word else ""


def inert_markdown(markdown: str) -> str:
    """``markdown`` with images, unsafe link targets and HTML tags turned into text.

    Applying it twice changes nothing more; safe links and code are kept as they are.
    """
    lines = markdown.split("\n")
    fenced, openers = _fenced_lines(markdown)
    out: list[str] = []
    prose: list[str] = []
    previous_blank = True
    for number, line in enumerate(lines):
        if number in fenced:
            if prose:
                out.append(_inert_prose("\n".join(prose)))
                prose = []
            out.append(_neutral_opener(line) if number in openers else line)
        else:
            delimiter = _YAML_DELIMITER.match(line)
            if delimiter and (previous_blank or delimiter.group("item")):
                line = f"{delimiter.group('prefix')}***"  # a setext underline is kept
            prose.append(line)
        previous_blank = _BLANKISH.match(line) is not None
    if prose:
        out.append(_inert_prose("\n".join(prose)))
    text = "\n".join(out)
    return f"\\{text}" if text.startswith("%") else text


def _neutral_opener(line: str) -> str:
    """A fence's opening line (after any container markers) with its info neutral."""
    mark = _FENCE_MARK.search(line)
    if mark is None:
        return line
    return f"{line[:mark.start()]}{mark.group('fence')}{neutral_fence_info(mark.group('info'))}"


@functools.cache
def _block_parser() -> Any:
    # Imported on first use: importing deepcite.export loads no renderer.
    markdown_it = importlib.import_module("markdown_it")
    return markdown_it.MarkdownIt("commonmark").enable(["table"])


def _fenced_lines(markdown: str) -> tuple[set[int], set[int]]:
    """Line numbers inside fenced code blocks, as a CommonMark parser sees them, and
    the numbers of their opening lines."""
    lines: set[int] = set()
    openers: set[int] = set()
    for token in _block_parser().parse(markdown):
        if token.type == "fence" and token.map is not None:
            lines.update(range(token.map[0], token.map[1]))
            openers.add(token.map[0])
    return lines, openers


def _code_span_end(text: str, start: int, run: int) -> int | None:
    """Where a code span opened by ``run`` backticks at ``start`` ends, when it surely
    is one: closed by exactly ``run`` backticks on the same line, with no ``|`` in
    between (a table cell boundary comes first)."""
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    for closer in _BACKTICKS.finditer(text, start + run, line_end):
        if "|" in text[start:closer.start()]:
            return None
        if len(closer.group(0)) == run:
            return closer.end()
    return None


def _destination(text: str, start: int) -> str:
    """The link destination that begins at ``start`` (after ``(`` or ``]:``), read as
    CommonMark reads one: blanks and one line break skipped, then ``<...>`` or a run of
    non-blank characters with balanced parentheses (backslash escapes kept)."""
    index = start
    newlines = 0
    while index < len(text) and text[index] in " \t\n" and newlines <= 1:
        newlines += text[index] == "\n"
        index += 1
    if index < len(text) and text[index] == "<":
        end = text.find(">", index)
        stop = text.find("\n", index)
        if end >= 0 and (stop < 0 or end < stop):
            return text[index + 1:end]
    depth = 0
    begin = index
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            index += 2
            continue
        if char.isspace() or ord(char) < 32:
            break
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                break
            depth -= 1
        index += 1
    return text[begin:index]


def _inert_prose(text: str) -> str:
    """One run of lines outside fenced code, scanned left to right as a renderer does."""
    text = escape_shortcodes(text)
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            if _TEX_LETTER.match(text, index + 1):  # \input: a TeX command to pandoc
                out.append("\\\\")
                index += 1
                continue
            pair = 2 if index + 1 < len(text) and text[index + 1] in _PUNCTUATION else 1
            out.append(text[index:index + pair])
            index += pair
        elif char == "$":  # TeX math to pandoc, whether $x$ or $$x$$
            out.append("\\$")
            index += 1
        elif char in "`~":
            opener = (_BACKTICKS if char == "`" else _TILDES).match(text, index)
            run = len(opener.group(0)) if opener else 1
            end = _code_span_end(text, index, run) if char == "`" else None
            stop = end if end is not None else index + run
            out.append(text[index:stop])
            index = stop
            if _RAW_ATTRIBUTE.match(text, index):  # `x`{=html}: raw output to pandoc
                out.append("\\{")
                index += 1
        elif char == "<":
            autolink = _AUTOLINK.match(text, index) or _EMAIL_AUTOLINK.match(text, index)
            email = autolink is not None and autolink.re is _EMAIL_AUTOLINK
            if autolink is not None and (email or safe_link_url(autolink.group(1))):
                out.append(autolink.group(0))
                index = autolink.end()
            else:
                out.append("&lt;" if autolink or _TAG_START.match(text, index) else "<")
                index += 1
        elif char == "!" and text.startswith("[", index + 1):
            out.append("!\\[")
            index += 2
        elif char == "]" and text.startswith("(", index + 1):
            unsafe = safe_link_url(_destination(text, index + 2)) is None
            out.append("]\\(" if unsafe else "](")
            index += 2
        elif char == "]" and text.startswith(":", index + 1):
            unsafe = safe_link_url(_destination(text, index + 2)) is None
            out.append("]\\:" if unsafe else "]:")
            index += 2
        else:
            out.append(char)
            index += 1
    return "".join(out)
