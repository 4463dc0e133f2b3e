"""Make Chinese, Japanese and Korean text searchable with overlapping character bigrams.

SQLite's ``unicode61`` tokenizer splits on spaces and punctuation, which CJK writing
does not use between words: a whole Chinese sentence becomes one token, and searching
for a word inside it finds nothing. The classic remedy (Lucene's CJKAnalyzer does the
same) is to index every pair of adjacent CJK characters: ``自然语言`` is indexed as
``自然 然语 语言``, and any word of two or more characters is found through the pairs
it is made of. One more token per run - its last character on its own - makes every
single character the first character of some token, so a one-character query works
as a prefix query. Text without CJK characters costs nothing.
"""

from __future__ import annotations

import re

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
"""Character ranges treated as CJK: ideographs, kana and Hangul (not CJK punctuation)."""

CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
SENTENCE_END = "。！？"
"""Full-width sentence-ending punctuation: where CJK text, which has no spaces, may break."""


def has_cjk(text: str) -> bool:
    """Whether ``text`` contains at least one CJK character (ASCII text: no regex at all)."""
    return not text.isascii() and CJK_RUN.search(text) is not None


def run_tokens(run: str) -> list[str]:
    """Index tokens of one CJK run: its adjacent pairs, then its last character."""
    return [run[i : i + 2] for i in range(len(run) - 1)] + [run[-1]]


def bigram_text(*texts: str | None) -> str | None:
    """Space-separated index tokens of every CJK run in ``texts``; ``None`` if there are none.

    The result goes into an FTS5 column with the ordinary ``unicode61`` tokenizer,
    which sees each space-separated pair as one token.
    """
    tokens: list[str] = []
    for text in texts:
        if text:
            for run in CJK_RUN.findall(text):
                tokens.extend(run_tokens(run))
    return " ".join(tokens) if tokens else None


def query_atoms(run: str) -> list[str]:
    """FTS5 query atoms for a CJK run typed by a user: its pairs, or a prefix for one char.

    The pairs are OR-ed with the other query terms, so BM25 ranks a passage holding
    all of a word's pairs (almost always the word itself) above one holding a few.
    """
    if len(run) == 1:
        return [f'"{run}"*']
    return [f'"{run[i : i + 2]}"' for i in range(len(run) - 1)]
