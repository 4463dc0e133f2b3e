"""A value the source gives for another day of the week than the claim's: "Eastbrook
stays open late on Wednesdays, till half seven" against "10:00 to 18:00 (Thursday until
19:30)".

The claim's time is the source's, so the values agree and the claim came out
supported or partly supported; but the source ties that time to Thursday, a day the
claim does not name, and names no Wednesday. The day the source writes just before the
value is the one it holds for, which contradicts the claim's day.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from deepcite.factcheck.agreement import agrees
from deepcite.factcheck.passages import Sentence, values_of
from deepcite.factcheck.value import Value

__all__ = ["day_elsewhere"]

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY = re.compile(r"\b(" + "|".join(_DAYS) + r")s?\b", re.IGNORECASE)
# a range of days: "Monday to Friday", "Tuesday-Saturday" (not a list: "Monday and Friday")
_RANGE = re.compile(r"\b(" + "|".join(_DAYS) + r")s?\s*(?:to|-|\u2013|until|through|thru)\s*("
                    + "|".join(_DAYS) + r")s?\b", re.IGNORECASE)
#: How far before a value its day may stand ("Thursday until 19:30").
DAY_BEFORE = 20


def _days(text: str) -> set[str]:
    """The weekdays ``text`` names, those of a range ("Monday to Friday") included."""
    days = {match.group(1).lower() for match in _DAY.finditer(text)}
    for match in _RANGE.finditer(text):
        first, last = _DAYS.index(match.group(1).lower()), _DAYS.index(match.group(2).lower())
        span = range(first, last + 1) if first <= last else [*range(first, 7), *range(last + 1)]
        days.update(_DAYS[index] for index in span)
    return days


def day_elsewhere(claim: str, values: Sequence[Value],
                  decided_by: Mapping[str, Sentence]) -> tuple[Sentence, str, str] | None:
    """The sentence stating one of the claim's clock times for another weekday, written
    just before it, where the sentence names none of the claim's days; with the claim's
    day and the sentence's day and time. None otherwise."""
    mine = _days(claim)
    if not mine:
        return None
    for value in values:
        sentence = decided_by.get(value.text)
        if value.dimension != "clock" or sentence is None or mine & _days(sentence.text):
            continue
        for other in values_of(sentence.text):
            if other.dimension != "clock" or not agrees(value, other):
                continue
            before = list(_DAY.finditer(sentence.text[max(0, other.start - DAY_BEFORE):
                                                      other.start]))
            if before:
                day = next(match.group(0) for match in _DAY.finditer(claim))
                return sentence, day, f"{before[-1].group(0)} {other.text}".strip()
    return None
