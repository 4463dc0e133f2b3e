"""A thing the claim says is free, which a source prices: "Dogs travel free" against
"Dogs are welcome on trains for 2 pounds each".

The sentence closest to such a claim in words is often one saying "free" of something
else ("children under 5 travel free", "volunteers get free travel"): "free" and the verb
are the claim's common words, its subject the one they lack. A sentence naming that
subject, in the clause of a price above nothing, contradicts the claim - where it says
nothing free itself ("free on weekdays, 2 pounds at weekends" is a scope, not a price).
"""

from __future__ import annotations

import re

from deepcite.factcheck.passages import Pool, Sentence, values_of
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.units import FREE

__all__ = ["priced_elsewhere"]

_CLAUSE = re.compile(r"[;:()\u2013\u2014]|[,.](?!\d)|\s(?:but|while|whereas)\s")


def priced_elsewhere(text: str, claim_terms: frozenset[str], pool: Pool,
                     best: Sentence) -> tuple[Sentence, str, str] | None:
    """The sentence pricing the subject of a claim that says it is free, where ``best``
    (the sentence closest to the claim) leaves that subject out; with "free" and the
    price; None otherwise."""
    free = next((v for v in values_of(text) if v.unit == FREE), None)
    if free is None:
        return None
    subject = terms_of(text[:free.start]) & claim_terms
    opening = terms_of(" ".join(text.split()[:2]))
    lacking = subject - best.terms
    # the words best lacks are the claim's subject: it opens the claim, before "free"
    if not lacking or not lacking & opening or lacking != subject - terms_of(best.text):
        return None
    for sentence in pool.sentences:
        if sentence is best or not lacking <= sentence.terms:
            continue
        theirs = values_of(sentence.text)
        if any(v.unit == FREE for v in theirs):
            continue
        for piece in _pieces(sentence.text):
            prices = [v for v in values_of(piece) if v.kind == "money" and v.amount]
            # the thing priced opens the clause, its subject ("Dogs are welcome ... for
            # 2 pounds each"; not "a lead for dogs costs 3 pounds")
            if prices and lacking <= terms_of(piece) and _opening(piece) <= lacking:
                return sentence, free.text, prices[0].text
    return None


def _pieces(sentence: str) -> list[str]:
    """The clauses of ``sentence``."""
    return [piece for piece in _CLAUSE.split(sentence) if piece.strip()]


def _opening(piece: str) -> frozenset[str]:
    """The first content word of ``piece`` (its terms), which names its subject."""
    return next((found for word in piece.split() if (found := terms_of(word))), frozenset())
