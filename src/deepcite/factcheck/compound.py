"""Values of one quantity written in parts, joined: "2 hours and 40 minutes" is one
duration, "12 or 24 volt" gives the 12 its volts. Read after every value of a text is
found (:func:`deepcite.factcheck.values.extract_values`), since a join needs both sides.
"""

from __future__ import annotations

import dataclasses
import re

from deepcite.factcheck.value import Value

__all__ = ["compound", "plain_key", "plain_number"]


def plain_key(amount: float) -> str:
    """A value's key for ``amount``: six significant digits, so 0.1 + 0.2 keys as 0.3."""
    return f"{amount:.6g}"


_JOINED = re.compile(r"\s*(?:,|and|,\s*and)?\s*")
_SHARED_UNIT = re.compile(r"\s*(?:or|and|to|-|\u2013)\s*")


def _share_units(text: str, values: list[Value]) -> list[Value]:
    """A number whose unit the next one carries ("12 or 24 volt", "9 to 5 days") with
    that unit."""
    shared = list(values)
    for index in range(len(shared) - 2, -1, -1):
        first, second = shared[index], shared[index + 1]
        if first.kind == second.kind == "number" and not first.unit and second.unit \
                and second.amount is not None \
                and _SHARED_UNIT.fullmatch(text[first.end:second.start]):
            # a clock time ("05:00") has a key that is no plain number: no share
            mine, theirs = plain_number(first.key), plain_number(second.key)
            if mine is None or not theirs:
                continue
            size = second.amount / theirs
            shared[index] = dataclasses.replace(
                first, unit=second.unit, dimension=second.dimension, amount=mine * size)
    return shared


def plain_number(key: str) -> float | None:
    """``key`` as a number, or None when it is written otherwise ("05:00")."""
    try:
        return float(key)
    except ValueError:
        return None


def compound(text: str, values: list[Value]) -> list[Value]:
    """Values of one quantity written in parts ("2 hours and 40 minutes") as one."""
    values = _share_units(text, values)
    merged: list[Value] = []
    for value in values:
        last = merged[-1] if merged else None
        if (last is not None and last.dimension and last.dimension == value.dimension
                and last.dimension != "clock" and last.amount is not None
                and value.amount is not None and value.amount < last.amount
                and _JOINED.fullmatch(text[last.end:value.start])):
            amount = last.amount + value.amount
            merged[-1] = Value(last.kind, plain_key(amount), text[last.start:value.end],
                               last.start, value.end, amount, last.unit, last.dimension,
                               last.before)
        else:
            merged.append(value)
    return merged
