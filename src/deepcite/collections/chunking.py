"""Split page text into overlapping chunks that stay exact slices of the page.

Chunks are what the index stores and what a search returns as a snippet, so they must
be short enough to hand to a small model yet whole enough to be read on their own:
they break at paragraph boundaries (blank lines) where they can, at line and word
boundaries when a paragraph is too long, and mid-word only for a "word" longer than a
chunk. Consecutive chunks overlap by the tail of the previous one, starting at a word
boundary, so a sentence cut at a boundary is still found whole in one of them.

Every chunk keeps ``start``/``end`` offsets with ``page_text[start:end] == chunk.text``,
so a citation can be traced back to the exact characters of the extracted page.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from deepcite.collections.headings import find_headings
from deepcite.collections.loaders import LoadedDocument

TARGET_CHARS = 1000
OVERLAP_CHARS = 150

_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")
_LINE = re.compile(r"[^\n]+")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Chunk:
    """A slice ``[start, end)`` of one page's text, with the heading it sits under."""

    text: str
    start: int
    end: int
    page: int | None
    heading: str | None


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _paragraphs(text: str) -> Iterator[tuple[int, int]]:
    pos = 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        span = _trim(text, pos, match.start())
        if span:
            yield span
        pos = match.end()
    span = _trim(text, pos, len(text))
    if span:
        yield span


def _words(text: str, start: int, end: int, limit: int) -> Iterator[tuple[int, int]]:
    """Word-boundary pieces of ``[start, end)`` up to ``limit``; longer words are cut."""
    piece: tuple[int, int] | None = None
    for match in _WORD.finditer(text, start, end):
        w_start, w_end = match.span()
        if piece and w_end - piece[0] <= limit:
            piece = (piece[0], w_end)
            continue
        if piece:
            yield piece
            piece = None
        while w_end - w_start > limit:
            yield (w_start, w_start + limit)
            w_start += limit
        piece = (w_start, w_end)
    if piece:
        yield piece


def _units(text: str, limit: int) -> Iterator[tuple[int, int]]:
    """Paragraphs, with overlong ones broken into lines and overlong lines into words."""
    for p_start, p_end in _paragraphs(text):
        if p_end - p_start <= limit:
            yield (p_start, p_end)
            continue
        for match in _LINE.finditer(text, p_start, p_end):
            line = _trim(text, *match.span())
            if line is None:
                continue
            if line[1] - line[0] <= limit:
                yield line
            else:
                yield from _words(text, line[0], line[1], limit)


def _overlap_start(text: str, prev: tuple[int, int], overlap: int) -> int | None:
    """First word start within the last ``overlap`` characters of the previous chunk."""
    prev_start, prev_end = prev
    for pos in range(max(prev_end - overlap, prev_start + 1), prev_end):
        if not text[pos].isspace() and text[pos - 1].isspace():
            return pos
    return None


def chunk_text(
    text: str,
    *,
    page: int | None = None,
    target: int = TARGET_CHARS,
    overlap: int = OVERLAP_CHARS,
) -> list[Chunk]:
    """Chunks of ``text`` about ``target`` characters long, overlapping by ``overlap``.

    Units are packed greedily while the chunk, overlap included, stays within
    ``target``; a unit is never longer than ``target - overlap``, so chunks only exceed
    ``target`` by the whitespace between units. A heading starts a new chunk unless the
    current one is still small, so a chunk's ``heading`` usually describes all of it.
    """
    if target < 1 or overlap < 0:
        raise ValueError("target must be positive and overlap non-negative")
    limit = max(1, target - overlap)
    units = list(_units(text, limit))
    headings = find_headings(text)
    heading_offsets = [h.offset for h in headings]
    heading_starts = set(heading_offsets)
    chunks: list[Chunk] = []
    prev: tuple[int, int] | None = None
    i = 0
    while i < len(units):
        first = units[i][0]
        carried = _overlap_start(text, prev, overlap) if prev and overlap else None
        start = first if carried is None else carried
        end = units[i][1]
        i += 1
        while i < len(units) and units[i][1] - start <= target:
            if units[i][0] in heading_starts and end - start >= target // 3:
                break  # start a new section in a new chunk, unless this one is tiny
            end = units[i][1]
            i += 1
        at = bisect.bisect_right(heading_offsets, first) - 1
        heading = headings[at].text if at >= 0 else None
        chunks.append(Chunk(text[start:end], start, end, page, heading))
        prev = (start, end)
    return chunks


def chunk_document(
    document: LoadedDocument, *, target: int = TARGET_CHARS, overlap: int = OVERLAP_CHARS
) -> list[Chunk]:
    """Chunks of every page of ``document``, in page order; offsets are per page."""
    chunks: list[Chunk] = []
    for page in document.pages:
        chunks.extend(chunk_text(page.text, page=page.page, target=target, overlap=overlap))
    return chunks
