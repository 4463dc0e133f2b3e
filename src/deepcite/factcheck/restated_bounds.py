"""A bound the source states otherwise: a claim's "Python 3.9 or later" against a
source's "Python 3.10 or newer. Python 3.9 support was dropped in version 2.0." The
sentence naming the very number (here without a bound) ranks first, yet the lower
bound of the same thing is the other sentence's, and it is another one.

Its own module so that :mod:`~deepcite.factcheck.judge` stays about ranking and
deciding: :func:`decide_bounded` wraps :func:`~deepcite.factcheck.conflicts.decide`.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.factcheck.agreement import agrees
from deepcite.factcheck.conflicts import decide
from deepcite.factcheck.passages import Sentence, sentence_values, values_of
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.values import Value

__all__ = ["decide_bounded", "restated_bound"]


def restated_bound(value: Value, sentences: Sequence[Sentence],
                   claim_values: Sequence[Value] = ()) -> tuple[Sentence, Value] | None:
    """The first of ``sentences`` stating a bound of the same side as the claim's
    ``value`` ("or later", "at least") on a value of the same kind after the same word
    ("Python"), at another amount, with that value; None where the claim's value is no
    lower or upper bound or no sentence so states another."""
    if value.bound not in ("min", "max") or not value.before or value.amount is None:
        return None
    for sentence in sentences:
        for other in values_of(sentence.text):
            if other.bound == value.bound and other.kind == value.kind \
                    and other.before == value.before and (other.unit == value.unit or (
                        bool(value.dimension) and other.dimension == value.dimension)) \
                    and other.amount is not None and other.amount != value.amount \
                    and not any(agrees(mine, other) for mine in claim_values):
                return sentence, other
    return None


def decide_bounded(value: Value, claim: str, sentences: Sequence[Sentence],
                   claim_values: Sequence[Value], on_subject: Sequence[Sentence],
                   best: Sentence) -> tuple[Sentence, Value | None] | None:
    """:func:`~deepcite.factcheck.conflicts.decide`, but where the sentence stating the
    claim's bounded value states it without a bound ("Python 3.9 support was dropped")
    and a sentence on the subject states the bound of the same thing otherwise ("Python
    3.10 or newer"), that sentence and its value: the bound is what the claim says.
    Only ``best``, the sentence closest to the claim, is searched ``loose``."""
    decided = decide(value, claim, sentences, claim_values,
                     loose=list(sentences) == [best])
    if decided is None or decided[1] is not None:
        return decided
    if any(agrees(value, other) and other.bound == value.bound
           for other in sentence_values(decided[0], terms_of(claim))):
        return decided  # the sentence states the very bound
    restated = restated_bound(value, on_subject, claim_values)
    return decided if restated is None else restated
