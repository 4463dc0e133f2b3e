"""Cheap evidence for a cited claim: exact span, fuzzy span, word overlap, key terms.

:mod:`deepcite.citations.verify` asks one question of every citation: does the cited
source say what the sentence says? Most citations are settled here without a model,
deterministically and with character offsets into the source, so a reader can see the
evidence. What cannot be settled cheaply is left *undecided* for the model (or for the
no-model fallback rule), never guessed as supported.

Offsets always index the source's original ``text`` (Python code points into
:attr:`deepcite.types.Source.text` exactly as stored: ``text[start:end]`` is the quote;
see "Evidence offsets" in ``docs/citations.md``): matching runs on a lower-cased,
whitespace-collapsed copy, and a map carries positions back. A span never starts or ends
inside a word, nor on space or on the punctuation a claim dragged in from its
neighbour (:func:`whole_words`): fuzzy alignment works on characters and would
otherwise quote "E csv - CSV ..." for "csv - CSV ...".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz

from deepcite.citations.display import DisplayText, display_text
from deepcite.text.cjk import CJK_CHARS, CJK_RUN
from deepcite.text.sentences import sentence_spans
from deepcite.text.stem import stem, stems
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD, WORD_OR_CJK_RUN

FUZZY_SUPPORTED = 90.0
OVERLAP_SUPPORTED = 0.7
OVERLAP_PARTIAL = 0.4
# Above this many characters fuzzy matching runs only near the best-overlapping passage:
# partial_ratio over a whole long document costs more than it tells.
_FUZZY_WHOLE_SOURCE = 5000
# Sentence openers that are capitalised only because they come first; they are not the
# names or numbers whose absence from a source betrays a wrong claim.
_OPENERS = frozenset(
    """however moreover notably additionally overall according furthermore finally first
    second third similarly specifically thus therefore meanwhile today currently instead
    still yet indeed in particular for example together since although though while
    researchers studies many most several some""".split()  # noqa: SIM905 - reads better
)


def key_terms(claim: str) -> set[str]:
    """Numbers and capitalised names in ``claim`` (lower-cased, stemmed).

    A wrong year or a wrong country is the commonest way a cited sentence goes wrong
    while sharing most words with its source, and word overlap cannot see it; so a
    claim whose key terms the evidence lacks is never accepted cheaply.
    """
    terms: set[str] = set()
    for i, word in enumerate(WORD.findall(claim)):
        lower = word.lower()
        if not word.isalpha() and any(ch.isdigit() for ch in word):
            terms.add(lower)
        elif word[0].isupper() and lower not in STOPWORDS and len(word) >= 2 and not (
                i == 0 and lower in _OPENERS):
            terms.add(stem(lower))
    return terms


def _words(text: str) -> set[str]:
    return {stem(word.lower()) for word in WORD.findall(text)}


_QUOTE_MARKS = " \"'\u201c\u201d\u2018\u2019\u300c\u300d\u300e\u300f"


def _needle(text: str) -> str:
    """``text`` lower-cased with whitespace runs collapsed: a needle to look up in
    :attr:`SourceIndex.norm` (no offsets needed, so cheaper than :func:`normalise`)."""
    return " ".join(text.split()).lower()


@dataclass(frozen=True)
class _ClaimTerms:
    needle: str
    keys: frozenset[str]
    stems: frozenset[str]


@functools.lru_cache(maxsize=64)
def _terms(claim: str) -> _ClaimTerms:
    """What :meth:`SourceIndex.check` needs of the claim alone, worked out once per claim.

    A claim citing several sources is checked against each; recomputing this per source
    cost a whole pass over the claim every time, which dominated for long claims (a
    long line of cited fragments makes its whole sentence the claim of every fragment).
    """
    return _ClaimTerms(_needle(claim), frozenset(key_terms(claim)), frozenset(stems(claim)))


# What a quote cannot start with (it ends the text before) and cannot end with (it
# opens the text after), when it stands alone; nor a lone gutter, rule or bullet mark
# at either edge ("|" of pydoc's class pages). Space is trimmed at both edges too.
_MARKS = "|+=#>*-•"
_NO_START = ".,;:!?)]}»”’。，；：！？）」』、" + _MARKS
_NO_END = "([{«“‘（「『" + _MARKS


def _inside_word(text: str, at: int) -> bool:
    """Whether position ``at`` falls between two characters of one word (never between
    CJK characters, which have no word boundaries to respect)."""
    if at <= 0 or at >= len(text):
        return False
    before, after = text[at - 1], text[at]
    return (before.isalnum() or before == "_") and (after.isalnum() or after == "_") and not (
        CJK_RUN.match(before) or CJK_RUN.match(after))


def whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` widened to whole words and trimmed of the space and stray
    punctuation at its edges, so a quote never begins or ends part-way into a word.

    A character-level alignment (rapidfuzz's, or a claim that dragged in the "." of the
    sentence before it) can be off by a character or two; what a reader is shown, and
    what every front end gets, must start at a word and end after one.
    """
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    while start < end and _inside_word(text, start):
        start -= 1
    while end < len(text) and _inside_word(text, end):
        end += 1
    while start < end and (text[start].isspace() or (text[start] in _NO_START and (
            start + 1 == end or text[start + 1].isspace()))):
        start += 1
    while end > start and (text[end - 1].isspace() or (text[end - 1] in _NO_END and (
            end - 1 == start or text[end - 2].isspace()))):
        end -= 1
    return start, end


