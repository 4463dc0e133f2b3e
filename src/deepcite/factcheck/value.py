"""One value a text states (a number with its unit, a percentage, money, a year, a date,
a version): what it is, how it compares, where and how it is written.

Its own module so that the modules reading values of each kind (:mod:`~deepcite.
factcheck.dates`, :mod:`~deepcite.factcheck.values`) share it without importing each
other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Value", "ValueKind"]

ValueKind = Literal["number", "percent", "money", "year", "date", "version"]


@dataclass(frozen=True)
class Value:
    """One value of a text: what it is, how it compares, where and how it is written.

    ``key`` is what equal values share (the number as written in base form, ``2021`` or
    ``2021-03`` for dates); ``amount`` is a number's size in the base unit of its
    ``dimension`` (seconds, bytes, metres, grams) or its plain size; ``unit`` is the word
    after it (``day``, ``employee``, ``%``, a currency), ``before`` the content word
    before it (``version``, ``port``), which tell values of one slot from another.
    ``text`` is the value as written, with its unit; ``start``/``end`` its place.
    """

    kind: ValueKind
    key: str
    text: str
    start: int
    end: int
    amount: float | None = None
    unit: str = ""
    dimension: str = ""
    before: str = ""
    #: For a number without a unit, the content word after it in its clause ("150 of
    #: them are juniors": ``junior``), which tells its slot where no word before does.
    after: str = ""
    #: A bound written before it: ``min`` ("more than", "over", "at least"), ``max``
    #: ("less than", "under", "up to", "at most"), ``approx`` ("about", "around",
    #: "nearly"), else "".
    bound: str = ""
