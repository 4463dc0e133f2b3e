"""Source text made readable for quoting, with a map back to where each character stood.

Sources are quoted verbatim, and verbatim documentation is full of markup a reader should
not have to parse: reST and Sphinx (````obj````, ``:py:data:`x```, ``:class:`~a.B```,
``.. versionchanged::``), table pipes and rules, pydoc's ``|`` gutter, Markdown emphasis
and links, HTML entities (``&gt;&gt;&gt;``). :func:`display_text` removes that noise and
collapses whitespace, and records for every character it keeps the span of the original
it came from. Citations keep pointing into the original (that is what verification
checks); :meth:`DisplayText.to_original` and :meth:`DisplayText.to_display` move a span
between the two texts, so a highlighted quote and its citation offsets agree.

Only markup is removed: every word of the clean text is a word of the original, except
the few labels that stand for a directive (``.. note::`` reads "Note:").
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# A piece of a rewrite: a span of the current text kept, or a label standing for the match.
_Piece = tuple[int, int] | str
_Rule = Callable[[re.Match[str]], Sequence[_Piece]]


@dataclass(frozen=True)
class DisplayText:
    """Clean ``text`` for display, and where each of its characters is in ``original``.

    Character ``i`` of ``text`` stands for ``original[starts[i]:ends[i]]`` (one
    character, or more for an entity "&gt;" or a collapsed run of spaces).
    """

    text: str
    original: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """The span of ``original`` that ``text[start:end]`` shows."""
        if not self.text:
            return 0, 0
        start, end = max(0, min(start, len(self.text))), max(0, min(end, len(self.text)))
        if end <= start:
            at = self.starts[start] if start < len(self.text) else self.ends[-1]
            return at, at
        return self.starts[start], self.ends[end - 1]

    def to_display(self, start: int, end: int) -> tuple[int, int]:
        """The span of ``text`` that shows what it kept of ``original[start:end]``."""
        first = bisect.bisect_right(self.ends, start)
        last = bisect.bisect_left(self.starts, end)
        return (first, last) if last > first else (first, first)

    def shown(self, start: int, end: int) -> str:
        """What ``original[start:end]`` reads as here: the one way a front end shows
        an evidence span (a popover's quote, the viewer's mark), so what it shows is
        always the cleaned form of exactly that span of the stored text."""
        first, last = self.to_display(start, end)
        return self.text[first:last].strip()


class _Builder:
    """The text being cleaned, with each character's original span."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = list(range(len(text)))
        self.ends = list(range(1, len(text) + 1))

    def rewrite(self, pattern: re.Pattern[str], rule: _Rule) -> None:
        """Replace every match of ``pattern`` by the pieces ``rule`` gives for it."""
        text, starts, ends = [], [], []
        cursor = 0
        for match in pattern.finditer(self.text):
            a, b = match.span()
            text.append(self.text[cursor:a])
            starts += self.starts[cursor:a]
            ends += self.ends[cursor:a]
            for piece in rule(match):
                if isinstance(piece, str):
                    low = self.starts[a] if a < len(self.starts) else self.ends[-1]
                    high = self.ends[b - 1] if b > a else low
                    text.append(piece)
                    starts += [low] * len(piece)
                    ends += [high] * len(piece)
                else:
                    text.append(self.text[piece[0]:piece[1]])
                    starts += self.starts[piece[0]:piece[1]]
                    ends += self.ends[piece[0]:piece[1]]
            cursor = b
        text.append(self.text[cursor:])
        starts += self.starts[cursor:]
        ends += self.ends[cursor:]
        self.text, self.starts, self.ends = "".join(text), starts, ends


def _group(name: int | str) -> _Rule:
    """Keep one group of the match (the text inside the markup)."""
    return lambda m: [m.span(name)] if m.group(name) else []


def _emphasis(match: re.Match[str]) -> list[_Piece]:
    """Emphasis loses its stars; a "match" that cuts a signature (``f(*args, **kw)``)
    is not emphasis and stays as it is."""
    inner = match.group("inner")
    if inner.count("(") != inner.count(")") or inner.count("[") != inner.count("]"):
        return [match.span()]
    return [match.span("inner")]


def _entity(match: re.Match[str]) -> list[_Piece]:
    decoded = html.unescape(match.group(0))
    return [decoded] if decoded != match.group(0) else [match.span()]


