"""Cutting a material into pieces that fit a limit without losing any of its text.

Two callers need it: the map-reduce summary (chunks of at most N estimated tokens, the
next one starting a little before the previous one ends, so a sentence cut at the
boundary is seen whole once) and the evidence passages (pieces of at most N
characters, no overlap). Both cut at the best boundary in the second half of the room
they have: a blank line (paragraph), else a sentence end (``.!?`` before a space, or a
full-width ``。！？`` which needs none), else any whitespace, else a CJK clause mark
(``，、；：``), else - one huge "word", such as a sentence of Chinese without
punctuation - exactly at the limit. Pieces are ``(start, end)`` offsets into the text,
and consecutive pieces always meet or overlap, so no character is ever lost.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from deepcite.collections.chunking import TokenCounter
from deepcite.text.sentences import SENTENCE_END

_WHITESPACE = re.compile(r"\s+")
_CLAUSE = re.compile(r"[，、；：,;:]")


def _last_end(pattern: re.Pattern[str], text: str, lo: int, hi: int) -> int | None:
    end = None
    for match in pattern.finditer(text, lo, hi):
        end = match.end()
    return end


def break_before(text: str, start: int, hard: int) -> int:
    """Where to end a piece that starts at ``start`` and may not pass ``hard``.

    Only the second half of ``[start, hard)`` is searched, so pieces never shrink to
    slivers; ``hard`` itself is returned when that half holds no boundary at all.
    """
    lo = start + (hard - start) // 2
    if lo >= hard:
        return hard
    paragraph = text.rfind("\n\n", lo, hard)
    if paragraph >= 0:
        return paragraph + 2
    for pattern in (SENTENCE_END, _WHITESPACE, _CLAUSE):
        # A window at the end is enough to find the last match; widen it when it is not.
        window = 4096
        while True:
            found = _last_end(pattern, text, max(lo, hard - window), hard)
            if found is not None and found > lo:
                return found
            if hard - window <= lo:
                break
            window *= 8
    return hard


def _pieces(text: str, limit: Callable[[int], int], overlap: Callable[[int, int], int]
            ) -> list[tuple[int, int]]:
    """Spans from ``limit(start)`` (the hard end) and ``overlap(start, end)`` (next start)."""
    size = len(text)
    spans: list[tuple[int, int]] = []
    start = 0
    while start < size:
        hard = limit(start)
        end = size if hard >= size else break_before(text, start, hard)
        spans.append((start, end))
        if end >= size:
            break
        following = overlap(start, end)
        start = following if start < following <= end else end
    return spans


def chunk_spans(text: str, max_tokens: int, overlap_tokens: int = 0) -> list[tuple[int, int]]:
    """Chunks of at most ``max_tokens`` estimated tokens covering all of ``text``.

    Each chunk after the first starts about ``overlap_tokens`` before the previous one
    ended (at a word start where there is one), so ``text[start:end]`` of consecutive
    chunks overlap; with ``overlap_tokens=0`` they just meet.
    """
    if not text:
        return []
    count = TokenCounter(text)
    budget = max(1, max_tokens)

    def limit(start: int) -> int:
        return count.fit(start, len(text), budget)

    def overlap(start: int, end: int) -> int:
        if overlap_tokens <= 0:
            return end
        back = count.back(start, end, min(overlap_tokens, budget // 4))
        space = _WHITESPACE.search(text, back, end)
        return space.end() if space and space.end() < end else back

    return _pieces(text, limit, overlap)


def chunk_text(text: str, max_tokens: int, overlap_tokens: int = 0) -> list[str]:
    """The texts of :func:`chunk_spans`."""
    return [text[start:end] for start, end in chunk_spans(text, max_tokens, overlap_tokens)]


def passage_spans(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Non-overlapping pieces of ``text[start:end]`` of at most ``max_chars`` characters.

    Whitespace at either end of a piece is left out (and blank pieces dropped), so every
    piece is readable text; every other character of the range is in exactly one piece.
    """
    region = text[start:end]
    size = max(1, max_chars)
    spans: list[tuple[int, int]] = []
    for s, e in _pieces(region, lambda pos: pos + size, lambda _s, e: e):
        while s < e and region[s].isspace():
            s += 1
        while e > s and region[e - 1].isspace():
            e -= 1
        if s < e:
            spans.append((start + s, start + e))
    return spans