def normalise(text: str) -> tuple[str, list[int]]:
    """Lower-cased ``text`` with whitespace runs collapsed, and each char's origin index."""
    chars: list[str] = []
    origin: list[int] = []
    in_space = False
    for index, ch in enumerate(text):
        if ch.isspace():
            if not in_space and chars:
                chars.append(" ")
                origin.append(index)
            in_space = True
            continue
        in_space = False
        for low in ch.lower():
            chars.append(low)
            origin.append(index)
    if chars and chars[-1] == " ":
        chars.pop()
        origin.pop()
    return "".join(chars), origin


def _bare(word: str) -> str:
    """``word`` lower-cased without underscores: "strict_parsing" as a claim stripped of
    Markdown may spell it."""
    return word.lower().replace("_", "")


def _needle_words(text: str, start: int, end: int, needle: str) -> tuple[int, int]:
    """``text[start:end]`` without the words at its edges that the needle lacks, and
    widened to the needle's first and last words when they stand just outside it.

    A fuzzy alignment has the needle's length, so a needle carrying a stray character
    ("." left from the sentence before) aligns one character early and takes the last
    letter of the word before ("NAME\\n    csv - ..." quoted as "E csv - ..."); words the
    needle does not have are not evidence of it. A needle missing a word of the source
    aligns short instead, leaving its own first or last word outside.
    """
    words = list(WORD_OR_CJK_RUN.finditer(text, start, end))
    said = [_bare(word.group()) for word in WORD_OR_CJK_RUN.finditer(needle)]
    wanted = set(said)

    def kept(word: re.Match[str]) -> bool:  # a CJK run has no word edges to judge by
        return bool(word.group("cjk")) or _bare(word.group()) in wanted

    first, last = 0, len(words)
    while first < last and not kept(words[first]):
        first += 1
    while last > first and not kept(words[last - 1]):
        last -= 1
    if first == last:
        return (start, start) if words else (start, end)
    low = words[first].start() if first else start
    high = words[last - 1].end() if last < len(words) else end
    low, high = whole_words(text, *_cjk_edges(text, low, high, needle))
    return _reach(text, low, high, said)


# CJK characters and full-width punctuation ("「", "。"), which no space separates.
_CJK_EDGE = re.compile(f"[{CJK_CHARS}\u3000-\u303f\uff00-\uffef]")


def _cjk_edges(text: str, start: int, end: int, needle: str) -> tuple[int, int]:
    """``text[start:end]`` without the CJK characters and full-width marks at its edges
    that the needle lacks. CJK has no word edges to trim at, so an alignment one
    character too long (a claim "会保留三百秒。" for "保留三百秒。") would otherwise quote
    the first character of the next sentence ("保留三百秒。超"), or the opening bracket
    of a passage the claim quotes without it ("「キャッシュの項目は...")."""
    while start < end and _CJK_EDGE.match(text[start]) and text[start] not in needle:
        start += 1
    while end > start and _CJK_EDGE.match(text[end - 1]) and text[end - 1] not in needle:
        end -= 1
    return start, end


# How far outside a fuzzy span its needle's first or last word is looked for.
_REACH = 3


def _reach(text: str, start: int, end: int, said: list[str]) -> tuple[int, int]:
    """``text[start:end]`` widened to the needle's first word (``said[0]``) when it is
    one of the few words just before, and to its last when one of the few just after."""
    inside = [_bare(w.group()) for w in WORD_OR_CJK_RUN.finditer(text, start, end)]
    if not said or not inside:
        return start, end
    if inside[0] != said[0]:
        before = list(WORD_OR_CJK_RUN.finditer(text, max(0, start - 80), start))[-_REACH:]
        for word in reversed(before):
            if not word.group("cjk") and _bare(word.group()) == said[0]:
                start = word.start()
                break
    if inside[-1] != said[-1]:
        after = list(WORD_OR_CJK_RUN.finditer(text, end, min(len(text), end + 80)))[:_REACH]
        for word in after:
            if not word.group("cjk") and _bare(word.group()) == said[-1]:
                end = word.end()
                break
    return start, end


@dataclass(frozen=True)
class Evidence:
    """The outcome of the cheap checks for one claim against one source.

    ``outcome`` is ``None`` when undecided. ``score`` is the best word overlap (0-1),
    which the no-model fallback rule reads; ``missing`` holds key terms the whole source
    lacks. ``start``/``end`` index the source text when a span was found.
    """

    outcome: Literal["supported", "partial", "unsupported"] | None
    method: Literal["exact", "fuzzy", "overlap", "model", "none"]
    score: float
    missing: frozenset[str]
    start: int | None = None
    end: int | None = None


