"""A count whose noun is left to a pronoun: "118 buses, of which 42 are electric",
"... made 300 loaves and sold 250 of them", "a fleet of 118 buses including 52 electric
ones". The count is of what the earlier count of its sentence counts, so it takes that
unit: "52 electric ones" and "42" are then both numbers of buses, and one contradicts
the other, where with no unit (or the unit "ones") they were of no common slot and a
claim giving the wrong share of a whole was only "partly" stated.

Its own module so that :mod:`~deepcite.factcheck.values` (reading each kind of value)
stays about reading; this is a pass over what it read.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from deepcite.factcheck.value import Value

__all__ = ["OF_THEM", "referred"]

# "of which 42", "of whom 12", "including 52" - the count right after
_BEFORE = re.compile(r"\b(?:of\s+(?:which|whom)|among\s+them|including)\s+$", re.IGNORECASE)
# "42 of them", "250 of these", "12 of those"
OF_THEM = re.compile(r"^\s+of\s+(?:them|these|those)\b", re.IGNORECASE)
_PRONOUN_UNITS = frozenset({"one", "ones"})
_SENTENCE_BREAK = re.compile(r"[.!?;]\s")


def referred(text: str, values: Sequence[Value]) -> list[Value]:
    """``values`` (in order of place) with each count whose noun a pronoun stands for
    given the unit of the nearest earlier count of its sentence; the others as they are."""
    out: list[Value] = []
    for value in values:
        model = _model(text, value, out) if _referring(text, value) else None
        out.append(value if model is None else dataclasses.replace(value, unit=model.unit))
    return out


def _referring(text: str, value: Value) -> bool:
    """Whether ``value`` is a plain count whose noun is a pronoun ("ones") or left out
    after "of which" / before "of them"."""
    if value.kind != "number" or value.dimension:
        return False
    if value.unit in _PRONOUN_UNITS:
        return True
    return not value.unit and bool(_BEFORE.search(text, 0, value.start)
                                   or OF_THEM.match(text[value.end:]))


def _model(text: str, value: Value, earlier: Sequence[Value]) -> Value | None:
    """The nearest plain count (no measure: "118 buses", not "20 minutes") before
    ``value`` in its sentence that names what it counts."""
    for other in reversed(earlier):
        if _SENTENCE_BREAK.search(text, other.end, value.start):
            return None
        if other.kind == "number" and other.unit and not other.dimension \
                and other.unit not in _PRONOUN_UNITS and other.end <= value.start:
            return other
    return None
