"""Two denials saying the same thing in other words.

"Cash isn't an option" against "Cash is not accepted": each side denies something of
the same subject, the claim "an option", the source "accepted". Word by word the
claim's "option" is nowhere in the source, yet a source denying its subject denies
what the claim denies of it. The claim's denied words then count as said by that
sentence - only where both deny one subject, and each denies a short predicate sharing
no word with the other's (two denials of one predicate - "not allowed on the bus"
against "not allowed in the park" - differ in what they add, which stays unsaid).
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache

from deepcite.factcheck.negation import DENIAL_SPAN, NOT_NEGATION
from deepcite.factcheck.passages import Sentence
from deepcite.factcheck.terms import terms_of

__all__ = ["denial_credit", "with_denial"]

_PIECE = re.compile(r"[^,;:.!?()]+")
_WORD = re.compile(r"[\w'\u2019-]+")
_NEGATION_WORD = re.compile(r"(?:not|never|no|cannot|\w+n[\u2019']t)", re.IGNORECASE)
#: The subject is read from at most this many words before the negation ...
SUBJECT_SPAN = 3
#: ... and each side's denied predicate has at most this many content words.
PREDICATE_TERMS = 2


@lru_cache(maxsize=8192)
def _denials(text: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """Each negation of ``text`` as (the content words of its subject, the content
    words it denies), within its clause."""
    found = []
    for piece in _PIECE.findall(NOT_NEGATION.sub(" ", text)):
        words = _WORD.findall(piece)
        for index, word in enumerate(words):
            if _NEGATION_WORD.fullmatch(word):
                subject = terms_of(" ".join(words[max(0, index - SUBJECT_SPAN):index]))
                denied = terms_of(" ".join(words[index + 1:index + 1 + DENIAL_SPAN]))
                found.append((subject, denied))
    return tuple(found)


def denial_credit(claim: str, sentence: str) -> frozenset[str]:
    """The claim's denied words that ``sentence``, denying the same subject something
    in other words, says too; empty when it does not."""
    for subject, mine in _denials(claim):
        if not subject or not mine or len(mine) > PREDICATE_TERMS:
            continue
        for their_subject, theirs in _denials(sentence):
            if subject <= their_subject and len(their_subject - subject) <= 1 and theirs \
                    and len(theirs) <= PREDICATE_TERMS and not mine & theirs:
                return mine
    return frozenset()


def with_denial(claim: str, sentence: Sentence) -> Sentence:
    """``sentence`` with the words of the claim its agreeing denial says
    (:func:`denial_credit`) among its terms."""
    extra = denial_credit(claim, sentence.text) - sentence.terms
    return dataclasses.replace(sentence, terms=sentence.terms | extra) if extra else sentence
