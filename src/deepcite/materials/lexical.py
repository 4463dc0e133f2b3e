"""Word overlap between a question and a material: an ordering, never a filter.

Zero words in common does not make a material irrelevant - a Chinese question about an
English paper shares none, and neither does a paraphrase - so nothing is ever dropped
on this score. It only decides which materials give way first when they do not all fit
the prompt budget. Words are lower-cased runs of letters or digits; CJK text, which has
no spaces, contributes its overlapping character pairs (a lone character counts alone),
so 自然语言 and 语言模型 share 语言.
"""

from __future__ import annotations

import re

from deepcite.collections.index.cjk import CJK_RUN

_WORD = re.compile(r"[^\W_]+")
#: How much of a material is read for its words: the start says what it is about.
SCAN_CHARS = 200_000
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "how",
    "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "was", "were", "what",
    "when", "where", "which", "who", "why", "will", "with", "do", "does", "did", "can",
    "about", "into", "than", "then",
})


def lexical_tokens(text: str) -> set[str]:
    """The comparable units of ``text``: words of the non-CJK text and pairs of the CJK."""
    text = text[:SCAN_CHARS]
    tokens: set[str] = set()
    if not text.isascii():
        for run in CJK_RUN.findall(text):
            if len(run) == 1:
                tokens.add(run)
            tokens.update(run[i : i + 2] for i in range(len(run) - 1))
        text = CJK_RUN.sub(" ", text)
    tokens.update(
        word for word in (m.group(0).lower() for m in _WORD.finditer(text))
        if word not in _STOP and (len(word) > 1 or word.isdigit())
    )
    return tokens


def overlap_score(question: str, text: str) -> float:
    """Share of the question's units found in ``text``: 0 (none) to 1 (all)."""
    asked = lexical_tokens(question)
    if not asked:
        return 0.0
    return len(asked & lexical_tokens(text)) / len(asked)
