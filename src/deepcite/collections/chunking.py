"""Split page text into overlapping, token-sized chunks that stay exact slices of the page.

Chunks are what the index stores and what a search returns as a snippet, so they must
be short enough to hand to a small model yet whole enough to be read on their own:
they break at headings and paragraph boundaries (blank lines) where they can, at line
and word boundaries when a paragraph is too long, and mid-word only for a "word"
longer than a chunk. Chinese and Japanese have no spaces, so their full-width sentence
ends (。！？) count as word boundaries too. Consecutive chunks overlap by the tail of
the previous one, starting at a word boundary, so a sentence cut at a boundary is still
found whole in one of them. Pages are never merged: a chunk belongs to one page.

Sizes are in *approximate tokens*, because what matters is how much of a model's
context a chunk takes. The estimate is four characters per token (the usual figure
for English with GPT-style tokenizers), except that each CJK character counts as one
token - a words-times-1.3 rule would see a whole Chinese paragraph as one word.

Every chunk keeps ``start``/``end`` offsets with ``page_text[start:end] == chunk.text``,
so a citation can be traced back to the exact characters of the extracted page, and
``heading_path``, the headings it sits under (outermost first).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from deepcite.collections.documents import LoadedDocument
from deepcite.collections.headings import find_headings, heading_paths
from deepcite.collections.index.cjk import CJK_RUN, SENTENCE_END

# 300/40 measured best on the Python FAQ recall benchmark (bench/bench_collections.py):
# recall@10 0.41 against 0.34 at 200 tokens, at a fraction of the query cost.
TARGET_TOKENS = 300
OVERLAP_TOKENS = 40
CHARS_PER_TOKEN = 4

# A paragraph starts at a non-space character and runs over every line break that is
# not followed by a blank (whitespace-only) line.
_PARAGRAPH = re.compile(r"\S[^\n]*(?:\n(?![^\S\n]*\n)[^\n]*)*")
_LINE = re.compile(r"[^\n]+")
_WORD = re.compile(f"[^\\s{SENTENCE_END}]*[{SENTENCE_END}]+|[^\\s{SENTENCE_END}]+")
_SENTENCE_ENDS = re.compile(f"[{SENTENCE_END}]")
_NON_SPACE = re.compile(r"\S+")


@dataclass(frozen=True)
class Chunk:
    """A slice ``[start, end)`` of one page's text, with the headings it sits under.

    ``heading`` is the innermost heading (the last element of ``heading_path``).
    """

    text: str
    start: int
    end: int
    page: int | None
    heading: str | None
    heading_path: tuple[str, ...] = ()


class TokenCounter:
    """Approximate token counts of slices of one text, each in O(log n).

    CJK runs are found once; a slice's count is its CJK characters plus a quarter of
    the rest. Text without CJK takes the fast path (length / 4).
    """

    def __init__(self, text: str) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._before: list[int] = []  # CJK characters in the runs before run i
        total = 0
        for match in () if text.isascii() else CJK_RUN.finditer(text):
            self._starts.append(match.start())
            self._ends.append(match.end())
            self._before.append(total)
            total += match.end() - match.start()

    def _cjk_before(self, pos: int) -> int:
        i = bisect.bisect_right(self._starts, pos) - 1
        if i < 0:
            return 0
        return self._before[i] + min(pos, self._ends[i]) - self._starts[i]

    @property
    def plain(self) -> bool:
        """Whether the text holds no CJK, so that a slice's tokens are its length / 4."""
        return not self._starts

    def tokens(self, start: int, end: int) -> float:
        """Estimated tokens in ``text[start:end]``."""
        if not self._starts:
            return (end - start) / CHARS_PER_TOKEN
        cjk = self._cjk_before(end) - self._cjk_before(start)
        return cjk + (end - start - cjk) / CHARS_PER_TOKEN

    def fit(self, start: int, end: int, budget: float) -> int:
        """The largest ``stop`` in ``(start, end]`` with at most ``budget`` tokens (>= 1 char)."""
        reach = start + int(budget * CHARS_PER_TOKEN)  # no slice has fewer tokens than this
        if not self._starts:
            return max(start + 1, min(end, reach))
        lo, hi = start + 1, max(start + 1, min(end, reach + 1))
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.tokens(start, mid) <= budget:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def back(self, start: int, end: int, budget: float) -> int:
        """The smallest ``pos`` in ``[start, end]`` with at most ``budget`` tokens up to ``end``."""
        reach = end - int(budget * CHARS_PER_TOKEN)
        if not self._starts:
            return max(start, reach)
        lo, hi = max(start, reach), end
        while lo < hi:
            mid = (lo + hi) // 2
            if self.tokens(mid, end) <= budget:
                hi = mid
            else:
                lo = mid + 1
        return lo


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _words(
    text: str, start: int, end: int, limit: float, count: TokenCounter
) -> Iterator[tuple[int, int]]:
    """Word-boundary pieces of ``[start, end)`` up to ``limit`` tokens; longer words are cut."""
    if count.plain and not _SENTENCE_ENDS.search(text, start, end):
        return _plain_words(text, start, end, limit)
    return _counted_words(text, start, end, limit, count)


@functools.lru_cache(maxsize=64)
def _run_of_words(width: int) -> re.Pattern[str]:
    """The longest run of whole words at most ``width`` characters long."""
    return re.compile(rf"\S(?:.{{0,{max(0, width - 2)}}}\S)?(?!\S)", re.DOTALL)


