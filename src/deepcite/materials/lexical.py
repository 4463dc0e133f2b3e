"""Word overlap between a question and a material: an ordering, never a filter.

Zero words in common does not make a material irrelevant - a Chinese question about an
English paper shares none, and neither does a paraphrase - so nothing is ever dropped
on this score. It only decides which materials give way first when they do not all fit
the prompt budget. Words are lower-cased runs of letters or digits; CJK text, which has
no spaces, contributes its overlapping character pairs (a lone character counts alone),
so 自然语言 and 语言模型 share 语言.
"""

from __future__ import annotations

from deepcite.text.cjk import CJK_RUN, run_pairs
from deepcite.text.stopwords import OVERLAP_STOPWORDS
from deepcite.text.words import ALNUM_WORD

#: How much of a material is read for its words: the start says what it is about.
SCAN_CHARS = 200_000


def lexical_tokens(text: str) -> set[str]:
    """The comparable units of ``text``: words of the non-CJK text and pairs of the CJK."""
    text = text[:SCAN_CHARS]
    tokens: set[str] = set()
    if not text.isascii():
        for run in CJK_RUN.findall(text):
            tokens.update(run_pairs(run))
        text = CJK_RUN.sub(" ", text)
    tokens.update(
        word for word in (m.group(0).lower() for m in ALNUM_WORD.finditer(text))
        if word not in OVERLAP_STOPWORDS and (len(word) > 1 or word.isdigit())
    )
    return tokens


def overlap_score(question: str, text: str) -> float:
    """Share of the question's units found in ``text``: 0 (none) to 1 (all)."""
    asked = lexical_tokens(question)
    if not asked:
        return 0.0
    return len(asked & lexical_tokens(text)) / len(asked)
