"""Years and dates a text states ("2017", "5 March 2017", "March 2018", "in April"),
as :class:`~deepcite.factcheck.value.Value`: a year agrees with a date in it.
"""

from __future__ import annotations

import re

from deepcite.factcheck.value import Value, ValueKind

__all__ = ["MONTHS", "date_values", "day_of"]

MONTHS = {name: index for index, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
    ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
    ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec")), start=1) for name in names}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>1[5-9]\d\d|20\d\d|21\d\d)"
_DATES = [re.compile(pattern, re.IGNORECASE) for pattern in (
    r"\b(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\b",
    rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b",
    rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b",
    rf"\b{_MONTH},?\s+{_YEAR}\b",
    r"(?P<year>\d{4})\s*年\s*(?:(?P<month>\d{1,2})\s*月\s*(?:(?P<day>\d{1,2})\s*日)?)?",
    r"(?P<year>\d{4})\s*년\s*(?:(?P<month>\d{1,2})\s*월\s*(?:(?P<day>\d{1,2})\s*일)?)?",
)]
# A month or a day of one without a year ("arrive in April", "on 5 May"), after a word
# that makes it a date (so the verb "may" is none).
_MONTH_PREFIX = (r"\b(?:in|on|by|until|till|since|from|to|of|early|late|mid|before|after|"
                 r"every|each|through|during)\s+")
_MONTH_ONLY = [re.compile(_MONTH_PREFIX + pattern + r"\b", re.IGNORECASE) for pattern in (
    rf"(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}", rf"{_MONTH}(?:\s+{_DAY}(?!\d))?")]
# A day of the month alone ("closes on Thursday the 24th", "by the 3rd, then"): the
# ordinal after "the", where no noun follows ("the 3rd floor" is no date)
_DAY_ONLY = re.compile(
    r"\b(?:on|by|until|till|from|before|after|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday),?\s+the\s+(?P<day>[12]?\d|3[01])(?:st|nd|rd|th)\b"
    r"(?=\s*(?:[,.;:!?)]|$|\s+(?:at|and|to|until|till|from|so|but|or|when|if|then)\b))",
    re.IGNORECASE)


# "the 1990s": a decade, which a year of it states ("1994") and another decade does not
# (read as a number, "1990s" was 1990 seconds)
_DECADE = re.compile(r"\b(?P<decade>1[5-9]\d0|20\d0)s\b")


# "the second weekend of August", "the first Saturday of each month", "the last week in
# June": a place in the calendar, which another ordinal of the same noun contradicts
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3,
             "fourth": 4, "4th": 4, "fifth": 5, "5th": 5, "last": -1, "final": -1}
_CALENDAR = re.compile(
    r"\b(?P<ord>" + "|".join(_ORDINALS) + r")\s+(?P<noun>weekend|week|day|weekday|month|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\s+(?:of|in)\b",
    re.IGNORECASE)


def date_values(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    values: list[Value] = []
    for match in _CALENDAR.finditer(text):
        place = float(_ORDINALS[match.group("ord").lower()])
        end = match.end("noun")
        values.append(Value("number", f"{place:g}", text[match.start():end], match.start(),
                            end, place, f"{match.group('noun').lower()} of"))
        taken.append((match.start(), end))
    for match in _DECADE.finditer(text):
        values.append(Value("year", match.group("decade")[:3], match.group(0),
                            match.start(), match.end(), float(match.group("decade"))))
        taken.append((match.start(), match.end()))
    for pattern in _DATES:
        for match in pattern.finditer(text):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue
            year = int(match.group("year"))
            month_text = match.group("month")
            month = None
            if month_text:
                month = int(month_text) if month_text.isdigit() else MONTHS.get(
                    month_text.lower().rstrip("."))
            day = match.group("day") if "day" in pattern.groupindex else None
            if month is not None and not 1 <= month <= 12:
                continue
            key = f"{year:04d}" + (f"-{month:02d}" if month else "") + (
                f"-{int(day):02d}" if day and month else "")
            kind: ValueKind = "date" if month else "year"
            values.append(Value(kind, key, match.group(0).strip(), match.start(),
                                match.end(), float(year)))
            taken.append((match.start(), match.end()))
    for match in (m for pattern in _MONTH_ONLY for m in pattern.finditer(text)):
        name = match.group("month")
        if any(a < match.end() and match.start() < b for a, b in taken) \
                or not name[0].isupper():  # "in may", "on march": the verbs
            continue
        month = MONTHS[name.lower().rstrip(".")]
        day = match.group("day")
        start = match.start("month") if not day else min(match.start("month"),
                                                         match.start("day"))
        key = f"--{month:02d}" + (f"-{int(day):02d}" if day else "")
        values.append(Value("date", key, text[start:match.end()], start, match.end()))
        taken.append((start, match.end()))
    for match in _DAY_ONLY.finditer(text):
        start, end = match.start("day"), match.end()
        if any(a < end and start < b for a, b in taken):
            continue
        values.append(Value("date", f"---{int(match.group('day')):02d}",
                            text[start:end], start, end))
        taken.append((start, end))
    return values


def day_of(key: str) -> str | None:
    """The day of the month a date's key gives ("24" of "2025-01-24", "--01-24" and
    "---24"), or None for a month or a year."""
    if key.startswith("---"):
        return key[3:]
    parts = key[2:].split("-") if key.startswith("--") else key.split("-")
    return parts[-1] if len(parts) == (2 if key.startswith("--") else 3) else None
