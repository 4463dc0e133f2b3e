"""Words: what counts as one, and the content words of a text.

Each pattern here has one job, named by it:

- :data:`WORD` - a word for relevance and verification: Latin letters (with
  diacritics), digits and ``_``. Claims, questions and sources are compared with it;
- :data:`ANY_WORD` - a run of word characters in any script (titles, headings, search
  queries), which keeps a Cyrillic or Greek title whole;
- :data:`ALNUM_WORD` - the same without ``_``, for comparing materials with a question;
- :data:`TERM` - a word with its inner hyphens and apostrophes ("state-of-the-art",
  "O'Brien"), for the key terms of a question;
- :data:`WORD_OR_CJK_RUN` - a CJK run (group ``cjk``) or a word of other characters:
  the tokens of a question typed to the search index.

CJK text, which has no spaces, is compared by character pairs
(:mod:`deepcite.text.cjk`).
"""

from __future__ import annotations

import re

from deepcite.text.cjk import CJK_CHARS
from deepcite.text.stopwords import STOPWORDS

WORD = re.compile(r"[A-Za-z0-9_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F]+")
"""A word for relevance: ASCII letters, digits and "_", and the Latin letters with
diacritics ("Gür", "Temüjin", "São", "Müller"). With ASCII alone such a name fell apart
into fragments ("G", "r") that no question term could meet, so the one word that says
what a question is about counted for nothing. Other scripts keep their own handling
(CJK character pairs)."""

ANY_WORD = re.compile(r"\w+")
"""A run of word characters of any script (digits and ``_`` included)."""

ALNUM_WORD = re.compile(r"[^\W_]+")
"""A run of letters or digits of any script."""

TERM = re.compile(r"[^\W_][\w'’-]*[^\W_]|[^\W_]")
"""A word with the hyphens and apostrophes inside it."""

WORD_OR_CJK_RUN = re.compile(f"(?P<cjk>[{CJK_CHARS}]+)|(?:(?![{CJK_CHARS}])\\w)+")
"""A CJK run (group ``cjk``), or a run of other word characters."""


# Whole words: no word character on either side, except CJK, which has no spaces (the
# "三百秒" of "保留三百秒。" is a whole word of it).
_BEFORE = rf"(?<![^\W{CJK_CHARS}])"
_AFTER = rf"(?![^\W{CJK_CHARS}])"


def contains_words(text: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``text`` as whole words, case- and space-insensitive.

    "cache" is in "the cache keeps" but not in "caches"; "3.2" not in "3.25". CJK is
    written without spaces, so a CJK edge is whole at any character: "三百秒" is in
    "保留三百秒。" (plain substring). An empty ``phrase`` is in nothing. The one home of
    this test (grounded answers, answer types, the precision handler use it).
    """
    needle = " ".join(phrase.lower().split())
    return bool(needle) and re.search(
        rf"{_BEFORE}{re.escape(needle)}{_AFTER}", " ".join(text.lower().split())) is not None


def content_words(text: str) -> set[str]:
    """Lower-cased words of three or more letters that carry meaning."""
    return {
        w for w in (m.group(0).lower() for m in WORD.finditer(text))
        if len(w) >= 3 and w not in STOPWORDS
    }


def normalised_words(text: str) -> list[str]:
    """All lower-cased words, for echo detection."""
    return [m.group(0).lower() for m in WORD.finditer(text)]


def overlap(words: set[str], text_words: set[str]) -> float:
    """Share of ``words`` found in ``text_words`` (0 when ``words`` is empty)."""
    if not words:
        return 0.0
    return len(words & text_words) / len(words)
