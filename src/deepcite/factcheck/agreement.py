"""Whether two values say the same thing: the comparison every contradiction rests on.

:func:`same_slot` tells whether a source's value is of the same kind of thing as the
claim's (same dimension or unit, a year against a year), so that a different one
contradicts it; :func:`agrees` whether it states the claim's value (a date agrees with
its own month, a series with its releases, a bound with a value within it);
:func:`agrees_as_count` whether it is the claim's count under another noun. Kept apart
from :mod:`deepcite.factcheck.values`, which reads values out of text, since reading
and comparing change for different reasons.
"""

from __future__ import annotations

import re

from deepcite.factcheck.bounds import within
from deepcite.factcheck.dates import day_of
from deepcite.factcheck.units import CURRENCIES, DIMENSIONS, FREE, SAME_UNITS
from deepcite.factcheck.value import Value
from deepcite.factcheck.versions import series_agrees

__all__ = ["agrees", "agrees_as_count", "same_slot"]


def same_slot(claim: Value, other: Value) -> bool:
    """Whether ``other`` is a value of the same kind of thing as ``claim``, so that a
    different one contradicts it: same dimension or unit, same currency, a year or date
    against a year or date."""
    if claim.kind in ("year", "date"):
        if claim.key.startswith("---") or other.key.startswith("---"):
            # a day of the month alone ("Thursday the 24th") against another day
            return claim.kind == other.kind == "date" and day_of(claim.key) is not None \
                and day_of(other.key) is not None
        if claim.key.startswith("--") or other.key.startswith("--"):
            return claim.kind == other.kind == "date"  # a month against a month
        return other.kind in ("year", "date")
    if claim.kind != other.kind:
        return False
    if claim.kind in ("percent", "version"):
        return claim.kind == "percent" or claim.before == other.before
    if claim.kind == "money":
        # a claim that something is free is of the slot of any price (one of a price
        # is not of the slot of "free": "children under 5 travel free" beside the
        # adult fare says nothing of the fare)
        return claim.unit == other.unit or claim.unit == FREE
    if _bare(other) and claim.before and claim.before == other.before:
        return True  # "timeout=30" is the timeout the claim gives in seconds
    if _bare(claim) and _bare(other) and claim.bound and claim.bound == other.bound:
        return True  # "up to 128 with --jobs" against "the --jobs option ..., up to 64"
    if claim.dimension:
        return claim.dimension == other.dimension
    if claim.after and claim.after == other.after and not (claim.unit and other.unit):
        # "150 of them are juniors" and "of whom 130 are juniors", the one read as a
        # count of members: what both say after the number is what they count
        return True
    if claim.unit or other.unit:
        # units that are no measure ("under 16 get in", "under 12 enter") do not
        # part values the same word stands before ("children")
        plain = not (claim.unit in DIMENSIONS or other.unit in DIMENSIONS
                     or claim.unit in SAME_UNITS.values() or other.unit in SAME_UNITS.values())
        return claim.unit == other.unit or (plain and bool(claim.before)
                                            and claim.before == other.before)
    return (bool(claim.before) and claim.before == other.before) or (
        bool(claim.after) and claim.after == other.after)


