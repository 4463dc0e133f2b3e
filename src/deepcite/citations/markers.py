"""Finding and cleaning ``[n]`` citation markers in model text.

Models write citations in several shapes: ``[1]``, ``[1, 2]``, ``[1][2]``, ``[1-3]``
and the full-width ``【1】``. Everything here reads them all, and :func:`clean_markers`
guarantees that every marker left in the text resolves to a known source: markers that
resolve to nothing are dropped and counted, never passed on.

A backslash-escaped bracket (``\\[99\\]``) is never a marker: that is how text quoted
from a source keeps its own brackets (a name list "Smith [99] [1-1000]") verbatim,
instead of having them renumbered or removed as if they were our citations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

# A bracket group holding only numbers, separated by commas, spaces or ranges.
_BODY = r"(\d+(?:\s*(?:[,;]|-|–)\s*\d+)*)"
# The one statement of a marker's shape, its numbers in group 1. Exporters that see
# escaped brackets as separate tokens (markdown-it) compile it without the escape check.
MARKER_SHAPE = r"(?:\[|【)\s*" + _BODY + r"\s*(?:\]|】)"
MARKER = re.compile(r"(?<!\\)" + MARKER_SHAPE)
# "\[5]": an escaped opening bracket with a bare closing one. Not a marker here, but
# other tools match "[5]" alone, so it is made fully escaped before they see it.
_HALF_ESCAPED = re.compile(r"\\\[(\s*" + _BODY + r"\s*)\]")
_MAX_RANGE = 50
# Code is not prose: `xs[1]` inside a code span or fenced block is an index, not a citation.
# An escaped backtick (quoted source text) opens no code span. The pattern starts with
# the literal backtick (the escape check follows it) so the regex engine can skip to
# backticks instead of trying both branches at every character of a long report.
_CODE = re.compile(r"`(?<!\\`)(?:``.*?(?:```|\Z)|[^`\n]*`)", re.DOTALL)


def sub_outside_code(pattern: re.Pattern[str], repl: Callable[[re.Match[str]], str],
                      text: str) -> str:
    """``pattern.sub(repl, text)`` on the prose only: code spans and blocks are kept as is."""
    parts: list[str] = []
    last = 0
    for code in _CODE.finditer(text):
        parts.append(pattern.sub(repl, text[last:code.start()]))
        parts.append(code.group(0))
        last = code.end()
    parts.append(pattern.sub(repl, text[last:]))
    return "".join(parts)


def prose_only(text: str) -> str:
    """``text`` with code spans and fenced blocks blanked out."""
    return _CODE.sub(lambda m: " " * len(m.group(0)), text)


def parse_numbers(group: str) -> list[int]:
    """The numbers of one marker's inside: ``"1, 3-5"`` -> ``[1, 3, 4, 5]`` (ranges up
    to a sane length; anything longer is read as its two ends)."""
    numbers: list[int] = []
    for part in re.split(r"\s*[,;]\s*", group.strip()):
        bounds = re.split(r"\s*[-–]\s*", part)
        # isdecimal, not isdigit: "²" is a digit int() refuses; 9 digits bound int() too
        readable = [b.isdecimal() and len(b) <= 9 for b in bounds]
        if len(bounds) == 2 and all(readable):
            low, high = int(bounds[0]), int(bounds[1])
            if low <= high and high - low <= _MAX_RANGE:
                numbers.extend(range(low, high + 1))
                continue
        numbers.extend(int(b) for b, ok in zip(bounds, readable, strict=True) if ok)
    return numbers


def cited_numbers(text: str) -> list[int]:
    """Numbers cited in ``text``, each once, in order of first appearance."""
    seen: dict[int, None] = {}
    for match in MARKER.finditer(prose_only(text)):
        for number in parse_numbers(match.group(1)):
            seen.setdefault(number, None)
    return list(seen)


def clean_markers(text: str, valid: Iterable[int]) -> tuple[str, int]:
    """Rewrite markers to canonical ``[n]`` form, dropping numbers not in ``valid``.

    Returns the new text and how many citation numbers were removed. A marker whose
    numbers are all invalid disappears together with the space before it.
    """
    allowed = set(valid)
    removed = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal removed
        numbers = parse_numbers(match.group(1))
        kept = [n for n in dict.fromkeys(numbers) if n in allowed]
        removed += len(numbers) - len(kept)
        return "".join(f"[{n}]" for n in kept)

    cleaned = sub_outside_code(_HALF_ESCAPED, lambda m: f"\\[{m.group(1)}\\]", text)
    cleaned = sub_outside_code(MARKER, replace, cleaned)
    cleaned = sub_outside_code(re.compile(r"(?<=\S)[ \t]+(?=[.,;:!?](?:\s|$))"),
                                lambda m: "", cleaned)
    cleaned = sub_outside_code(re.compile(r"(?<=\S)[ \t]{2,}(?=\S)"), lambda m: " ", cleaned)
    return cleaned, removed
