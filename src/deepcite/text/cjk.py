"""Chinese, Japanese and Korean: which characters they are, and their units of meaning.

CJK writing puts no spaces between words, so a run of CJK characters is not one word:
it is compared by its overlapping character pairs (``自然语言`` holds ``自然 然语 语言``,
and any word of two or more characters is found through the pairs it is made of), the
classic remedy of Lucene's CJKAnalyzer. The search index stores these pairs
(:mod:`deepcite.collections.index.cjk`), a material's overlap with a question counts them
(:mod:`deepcite.materials.lexical`), and sentences end at ``。！？`` without a space
(:mod:`deepcite.text.sentences`).
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
    """Index tokens of one CJK run: its adjacent pairs, then its last character (so that
    every character starts some token and a one-character query works as a prefix)."""
    return [run[i : i + 2] for i in range(len(run) - 1)] + [run[-1]]


def run_pairs(run: str) -> list[str]:
    """The units one CJK run is compared by: its adjacent pairs, or a lone character."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]
