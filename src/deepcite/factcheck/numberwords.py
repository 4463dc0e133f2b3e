"""Numbers written in words: "three", "twenty-five", "one hundred and fifty", and
amounts with a half ("an hour and a half", "two and a half days", "half an hour").

Its own module so that :mod:`~deepcite.factcheck.values` stays about comparing
values: a draft writes "an hour and a half" where its source says "90 minutes", and
read as "an hour" that true claim was contradicted.
"""

from __future__ import annotations

import re

from deepcite.factcheck.units import CURRENCIES, DIMENSIONS, unit_of
from deepcite.factcheck.value import Value

__all__ = ["NUMBER_WORD", "NUMBER_WORDS_ALL", "clock_word_values", "half_values",
           "one_currency_values", "part_values", "word_number"]

_SMALL_NUMBERS = """zero one two three four five six seven eight nine ten eleven twelve
    thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"""
_WORD_NUMBERS = {word: value for value, word in enumerate(_SMALL_NUMBERS.split())}
_WORD_NUMBERS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
                      "eighty": 80, "ninety": 90, "dozen": 12})
_MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 1e6, "billion": 1e9}
NUMBER_WORDS_ALL = "|".join(sorted([*_WORD_NUMBERS, *_MULTIPLIERS], key=len, reverse=True))
# A number in words, "three", "twenty-five", "three hundred", "one hundred and fifty".
NUMBER_WORD = re.compile(
    rf"\b(?:{NUMBER_WORDS_ALL})(?:(?:[\s-]+|\s+and\s+)(?:{NUMBER_WORDS_ALL}))*\b",
    re.IGNORECASE)
# The units a half is said of: durations and lengths ("two and a half miles").
_HALF_UNITS = r"(?:minute|hour|day|week|fortnight|month|year|decade|mile|kilometre|metre)s?"
_SMALL = "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True))
# "two and a half hours", "3 and a half days", "an hour and a half", "half an hour".
_HALF = re.compile(
    rf"\b(?P<count>\d+|an?|{_SMALL})\s+and\s+a\s+half\s+(?P<unit>{_HALF_UNITS})\b|"
    rf"\b(?P<one>an?|one)\s+(?P<unit1>{_HALF_UNITS})\s+and\s+a\s+half\b|"
    rf"\bhalf\s+an?\s+(?P<unit2>{_HALF_UNITS})\b", re.IGNORECASE)


# "a quarter of an hour", "three quarters of an hour", "the first quarter of an hour", "a
# third of a mile": a part of one unit, an amount of that unit (not a share: "a quarter
# of the land" is one).
_PART_OF_UNIT = re.compile(
    rf"\b(?P<count>an?|one|two|three|first)[\s-]+(?P<part>quarters?|thirds?|half)\s+of\s+an?\s+"
    rf"(?P<unit>{_HALF_UNITS})\b", re.IGNORECASE)
_PART_SIZES = {"quarter": 0.25, "third": 1 / 3, "half": 0.5}
# An hour of the clock in words or figures: "five in the morning", "eleven at night",
# "7 in the evening", "six o'clock", "half past six".
_DAY_PARTS = {"morning": 0, "afternoon": 12, "evening": 12, "night": 12}
_CLOCK_WORD = re.compile(
    rf"\b(?:(?P<past>half|quarter)\s+past\s+|(?P<half>half)\s+)?(?P<hour>1[0-2]|0?[1-9]|{_SMALL})"
    r"(?:\s+o[\u2019']clock)?\s+(?:in\s+the\s+(?P<part>morning|afternoon|evening)|"
    r"at\s+(?P<night>night))\b|"
    rf"\b(?P<past2>half|quarter)\s+past\s+(?P<hour2>1[0-2]|0?[1-9]|{_SMALL})\b|"
    rf"\b(?P<hour3>1[0-2]|0?[1-9]|{_SMALL})\s+o[\u2019']clock\b|"
    # "shut at half four": half past, as British English says it, after a word placing
    # a time (not "half four hours", nor "at half price")
    r"(?:(?<=\bat\s)|(?<=\bby\s)|(?<=\bfrom\s)|(?<=\buntil\s)|(?<=\btill\s)|"
    r"(?<=\bbefore\s)|(?<=\bafter\s))"
    rf"(?P<half4>half)\s+"
    rf"(?P<hour4>1[0-2]|0?[1-9]|{_SMALL})\b(?!\s*(?:hours?|minutes?|days?|[-:.]\d))",
    re.IGNORECASE)
