"""A claim that something is open or runs at every hour ("around the clock", "24/7",
"24 hours a day") against a source giving it hours ("operate from 6:00 to 23:00 only"):
the hours contradict it, though no value of the claim's has a slot to compare."""

from __future__ import annotations

import re

from deepcite.factcheck.passages import values_of

__all__ = ["all_hours", "hours_clash"]

_ALL_HOURS = re.compile(r"\b(?:a)?round\s+the\s+clock\b|\b24/7\b|\b24\s+hours\s+a\s+day\b|"
                        r"\bday\s+and\s+night\b|\bat\s+all\s+hours\b|"
                        r"\b(?:at\s+)?any\s+time\s+of\s+(?:the\s+)?day(?:\s+or\s+night)?\b",
                        re.IGNORECASE)
_CLAUSE_START = re.compile(r"[,;:.!?]\s+")
_DAY_MINUTES = 24 * 60


def all_hours(text: str) -> str | None:
    """The words of ``text`` saying every hour of the day, or None."""
    match = _ALL_HOURS.search(text)
    return match.group(0) if match else None


def hours_clash(claim: str, sentence: str) -> tuple[str, str] | None:
    """The claim's "around the clock" and the sentence's hours, where the sentence
    gives a range of clock times short of the whole day; else None."""
    wide = all_hours(claim)
    if wide is None or all_hours(sentence) is not None:
        return None
    clocks = [v for v in values_of(sentence) if v.dimension == "clock"]
    if len(clocks) < 2:
        return None
    first, last = clocks[0], clocks[1]
    if first.amount is None or last.amount is None or (
            first.amount == last.amount or (last.amount - first.amount) % _DAY_MINUTES == 0):
        return None  # "from midnight to midnight" is the whole day
    start = max((m.end() for m in _CLAUSE_START.finditer(sentence, 0, first.start)),
                default=0)
    end = last.end
    only = re.match(r"\s+only\b", sentence[end:])
    return wide, sentence[start:end + (only.end() if only else 0)]
