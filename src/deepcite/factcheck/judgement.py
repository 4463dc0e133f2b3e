"""What a claim's verdict is made of, and the thresholds that decide it.

The types :mod:`deepcite.factcheck.judge` returns (a :class:`Judgement` with its
:class:`Quote` and :class:`Conflict` records) and the shares of a claim's words and
closeness in meaning its rules compare against. Kept apart so the rules that find a
contradiction in a sentence no other rule chose (:mod:`deepcite.factcheck.outright`)
build the same records against the same thresholds as the judge, without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

from deepcite.factcheck.passages import Sentence
from deepcite.types import Verdict

__all__ = [
    "DENIAL_CANDIDATES",
    "DENIAL_EXTRA",
    "DENIAL_FLOOR",
    "FOUND",
    "MAX_QUOTES",
    "MEANING_FOUND",
    "MEANING_MIN_WORDS",
    "MEANING_SUPPORTED",
    "MEANING_WEIGHT",
    "MEANING_WITH_VALUES",
    "NEARLY_CLOSE",
    "NEARLY_FOUND",
    "NEAR_FLOOR",
    "NEAR_SCORE",
    "SLOT_BONUS",
    "SUPPORTED",
    "SUPPORTED_WITH_VALUES",
    "Conflict",
    "Judgement",
    "Quote",
    "quote_of_sentence",
]

#: The share of the claim's (weighted) words the best sentence must say for the
#: sources to state the claim's subject at all.
FOUND = 0.5
#: ... and for a claim whose values all agree to count as supported.
SUPPORTED = 0.68
#: ... or, when every value the claim states (at least one) agrees, this share.
SUPPORTED_WITH_VALUES = 0.6
#: A value of another sentence this close to the best one's score contradicts the claim.
NEAR_SCORE = 0.15
#: A sentence of only the claim's words denying it contradicts it from this share on
#: (among the best few).
DENIAL_FLOOR = 0.3
DENIAL_CANDIDATES = 5
#: ... its words beyond the claim's being at most one, or this many when its negation
#: governs one of the claim's words.
DENIAL_EXTRA = 3
#: ... and only when that sentence says this share of the claim's words itself.
NEAR_FLOOR = 0.3
#: Sentences this close to the best are ranked by the facts they state of the claim's kinds.
SLOT_BONUS = 0.1
#: The most quotes kept as a claim's evidence.
MAX_QUOTES = 3
#: With a sentence encoder (:mod:`~deepcite.factcheck.meaning`): a sentence whose
#: closeness in meaning (cosine) and share of the claim's words add up to this states
#: the claim's subject ...
MEANING_FOUND = 1.0
#: ... and one this close says the claim itself, when its values and names agree ...
MEANING_SUPPORTED = 0.74
#: ... or this close, when it states every value of the claim (at least one).
MEANING_WITH_VALUES = 0.6
#: The fewest words a sentence closeness in meaning is counted for (a heading, "Zebra
#: Cache", is close to every claim about Zebra Cache).
MEANING_MIN_WORDS = 5
#: A sentence this much short of :data:`MEANING_FOUND`, and at least this close in
#: meaning, contradicts a claim it denies or limits (:func:`_contradicted_nearly`).
NEARLY_FOUND = 0.2
NEARLY_CLOSE = 0.35
#: How much closeness in meaning adds to a sentence's share of the claim's words when
#: the sentences are ranked.
MEANING_WEIGHT = 1.0


@dataclass(frozen=True)
class Quote:
    """A sentence of passage ``passage`` (an index into the passages judged), at
    ``start``..``end`` of that passage's text."""

    passage: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Conflict:
    """What the claim says (``draft``) against what quote ``quote`` says (``source``)."""

    draft: str
    source: str
    quote: int


@dataclass(frozen=True)
class Judgement:
    """A claim's verdict and why: the quotes that decided it (by index into
    ``quotes``), the conflicts, what was stated and what was not."""

    verdict: Verdict
    score: float
    quotes: tuple[Quote, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    stated: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    #: Whether the claim's scope differs from the source's (a restriction or condition
    #: one states and the other does not): its clauses alone cannot settle it.
    scoped: bool = False
    #: Whether closeness in meaning, rather than the words, made it ``supported``.
    meant: bool = False


def quote_of_sentence(sentence: Sentence) -> Quote:
    return Quote(sentence.passage, sentence.start, sentence.end, sentence.text)
