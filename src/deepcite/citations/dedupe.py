""""The same sentence" in a report: keys that ignore markers and form, and de-duplication.

A detailed report is written part by part, and two parts often quote the same source
sentence (once as ``“X” [2]``, once as ``X [5].``). :func:`sentence_key` makes them equal
and :func:`dedupe_sentences` / :func:`drop_repeated_sentences` keep the first. Sentence
boundaries are :mod:`deepcite.text.sentences`'.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from deepcite.text.cjk import CJK_CHARS
from deepcite.text.sentences import sentence_spans

_NOT_CJK = re.compile(f"[^{CJK_CHARS}]")

_MARKERS = re.compile(r"\\?\[\d+(?:[-,\u2013]\s*\d+)*\\?\](?:\^\([a-z]+\))?")
_NON_WORD = re.compile(r"[\W_]+")
MIN_KEY_WORDS = 3  # shorter sentences ("See below.") may repeat


def sentence_key(sentence: str) -> str:
    """What "the same sentence" compares: the words, without citation markers and their
    flags, Markdown, punctuation, case, width or spacing differences.

    Two parts of a report that quote one source sentence, one as ``“X” [2]`` and the
    other as ``X [5].``, repeat it; the key makes them equal.
    """
    text = unicodedata.normalize("NFKC", _MARKERS.sub(" ", sentence)).casefold()
    return " ".join(_NON_WORD.sub(" ", text).split())


def dedupe_sentences(sentences: Iterable[str], seen: set[str] | None = None) -> list[str]:
    """``sentences`` without those already given (here or in ``seen``), first kept.

    ``seen`` (updated in place) carries the keys across calls, so that one set passed
    to every part of a report keeps a sentence in the first part that has it. Sentences
    of fewer than :data:`MIN_KEY_WORDS` words are always kept: short lines repeat
    naturally.
    """
    seen = set() if seen is None else seen
    kept = []
    for sentence in sentences:
        key = sentence_key(sentence)
        if _repeatable(key):
            kept.append(sentence)
            continue
        if key in seen:
            continue
        seen.add(key)
        kept.append(sentence)
    return kept


def _repeatable(key: str) -> bool:
    """Short sentences may repeat; CJK text has no spaces, so count its characters."""
    cjk = len(_NOT_CJK.sub("", key))
    return len(key.split()) < MIN_KEY_WORDS and cjk < 2 * MIN_KEY_WORDS + 2


_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_PREFIX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_STRUCTURE = re.compile(r"^\s*(?:#|\||>?\s*$)")  # headings, table rows, blank lines


def drop_repeated_sentences(markdown: str, seen: set[str]) -> str:
    """``markdown`` without the prose sentences whose key is in ``seen`` (then added).

    For text assembled from parts (a detailed report): each part is passed with the
    same ``seen``, so a sentence or quoted passage printed by an earlier part is not
    printed again. Code blocks, headings and table rows are left alone; a line (or list
    item) left with nothing but short pieces (a quote's "[2] (Title)") is dropped whole.
    """
    lines = []
    in_fence = False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        if in_fence or _FENCE.match(line) or _STRUCTURE.match(line):
            lines.append(line)
            continue
        prefix = _LIST_PREFIX.match(line)
        head = prefix.group(0) if prefix else line[: len(line) - len(line.lstrip())]
        body = line[len(head):]
        spans = sentence_spans(body)
        kept = dedupe_sentences([body[a:b] for a, b in spans], seen)
        if len(kept) < len(spans) and all(_repeatable(sentence_key(k)) for k in kept):
            continue  # what is left is the repeat's tail ("[2] (Title)") or nothing
        if len(kept) == len(spans):
            lines.append(line)
        else:
            lines.append(head + " ".join(kept))
    return "\n".join(lines)