def agrees(claim: Value, other: Value) -> bool:
    """Whether ``other`` states ``claim``'s value (a date agrees with its own year and
    month: "March 2021" with "5 March 2021")."""
    if claim.key.startswith("---") or other.key.startswith("---"):
        mine_day = day_of(claim.key) if claim.kind == "date" else None
        return mine_day is not None and other.kind == "date" and mine_day == day_of(other.key)
    if claim.key.startswith("--") or other.key.startswith("--"):
        if claim.kind != "date" or other.kind != "date":
            return False
        mine, theirs = claim.key.lstrip("-"), other.key[other.key.find("-") + 1:] \
            if not other.key.startswith("--") else other.key.lstrip("-")
        if claim.key.startswith("--") and not other.key.startswith("--"):
            theirs = other.key[5:]  # "2017-04-05" -> "04-05"
        elif other.key.startswith("--") and not claim.key.startswith("--"):
            mine = claim.key[5:]
        shorter = min(len(mine), len(theirs))
        return bool(shorter) and mine[:shorter] == theirs[:shorter]
    series = series_agrees(claim, other)
    if series is not None:
        return series  # "the 1.x series" and "1.9"
    if claim.kind in ("year", "date") and other.kind in ("year", "date"):
        shorter = min(len(claim.key), len(other.key))
        return claim.key[:shorter] == other.key[:shorter] and (
            claim.kind == "year" or len(other.key) >= len(claim.key))
    if _bare(claim) and other.dimension == "clock" and claim.amount is not None \
            and other.amount is not None and float(claim.amount).is_integer() \
            and 1 <= claim.amount <= 24 and other.amount % 60 == 0:
        # "from 9 to 1" says the hours "from 9 am to 1 pm" does
        return int(claim.amount) % 12 == int(other.amount // 60) % 12
    if claim.dimension == "clock" == other.dimension and claim.amount is not None \
            and other.amount is not None and (_twelve_hour(claim) or _twelve_hour(other)) \
            and claim.amount % 720 == other.amount % 720:
        # "shut at half four" (or "at 4:30") is the row's 16:30: a time of the
        # 12-hour clock written without am or pm may be either
        return True
    # the same number of the same unit is the same value, whatever word stands before
    # it ("Python 3.7", "version 3.7")
    # (and a bare number with a decimal point written the same: "a no-go since 4.0" and
    # "not supported from version 4.0 onward")
    loose = claim.kind == other.kind and claim.kind in ("number", "version") and (
        claim.unit == other.unit or (bool(claim.before) and claim.before == other.before)
        or (_bare(claim) and _bare(other) and "." in claim.text
            and claim.text.split()[0] == other.text.split()[0]))
    if not same_slot(claim, other):
        # only the very number: a bound ("up to 128 with --jobs") says nothing of a
        # smaller number of another thing ("release 3.2")
        return loose and (claim.key == other.key or (
            claim.amount is not None and claim.amount == other.amount))
    if claim.amount is not None and other.amount is not None:
        if claim.dimension and _bare(other):
            return claim.key == other.key  # the number as written: "timeout=30"
        return within(claim, other)
    return claim.key == other.key


#: What says which half of the day a time is in, or that it is written on the 24-hour
#: clock ("08:30").
_HALF_OF_DAY = re.compile(r"[ap]\.?m\b|morning|afternoon|evening|night|noon|midnight|"
                          r"^0\d|^(?:1[3-9]|2\d)", re.IGNORECASE)


def _twelve_hour(value: Value) -> bool:
    """Whether ``value`` is a time of the clock written without its half of the day
    ("4:30", "half four"): in the morning or in the afternoon alike."""
    return value.amount is not None and value.amount < 13 * 60 \
        and _HALF_OF_DAY.search(value.text.strip()) is None


def _bare(value: Value) -> bool:
    """A number with no unit or measure, named only by the word before it (code's
    ``timeout=30``, "port 9090")."""
    return value.kind == "number" and not value.unit and not value.dimension


def agrees_as_count(claim: Value, other: Value) -> bool:
    """Whether ``other`` is the claim's count of things under another noun ("three
    ships" and "three vessels", "over a million people" and "1.2 million users"): a
    count of more than one, neither a measure nor money. Only the sentence that says
    the claim's subject may state it so (see :func:`~deepcite.factcheck.conflicts.
    decide`)."""
    if claim.kind != "number" or other.kind != "number" or claim.dimension \
            or other.dimension or not claim.unit or not other.unit \
            or claim.unit in CURRENCIES or other.unit in CURRENCIES:
        return False
    if claim.amount is None or other.amount is None or claim.amount < 2:
        return False
    return within(claim, other)
