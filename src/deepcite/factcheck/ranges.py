"""The first number of a range or change written with one unit: "from seventy-five to
ninety pounds" is from 75 pounds, "between 20 and 30 minutes" from 20 minutes.

Read alone, the first number has no unit (a number word before "to" is not even read
as one), so "went up from seventy-five to ninety pounds" against "priced at £75 until
March 2023, when it rose to ... £90" compared 90 pounds with £75, and found them
different.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from deepcite.factcheck.numberwords import NUMBER_WORDS_ALL
from deepcite.factcheck.value import Value

__all__ = ["shared_units"]

_NUMBER = rf"\d[\d,]*(?:\.\d+)?|(?:{NUMBER_WORDS_ALL})(?:[\s-]+(?:{NUMBER_WORDS_ALL}))*"
# What stands just before the range's second value: "from 75 to ", "between twenty and "
_OPENING = re.compile(rf"\b(?:from|between)\s+(?P<number>{_NUMBER})\s*(?:to|and|-|\u2013)\s*$",
                      re.IGNORECASE)
_CURRENCY_LEAD = re.compile(r"^[\u00a3$\u20ac\u00a5]")
_FIRST_NUMBER = re.compile(_NUMBER, re.IGNORECASE)


def shared_units(text: str, values: Sequence[Value],
                 extract: Callable[[str], Sequence[Value]]) -> list[Value]:
    """``values`` with the first number of each range or change written with one unit
    (its second value's) read with that unit; ``extract`` reads the values of a text."""
    found = list(values)
    for second in values:
        if not (second.unit or second.kind == "money") \
                or second.dimension in ("period", "clock"):
            continue  # ("from 10 to 4 pm" is from 10 in the morning)
        lead = _CURRENCY_LEAD.match(second.text)
        opening = _OPENING.search(text, 0, second.start)
        if opening is None:
            continue
        start, end = opening.span("number")
        # the second value written again with the first number: "ninety pounds" as
        # "75 pounds" (a number word read by the same rules)
        number = _FIRST_NUMBER.search(second.text, len(lead.group(0)) if lead else 0)
        if number is None:
            continue
        written = text[start:end]
        again = extract(second.text[:number.start()] + written + second.text[number.end():])
        same = [v for v in again if v.kind == second.kind and v.unit == second.unit]
        if not same:
            continue
        first = dataclasses.replace(same[0], text=written, start=start, end=end)
        found = [v for v in found if not (v.start < end and start < v.end)]
        found.append(first)
    return sorted(found, key=lambda v: v.start)
