"""A claim's bare numbers read with the unit it names before them: "migraine days
dropped by about 7 a month, against about 4 on placebo" counts days, as the source's
"fell by 7.1 days a month ... by 4.3 days" does.

A draft names what it counts once ("migraine days") and then writes the numbers alone;
read bare, "about 7" agrees with no "7.1 days" and the claim's values go unstated.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from deepcite.factcheck.units import CURRENCIES, DIMENSIONS
from deepcite.factcheck.value import Value
from deepcite.text.stem import singular
from deepcite.text.stopwords import STOPWORDS

__all__ = ["with_claimed_unit"]

_WORD = re.compile(r"[A-Za-z]+")
# Unit words that are other words too: "the second", "a pound", "m", "min".
_AMBIGUOUS = frozenset({"second", "pound"})


def with_claimed_unit(text: str, values: Sequence[Value]) -> tuple[Value, ...]:
    """``values`` of the claim ``text``, each bare number (no unit, no measure, no label
    before it) after the one unit of measure the claim names outside its values read in
    that unit; all as they were when the claim names no such unit, several, or one a
    value has."""
    units: dict[str, int] = {}
    for word in _WORD.finditer(text):
        name = singular(word.group(0).lower())
        if len(name) < 3 or name in _AMBIGUOUS or name in CURRENCIES \
                or name not in DIMENSIONS \
                or any(v.start <= word.start() < v.end for v in values):
            continue
        units.setdefault(name, word.end())
    if len(units) != 1:
        return tuple(values)
    [(unit, after)] = units.items()
    dimension, size = DIMENSIONS[unit]
    if any(v.dimension == dimension for v in values):
        return tuple(values)
    return tuple(
        dataclasses.replace(v, amount=v.amount * size, unit=unit, dimension=dimension)
        if v.kind == "number" and not v.unit and not v.dimension and v.amount is not None
        and v.start >= after and (v.bound or _unlabelled(text, v)) else v
        for v in values)


def _unlabelled(text: str, value: Value) -> bool:
    """Whether no word naming it stands just before ``value`` ("by 7", not "route 14"
    or "level 3", which are labels, no amounts)."""
    before = _WORD.findall(text[:value.start])
    return not before or before[-1].lower() in STOPWORDS