def _role(match: re.Match[str]) -> list[_Piece]:
    """``:class:`~a.B``` -> "B"; ``:ref:`Title <label>``` -> "Title"; else the target."""
    a, b = match.span("target")
    inner = match.group("target")
    titled = re.match(r"(.+?)\s*<[^<>]+>$", inner)
    if titled:
        return [(a, a + len(titled.group(1)))]
    if inner.startswith("~"):
        return [(a + (inner.rfind(".") + 1 if "." in inner else 1), b)]
    if inner.startswith("!"):
        return [(a + 1, b)]
    return [(a, b)]


_DIRECTIVE_LABELS = {
    "note": "Note:", "warning": "Warning:", "seealso": "See also:", "tip": "Tip:",
    "important": "Important:", "caution": "Caution:", "attention": "Attention:",
    "danger": "Danger:", "hint": "Hint:", "versionadded": "New in version",
    "versionchanged": "Changed in version", "deprecated": "Deprecated since version",
}
_VERSION_ENDS = {"versionadded": ".", "versionchanged": ":", "deprecated": ":"}


def _directive(match: re.Match[str]) -> list[_Piece]:
    """``.. note::`` -> "Note:"; ``.. versionadded:: 3.2`` -> "New in version 3.2";
    directives that show nothing readable (``code-block``, ``image``, targets, comments)
    go with their arguments."""
    label = _DIRECTIVE_LABELS.get(match.group("name").lower())
    if label is None:
        return []
    argument = match.group("argument").strip()
    if not argument:
        return [label]
    a = match.start("argument")
    pieces: list[_Piece] = [label, " ", (a, a + len(argument))]
    end = _VERSION_ENDS.get(match.group("name").lower())
    if end and " " not in argument:
        pieces.append(end)
    return pieces


def _field(match: re.Match[str]) -> list[_Piece]:
    """``:param int x:`` -> "x:"; ``:returns:`` -> "Returns:"; ``:raises X:`` -> "Raises X:"."""
    kind, rest = match.group("kind").lower(), match.group("rest")
    if kind.startswith("return") or kind == "rtype":
        return ["Returns:" if kind != "rtype" else "Return type:"]
    if kind.startswith("raise") or kind == "except":
        return ["Raises", " ", match.span("rest"), ":"] if rest else ["Raises:"]
    if rest:
        name_start = match.start("rest") + len(rest) - len(rest.split()[-1])
        return [(name_start, match.end("rest")), ":"]
    return []


def _table_row(match: re.Match[str]) -> list[_Piece]:
    """``| a | b |`` -> "a, b;": the cells, without the frame, a row ending in ";"."""
    a = match.start("cells")
    cells, cursor = match.group("cells"), a
    pieces: list[_Piece] = []
    for bar in re.finditer(r"\s*\|\s*", cells):
        pieces += [(cursor, a + bar.start()), ", "]
        cursor = a + bar.end()
    content = cells.rstrip()
    pieces += [(cursor, a + len(content)), ";"]
    return pieces


