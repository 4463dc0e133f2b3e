"""Token estimates and content hashes of materials.

Materials are sized before any model sees them, so the estimate must be cheap on
millions of characters and must not be fooled by scripts without spaces. The rule:
every CJK character (ideographs, kana, Hangul) counts as **one token**, and all other
text as **one token per four characters** (the usual figure for English with GPT-style
tokenizers), rounded up. A words-based rule would see a whole Chinese paragraph as one
word; a characters/4 rule would see it as a quarter of its real size.

The content hash (first 16 hex digits of the SHA-256 of the UTF-8 content) is the key
of deduplication and of the summary cache: two materials with the same text are the
same material, whatever their names.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re

#: Characters counted as CJK: ideographs, kana and Hangul (not CJK punctuation).
CJK_CHARS = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK Unified Ideographs Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # halfwidth Katakana
    "\U00020000-\U0003134f"  # CJK Unified Ideographs Extensions B-G
)
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
CHARS_PER_TOKEN = 4
HASH_CHARS = 16


def content_hash(content: str) -> str:
    """First 16 hex digits of the SHA-256 of ``content`` (UTF-8); the identity of a text."""
    digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:HASH_CHARS]


def cjk_count(text: str) -> int:
    """How many CJK characters ``text`` holds (ASCII text: no regex at all)."""
    if text.isascii():
        return 0
    return sum(match.end() - match.start() for match in CJK_RUN.finditer(text))


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: CJK characters one each, other text four characters each."""
    if not text:
        return 0
    cjk = cjk_count(text)
    return cjk + math.ceil((len(text) - cjk) / CHARS_PER_TOKEN)


class TokenCounter:
    """Estimated tokens of any slice of one text, each in O(log n).

    The CJK runs are found once; a slice counts its CJK characters plus a quarter of
    the rest, like :func:`estimate_tokens` before rounding (so a slice whose count here
    is at most an integer ``n`` has an :func:`estimate_tokens` of at most ``n`` too).
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

    def tokens(self, start: int, end: int) -> float:
        """Estimated tokens of ``text[start:end]`` (unrounded)."""
        if not self._starts:
            return (end - start) / CHARS_PER_TOKEN
        cjk = self._cjk_before(end) - self._cjk_before(start)
        return cjk + (end - start - cjk) / CHARS_PER_TOKEN

    def fit(self, start: int, end: int, budget: float) -> int:
        """The largest ``stop`` in ``(start, end]`` whose slice fits ``budget`` (>= 1 char)."""
        reach = start + int(budget * CHARS_PER_TOKEN)  # no slice has fewer tokens than this
        if not self._starts:
            return max(start + 1, min(end, reach))
        lo, hi = start + 1, max(start + 1, min(end, reach))
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.tokens(start, mid) <= budget:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def back(self, start: int, end: int, budget: float) -> int:
        """The smallest ``pos`` in ``[start, end]`` whose slice up to ``end`` fits ``budget``."""
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
