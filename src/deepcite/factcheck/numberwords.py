"""Numbers written in words: "three", "twenty-five", "one hundred and fifty", and
amounts with a half ("an hour and a half", "two and a half days", "half an hour").

Its own module so that :mod:`~deepcite.factcheck.values` stays about comparing
values: a draft writes "an hour and a half" where its source says "90 minutes", and
read as "an hour" that true claim was contradicted.
"""

from __future__ import annotations

import re

from deepcite.factcheck.units import DIMENSIONS, unit_of
from deepcite.factcheck.value import Value

__all__ = ["NUMBER_WORD", "NUMBER_WORDS_ALL", "half_values", "word_number"]

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