# Minutes to or past an hour: "quarter to seven" (06:45) anywhere; "ten to six", "twenty
# past eight" only after a word placing a time ("leaves at ten to six"): "from ten to
# six" is a span of hours, "ten to twelve people" a range.
_CLOCK_TO = re.compile(
    rf"\b(?:(?:a\s+)?(?P<quarter>quarter)|(?<=\bat\s)(?P<few>five|ten|twenty|twenty-five)|"
    rf"(?<=\bby\s)(?P<few2>five|ten|twenty|twenty-five))\s+(?P<rel>to|past)\s+"
    rf"(?P<hour>1[0-2]|0?[1-9]|{_SMALL})(?!\s*(?:[-:.]\d|%|per\b))"
    r"(?:\s+(?:in\s+the\s+(?P<part>morning|afternoon|evening)|at\s+(?P<night>night)))?\b",
    re.IGNORECASE)
_FEW_MINUTES = {"five": 5, "ten": 10, "twenty": 20, "twenty-five": 25}


def word_number(words: str) -> float:
    """The number ``words`` spell ("three hundred and twenty-five" is 325)."""
    total, current = 0.0, 0.0
    for word in re.findall(r"[a-z]+", words.lower()):
        if word in _WORD_NUMBERS:
            current += _WORD_NUMBERS[word]
        elif word in _MULTIPLIERS:
            scale = _MULTIPLIERS[word]
            if scale == 100:
                current = max(current, 1.0) * scale
            else:
                total += max(current, 1.0) * scale
                current = 0.0
    return total + current


