"""A count left to "of them" whose noun the sentence names before it without a count:
"the butterie, a flaky salted roll; the bakery makes about 18,000 of them every day".

:mod:`~deepcite.factcheck.referring` gives such a count the unit of an earlier count
of its sentence; with none, "them" may stand for any noun before it ("butterie",
"roll", "product"), which no reading of the sentence alone picks. Against a claim
counting one of them ("8,000 butteries a day"), the count is of the claim's noun when
the sentence names that noun before it: of its slot, so that another number
contradicts the claim.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from deepcite.factcheck.referring import OF_THEM
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.value import Value

__all__ = ["counted_as", "counts_named_noun"]



def counts_named_noun(value: Value, other: Value, sentence: str) -> bool:
    """Whether ``other`` (a count of ``sentence``) is a plain count before "of them"
    whose sentence names the noun ``value`` (the claim's count) counts before it."""
    return (value.kind == other.kind == "number" and bool(value.unit)
            and not value.dimension and not other.unit and not other.dimension
            and OF_THEM.match(sentence[other.end:]) is not None
            and value.unit in terms_of(sentence[:other.start]))


def counted_as(value: Value, theirs: Sequence[Value], sentence: str) -> list[Value]:
    """``theirs`` (the values of ``sentence``) with each count of the noun ``value``
    counts, by :func:`counts_named_noun`, given that noun."""
    return [dataclasses.replace(other, unit=value.unit)
            if counts_named_noun(value, other, sentence) else other for other in theirs]
