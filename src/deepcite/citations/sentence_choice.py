"""Which of the ranked sentences answer: the best few, within a budget, each said once.

Kept apart from ranking (:mod:`deepcite.citations.sentence_ranking`), which scores every
sentence on its own, because choosing looks at the sentences together: a sentence two
sources repeat is quoted once, of two near-duplicates the one that says it all is kept,
a sentence far weaker than the best is left out, and the answer stays within a few
sentences and a character budget. The near-duplicate test (:func:`similar`) is also how
a model's lead is recognised as one of the sentences it was shown
(:mod:`deepcite.citations.model_lead`).
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.citations.candidates import Sentence
from deepcite.citations.dedupe import dedupe_sentences
from deepcite.citations.table_rows import same_table
from deepcite.text.stopwords import STOPWORDS

MAX_SENTENCES = 3
MAX_CHARS = 900
RELATIVE_FLOOR = 0.4  # sentences scoring under this share of the best one are left out
NEAR_DUPLICATE = 0.6


def once_each(ranked: list[Sentence]) -> list[Sentence]:
    """``ranked`` without the later copies of a sentence (compared as
    :func:`~deepcite.citations.dedupe.sentence_key` does: case, markers, punctuation
    aside), so no answer says the same thing twice."""
    seen: set[str] = set()
    return [sentence for sentence in ranked if dedupe_sentences([sentence.text], seen)]


def similar(a: Sentence, b: Sentence, *, inside: bool = True,
            threshold: float = NEAR_DUPLICATE) -> bool:
    """Near-duplicates: most content words shared, or (``inside``) one sentence's words
    nearly all in the other, which then says it all."""
    x = {t for t in a.terms if t not in STOPWORDS}
    y = {t for t in b.terms if t not in STOPWORDS}
    if not x or not y:
        return False
    shared = len(x & y)
    return shared / len(x | y) >= threshold or (
        inside and shared / min(len(x), len(y)) >= 0.8)


def _says_more(a: Sentence, b: Sentence) -> bool:
    """Whether ``a`` says nearly all ``b`` says (:func:`similar`'s "inside") and more."""
    x = {t for t in a.terms if t not in STOPWORDS}
    y = {t for t in b.terms if t not in STOPWORDS}
    return bool(y) and len(x) > len(y) and len(x & y) / len(y) >= 0.8


def select(ranked: Sequence[Sentence], *, max_sentences: int = MAX_SENTENCES,
           max_chars: int = MAX_CHARS) -> list[Sentence]:
    """The best sentences within the budget, near-duplicates and weak ones left out.

    Of two near-duplicates the one that says it all is kept: "Tesla died on 7 January
    1943." ranks above "On 7 January 1943, at the age of 86, Tesla died alone in room
    3327", which holds all of it and the age asked for, and takes its place. Two rows
    of one table are two facts, however alike their words (:func:`same_table`):
    "副主任医师 | 25 元" does not take the place of "主任医师 | 40 元".
    """
    chosen: list[Sentence] = []
    used = 0
    for sentence in ranked:
        if len(chosen) >= max_sentences:
            break
        if chosen and sentence.score < RELATIVE_FLOOR * chosen[0].score:
            break
        alike = [i for i, other in enumerate(chosen)
                 if similar(sentence, other) and not same_table(sentence, other)]
        if alike:
            shorter = chosen[alike[0]]
            grown = used + len(sentence.text) - len(shorter.text)
            if len(alike) == 1 and _says_more(sentence, shorter) and grown <= max_chars:
                chosen[alike[0]] = sentence
                used = grown
            continue
        if chosen and used + len(sentence.text) > max_chars:
            continue
        chosen.append(sentence)
        used += len(sentence.text)
    return chosen


__all__ = [
    "MAX_CHARS",
    "MAX_SENTENCES",
    "NEAR_DUPLICATE",
    "RELATIVE_FLOOR",
    "once_each",
    "select",
    "similar",
]