class SourceIndex:
    """One source's text prepared once for many claims: normalised copy and passages."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.norm, self._origin = normalise(text)
        self.words = _words(text)
        spans = sentence_spans(text)
        windows = list(spans)
        windows += [(spans[i][0], spans[i + 1][1]) for i in range(len(spans) - 1)]
        self._windows = [(s, e, stems(text[s:e]), _words(text[s:e])) for s, e in windows]

    def find(self, quote: str) -> tuple[int, int] | None:
        """Where ``quote`` occurs verbatim (whitespace- and case-insensitive), or None."""
        return self._find(_needle(quote))

    def _find(self, needle: str) -> tuple[int, int] | None:
        if not needle:
            return None
        at = self.norm.find(needle)
        if at < 0:
            return self._find_shown(needle)
        return whole_words(self.text, self._origin[at], self._origin[at + len(needle) - 1] + 1)

    def _find_shown(self, needle: str) -> tuple[int, int] | None:
        """Where ``needle`` occurs in the source as quotes show it: its markup cleaned
        (:func:`~deepcite.citations.display.display_text`), mapped back to the original.

        Answers quote ``list.append`` where the source says ````list.append````; the
        quote is still verbatim, and its span is the original's.
        """
        shown = self._shown
        if shown is None:
            return None
        norm, origin = shown
        at = norm.find(needle)
        if at < 0:
            return None
        return whole_words(self.text, *self._display.to_original(
            origin[at], origin[at + len(needle) - 1] + 1))

    @functools.cached_property
    def _display(self) -> DisplayText:
        return display_text(self.text)

    @functools.cached_property
    def _shown(self) -> tuple[str, list[int]] | None:
        """The normalised display text and its origins (``None`` when it is the text)."""
        if self._display.text == " ".join(self.text.split()):
            return None
        return normalise(self._display.text)

    def best_window(self, claim_stems: AbstractSet[str]) -> tuple[float, int, int, set[str]]:
        """The sentence or sentence pair sharing most of the claim's words."""
        best: tuple[float, int, int, set[str]] = (0.0, 0, len(self.text), self.words)
        if not claim_stems:  # overlap() is 0 for every window: nothing beats the default
            return best
        size = len(claim_stems)
        for start, end, window_stems, window_words in self._windows:
            score = len(claim_stems & window_stems) / size  # overlap(), inlined: hot loop
            if score > best[0] or (score == best[0] > 0 and end - start < best[2] - best[1]):
                best = (score, start, end, window_words)
        return best

    def _fuzzy(self, needle: str, near: tuple[int, int]) -> tuple[float, int, int] | None:
        if len(self.text) > _FUZZY_WHOLE_SOURCE:
            low = max(0, near[0] - 400)
            hay_start = self.norm_index(low)
            hay_end = self.norm_index(min(len(self.text), near[1] + 400))
        else:
            hay_start, hay_end = 0, len(self.norm)
        haystack = self.norm[hay_start:hay_end]
        if not needle or len(needle) > len(haystack):
            return None
        found = fuzz.partial_ratio_alignment(needle, haystack, score_cutoff=FUZZY_SUPPORTED)
        if found is None:
            return None
        start = self._origin[hay_start + found.dest_start]
        end = self._origin[hay_start + max(found.dest_end - 1, found.dest_start)] + 1
        start, end = _needle_words(self.text, *whole_words(self.text, start, end), needle)
        return (found.score, start, end) if end > start else None

    def norm_index(self, original: int) -> int:
        """First position of the normalised copy at or after ``original``."""
        lo, hi = 0, len(self._origin)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._origin[mid] < original:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def check(self, claim: str) -> Evidence:
        """Run the cheap checks, strongest first; see the module docstring."""
        terms = _terms(claim)
        keys = terms.keys
        missing = frozenset(keys - self.words)
        span = self._find(terms.needle)
        if span is not None:
            return Evidence("supported", "exact", 1.0, missing, *span)
        score, start, end, window_words = self.best_window(terms.stems)
        fuzzy = self._fuzzy(terms.needle, (start, end))
        if fuzzy is not None and keys <= _words(self.text[fuzzy[1]:fuzzy[2]]) | window_words:
            return Evidence("supported", "fuzzy", score, missing, fuzzy[1], fuzzy[2])
        if keys <= window_words and score >= OVERLAP_PARTIAL:
            return Evidence("supported" if score >= OVERLAP_SUPPORTED else "partial",
                            "overlap", score, missing, start, end)
        # A quoted passage ("“斑马缓存的条目保留三百秒。”") is the source's words inside
        # quote marks. Latin text is found by its words above; CJK text has none to
        # overlap, so its quote is looked up again without the marks.
        bare = terms.needle.strip(_QUOTE_MARKS)
        span = self._find(bare) if bare != terms.needle and bare else None
        if span is not None:
            return Evidence("supported", "exact", 1.0, missing, *span)
        return Evidence(None, "none", score, missing, start if score else None,
                        end if score else None)