def _plain_words(text: str, start: int, end: int, limit: float) -> Iterator[tuple[int, int]]:
    """:func:`_words` where a token is four characters and words end only at spaces.

    Overlong paragraphs without line breaks (generated text, minified files, long
    logs) went word by word through Python and made up a third of indexing time there;
    here a regular expression takes the longest run of words that fits in one step.
    """
    width = int(limit * CHARS_PER_TOKEN)  # a slice fits when its length is at most this
    run = _run_of_words(width)
    pos = start
    while True:
        word = _NON_SPACE.search(text, pos, end)
        if word is None:
            return
        w_start = word.start()
        while word.end() - w_start > width:  # a word longer than a piece is cut
            cut = max(w_start + 1, min(word.end(), w_start + width))
            yield (w_start, cut)
            w_start = cut
        found = run.match(text, w_start, end)
        pos = found.end() if found is not None else word.end()
        yield (w_start, pos)


def _counted_words(
    text: str, start: int, end: int, limit: float, count: TokenCounter
) -> Iterator[tuple[int, int]]:
    piece: tuple[int, int] | None = None
    for match in _WORD.finditer(text, start, end):
        w_start, w_end = match.span()
        if piece and count.tokens(piece[0], w_end) <= limit:
            piece = (piece[0], w_end)
            continue
        if piece:
            yield piece
            piece = None
        while count.tokens(w_start, w_end) > limit:
            cut = count.fit(w_start, w_end, limit)
            yield (w_start, cut)
            w_start = cut
        piece = (w_start, w_end)
    if piece:
        yield piece


def _units(text: str, limit: float, count: TokenCounter) -> list[tuple[int, int]]:
    """Paragraphs, with overlong ones broken into lines and overlong lines into words.

    A plain loop building a list: pages have hundreds of thousands of paragraphs, and
    generator overhead per paragraph was a measurable share of indexing time.
    """
    units: list[tuple[int, int]] = []
    for match in _PARAGRAPH.finditer(text):
        p_start = match.start()
        p_end = p_start + len(match.group().rstrip())
        if count.tokens(p_start, p_end) <= limit:
            units.append((p_start, p_end))
            continue
        for line_match in _LINE.finditer(text, p_start, p_end):
            line = _trim(text, *line_match.span())
            if line is None:
                continue
            if count.tokens(*line) <= limit:
                units.append(line)
            else:
                units.extend(_words(text, line[0], line[1], limit, count))
    return units


def _overlap_start(
    text: str, prev: tuple[int, int], overlap: float, count: TokenCounter
) -> int | None:
    """First word start within the last ``overlap`` tokens of the previous chunk."""
    prev_start, prev_end = prev
    lo = count.back(prev_start + 1, prev_end, overlap)
    for pos in range(lo, prev_end):
        before = text[pos - 1]
        if not text[pos].isspace() and (before.isspace() or before in SENTENCE_END):
            return pos
    return None


def chunk_text(
    text: str,
    *,
    page: int | None = None,
    target_tokens: int = TARGET_TOKENS,
    overlap_tokens: int = OVERLAP_TOKENS,
) -> list[Chunk]:
    """Chunks of ``text`` about ``target_tokens`` long, overlapping by ``overlap_tokens``.

    Units are packed greedily while the chunk, overlap included, stays within the
    target; a unit is never longer than ``target - overlap``, so chunks only exceed the
    target by the whitespace between units. A heading always starts a new chunk (unless
    the chunk holds only headings so far) and no overlap is carried into it, so every
    chunk lies within one section and its ``heading_path`` describes all of it.
    """
    if target_tokens < 1 or overlap_tokens < 0:
        raise ValueError("target_tokens must be positive and overlap_tokens non-negative")
    count = TokenCounter(text)
    target = float(target_tokens)
    limit = max(1.0, target - overlap_tokens)
    units = _units(text, limit, count)
    headings = find_headings(text)
    paths = heading_paths(headings)
    heading_offsets = [h.offset for h in headings]
    heading_starts = set(heading_offsets)
    chunks: list[Chunk] = []
    prev: tuple[int, int] | None = None
    i = 0
    while i < len(units):
        first = units[i][0]
        carried = None
        if prev and overlap_tokens and first not in heading_starts:
            # No overlap into a new section: its text belongs under other headings.
            carried = _overlap_start(text, prev, overlap_tokens, count)
        start = first if carried is None else carried
        end = units[i][1]
        body = None if first in heading_starts else first  # where non-heading text starts
        i += 1
        full = count.fit(start, len(text), target)  # one budget lookup per chunk
        while i < len(units) and units[i][1] <= full:
            if units[i][0] in heading_starts:
                if body is not None:
                    break  # a new section starts a new chunk
            elif body is None:
                body = units[i][0]
            end = units[i][1]
            i += 1
        # The path of the text: "# A" then "## B" then text is text under A > B.
        at = bisect.bisect_right(heading_offsets, first if body is None else body) - 1
        path = paths[at] if at >= 0 else ()
        chunks.append(Chunk(text[start:end], start, end, page, path[-1] if path else None, path))
        prev = (start, end)
    return chunks


def chunk_document(
    document: LoadedDocument,
    *,
    target_tokens: int = TARGET_TOKENS,
    overlap_tokens: int = OVERLAP_TOKENS,
) -> list[Chunk]:
    """Chunks of every page of ``document``, in page order; offsets are per page."""
    chunks: list[Chunk] = []
    for page in document.pages:
        chunks.extend(chunk_text(page.text, page=page.page, target_tokens=target_tokens,
                                 overlap_tokens=overlap_tokens))
    return chunks