_RULES: list[tuple[re.Pattern[str], _Rule]] = [
    # HTML character references, twice for text escaped twice ("&amp;gt;").
    (re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"), _entity),
    (re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"), _entity),
    # pydoc's class gutter " |  " (a line with one bar, or a bar before a table row).
    (re.compile(r"^[ \t]*\|(?:[ \t]+(?=[|+])|(?![^\n]*\|[ \t]*$))", re.M), lambda m: []),
    # Table rules (grid "+---+", simple "=== ===", Markdown "|---|:--:|"), setext underlines.
    (re.compile(r"^[ \t]*(?:\+[-=+:]+\+|[=\-~^]{3,}(?:[ \t]+[=\-~^]{3,})*|"
                r"\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?)[ \t]*$", re.M),
     lambda m: []),
    # Table rows.
    (re.compile(r"^[ \t]*\|[ \t]*(?P<cells>.*?)\|[ \t]*$", re.M), _table_row),
    # reST directives and comments ("..  note::", ".. _label:", ".. code-block:: python").
    (re.compile(r"^[ \t]*\.\.[ \t]+(?:(?P<name>[\w:-]+)::[ \t]*(?P<argument>[^\n]*)|_[^\n]*|"
                r"\|[^\n]*|\[[^\n]*|(?P<comment>[^\n]*))$", re.M),
     lambda m: _directive(m) if m.group("name") else []),
    # Field lists (":param x: ...", ":returns: ...").
    (re.compile(r"^(?P<indent>[ \t]*):(?P<kind>param|parameter|arg|argument|key|keyword|type|"
                r"raises?|except|returns?|rtype|ivar|cvar|var)(?P<rest>[ \t][^:\n]*)?:", re.M),
     lambda m: [m.span("indent"), *_field(m)]),
    # Roles: :py:data:`x`, :class:`~a.B`, :ref:`Title <label>`.
    (re.compile(r"(?::[A-Za-z][\w.+-]*)+:`(?P<target>[^`\n]+)`"), _role),
    # Inline literals and interpreted text: ``obj``, `text <url>`_, `text`_, `x`.
    (re.compile(r"``(?P<inner>[^`\n]+?)``"), _group("inner")),
    (re.compile(r"`(?P<inner>[^`<\n]+?)\s*<[^`>\n]+>`__?"), _group("inner")),
    (re.compile(r"(?<![`\w])`(?P<inner>[^`\n]+)`(?:__?)?(?![`\w])"), _group("inner")),
    # Markdown images and links: ![alt](url) -> alt, [text](url) -> text.
    (re.compile(r"!?\[(?P<inner>[^\]\n]*)\]\([^)\s]+(?:\s+\"[^\"]*\")?\)"), _group("inner")),
    # Emphasis: **bold**, *emphasis*, __bold words__ (never *args or __init__).
    (re.compile(r"(?<![*\w\\])\*\*(?P<inner>[^\s*](?:[^*\n]*[^\s*])?)\*\*(?![*\w])"),
     _emphasis),
    (re.compile(r"(?<![*\w\\])\*(?P<inner>[^\s*](?:[^*\n]*[^\s*])?)\*(?![*\w])"),
     _emphasis),
    (re.compile(r"(?<![_\w])__(?P<inner>[^\s_][^_\n]*\s[^_\n]*[^\s_])__(?![_\w])"),
     _group("inner")),
    # reST's literal-block marker: "hierarchies::" -> "hierarchies:", a lone "::" goes.
    (re.compile(r"(?<=\S)::(?=[ \t]*$)", re.M), lambda m: [(m.start(), m.start() + 1)]),
    (re.compile(r"^[ \t]*::[ \t]*$", re.M), lambda m: []),
    # reST escapes ("\*" shows "*").
    (re.compile(r"\\(?P<char>[*_`|\\])"), _group("char")),
]
_SPACE = re.compile(r"\s+")
_CARRIAGE_RETURN = re.compile(r"\r\n?")
_PARAGRAPH_SPACE = re.compile(r"[ \t]*\n(?:[ \t]*\n)+\s*|\s+")


def display_text(text: str, *, keep_paragraphs: bool = False,
                 keep_lines: bool = False) -> DisplayText:
    """``text`` without display noise, whitespace collapsed (blank lines kept as one
    when ``keep_paragraphs``; every line, tab and run of spaces kept as it is, only
    ``\\r\\n`` read as ``\\n``, when ``keep_lines``: the source viewer's passage), with
    the map back to ``text``."""
    builder = _Builder(text)
    # CRLF first: the rules' line anchors ("$") would not see a line ending in "\r".
    builder.rewrite(_CARRIAGE_RETURN, lambda m: ["\n"])
    for pattern, rule in _RULES:
        builder.rewrite(pattern, rule)
    if not keep_lines:
        space = _PARAGRAPH_SPACE if keep_paragraphs else _SPACE
        builder.rewrite(space, lambda m: ["\n\n" if "\n\n" in _no_blanks(m.group(0))
                                          and keep_paragraphs else " "])
    lead = len(builder.text) - len(builder.text.lstrip())
    tail = len(builder.text.rstrip())
    return DisplayText(text=builder.text[lead:tail], original=text,
                       starts=tuple(builder.starts[lead:tail]),
                       ends=tuple(builder.ends[lead:tail]))


def _no_blanks(space: str) -> str:
    return re.sub(r"[ \t]+", "", space)


def clean_quote(text: str) -> str:
    """The readable form of ``text`` alone (see :func:`display_text`)."""
    return display_text(text).text