def half_values(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    """The amounts with a half ``text`` states, in the base unit of their dimension
    ("an hour and a half" is 5,400 seconds, as "90 minutes" is); their places are added
    to ``taken`` so that no other reader counts "an hour" or "two" of them."""
    found: list[Value] = []
    for match in _HALF.finditer(text):
        if match.group("unit2"):
            number, word = 0.5, match.group("unit2")
        elif match.group("unit1"):
            number, word = 1.5, match.group("unit1")
        else:
            count = match.group("count").lower()
            whole = float(count) if count.isdigit() else 1.0 if count in ("a", "an") \
                else float(_WORD_NUMBERS[count])
            number, word = whole + 0.5, match.group("unit")
        unit = unit_of(word)
        dimension, size = DIMENSIONS.get(unit, ("", 1.0))
        found.append(Value("number", f"{number:.6g}", match.group(0), match.start(),
                           match.end(), number * size, unit, dimension))
        taken.append((match.start(), match.end()))
    return found


def part_values(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    """The parts of one unit ``text`` states as amounts of it ("a quarter of an hour" is
    900 seconds, as "15 minutes" is); their places are added to ``taken`` so that the
    share reader does not read "a quarter" as 25 %."""
    found: list[Value] = []
    for match in _PART_OF_UNIT.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        count = match.group("count").lower()
        whole = 1.0 if count in ("a", "an", "first") else float(_WORD_NUMBERS[count])
        number = whole * _PART_SIZES[match.group("part").lower().rstrip("s")]
        unit = unit_of(match.group("unit"))
        dimension, size = DIMENSIONS.get(unit, ("", 1.0))
        found.append(Value("number", f"{number:.6g}", match.group(0), match.start(),
                           match.end(), number * size, unit, dimension))
        taken.append((match.start(), match.end()))
    return found


def clock_word_values(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    """The hours of the clock ``text`` says in words ("five in the morning" is 05:00,
    "eleven at night" 23:00, "half past six" 06:30, "half two in the morning" 02:30),
    as clock values in minutes after
    midnight, as "05:00" is; their places are added to ``taken``. An hour without a
    part of the day ("six o'clock") is read as written, as a bare "9" is."""
    found: list[Value] = _clock_to_values(text, taken)
    for match in _CLOCK_WORD.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        said = match.group("hour") or match.group("hour2") or match.group("hour3") \
            or match.group("hour4")
        hour = _in_part(int(said) if said.isdigit() else _WORD_NUMBERS[said.lower()], match)
        # ("half two in the morning": half past two, as British English says it)
        past = (match.group("past") or match.group("past2") or match.group("half")
                or match.group("half4") or "").lower()
        minutes = hour * 60 + (30 if past == "half" else 15 if past == "quarter" else 0)
        found.append(_clock(minutes, match))
        taken.append((match.start(), match.end()))
    return found


def _in_part(hour: int, match: re.Match[str]) -> int:
    """``hour`` in the part of the day ``match`` names ("part", "night"), if any:
    "eleven at night" is 23, "two at night" 2, "seven in the evening" 19."""
    part = (match.group("part") or match.group("night") or "").lower()
    if part == "night":
        return hour + 12 if hour >= 6 and hour != 12 else hour % 12
    return hour % 12 + _DAY_PARTS[part] if part else hour


def _clock(minutes: int, match: re.Match[str]) -> Value:
    """The time ``minutes`` after midnight that ``match`` says, as "05:00" is read."""
    return Value("number", f"{minutes // 60:02d}:{minutes % 60:02d}", match.group(0),
                 match.start(), match.end(), float(minutes), "clock", "clock")


def _clock_to_values(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    """The times ``text`` says as minutes to or past an hour ("quarter to seven" is
    06:45, "at twenty past eight in the evening" 20:20); their places join ``taken``."""
    found: list[Value] = []
    for match in _CLOCK_TO.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        said = match.group("hour")
        hour = int(said) if said.isdigit() else _WORD_NUMBERS.get(said.lower(), 0)
        if not 1 <= hour <= 12:
            continue
        few = (match.group("few") or match.group("few2") or "").lower()
        minutes_off = 15 if match.group("quarter") else _FEW_MINUTES[few]
        minutes = _in_part(hour, match) * 60 + (
            minutes_off if match.group("rel").lower() == "past" else -minutes_off)
        found.append(_clock(minutes % (24 * 60), match))
        taken.append((match.start(), match.end()))
    return found


# "a pound", "a flat dollar", "an extra euro": one of a currency said with the article
# ("a pound of flour" is a weight; "a dollar sign" no amount) - and the notes people
# name: "a tenner" is £10, "a fiver" £5
_ONE_CURRENCY = re.compile(
    r"\b(?P<article>an?)\s+(?:(?:flat|single|whole|extra|additional|full)\s+)?"
    r"(?P<unit>pound|dollar|euro|quid|buck|tenner|fiver)(?![-\w])"
    r"(?!\s+(?:of|sign|store|shop|coin|note|bill)s?\b)",
    re.IGNORECASE)
_NOTES = {"tenner": 10, "fiver": 5}


def one_currency_values(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    """The amounts of one currency unit ``text`` states in words ("a flat pound per
    ride" is £1, as "£1 per ride" is); their places are added to ``taken``."""
    found: list[Value] = []
    for match in _ONE_CURRENCY.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        word = match.group("unit").lower()
        amount = _NOTES.get(word, 1)
        currency = "gbp" if word in _NOTES else CURRENCIES[unit_of(word)]
        found.append(Value("money", str(amount), match.group(0), match.start(), match.end(),
                           float(amount), currency, "money"))
        taken.append((match.start(), match.end()))
    return found
