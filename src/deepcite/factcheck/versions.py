"""Versions a text states by their place rather than their form: a release series
("the 1.x series", "2.x"), and the platform a version number belongs to ("macOS from
version 12 onwards" is macOS's version, not the product's).

Its own module so that :mod:`~deepcite.factcheck.values` stays about reading and
comparing values: a draft saying "on macOS from version 12 onwards" was contradicted by
"Versions follow semantic versioning from 2.0 onwards" (two numbers after "version",
of two different things), and "stay on the 1.x series" was read as the number 1.
"""

from __future__ import annotations

import dataclasses
import re

from deepcite.factcheck.value import Value
from deepcite.text.stem import stem

__all__ = ["of_platform", "series_agrees", "series_values"]

# "the 1.x series", "2.x", "3.X releases"
_SERIES = re.compile(r"(?<![\w.])[vV]?(?P<major>\d+)\.[xX*](?![\w.])")
# The name a version number after "version" belongs to: "macOS from version 12",
# "Python version 3.8", "the minimum supported macOS version is now 12", "Android 9 or
# later" (a name with a capital inside or opening it, not the sentence's first word).
_PLATFORM_BEFORE = re.compile(
    r"(?<=\s)(?P<name>[A-Za-z]*[A-Z][\w+.-]*)\s+(?:(?:from|since)\s+)?(?:version|release)s?"
    r"\s+(?:(?:is|was|are|were)\s+(?:now\s+)?|(?:from|since)\s+)?$")
_VERSION_WORDS = frozenset({"version", "release"})


def series_values(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    """The release series ``text`` names ("the 1.x series" is every 1.something), as
    versions keyed ``1.x``; their places are added to ``taken``."""
    found: list[Value] = []
    for match in _SERIES.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        found.append(Value("version", f"{int(match.group('major'))}.x", match.group(0),
                           match.start(), match.end()))
        taken.append((match.start(), match.end()))
    return found


def series_agrees(claim: Value, other: Value) -> bool | None:
    """Whether ``other`` is a version of the claim's series ("1.9" of "1.x"), or None
    when neither is a series."""
    for series, version in ((claim, other), (other, claim)):
        if series.kind == "version" and series.key.endswith(".x"):
            if version.kind not in ("number", "version"):
                return False
            major = series.key[:-2]
            return version.key == major or version.key.startswith(major + ".") or (
                version.key == series.key)
    return None


def of_platform(text: str, value: Value) -> Value:
    """``value`` with the platform it is a version of as the word before it, where a
    name stands before "version" ("macOS from version 12": ``maco``), so that it is of
    another slot than the product's own version; a number after "version" with no unit
    (the verb after it is none); as it is otherwise."""
    if value.kind not in ("number", "version") or value.before not in _VERSION_WORDS:
        return value
    if value.unit and not value.dimension:
        # a version counts nothing: the word after it is no unit ("version 2.0 came out")
        number = re.match(r"\S+", value.text)
        written = number.group(0) if number is not None else value.text
        value = dataclasses.replace(value, unit="", text=written,
                                    end=value.start + len(written))
    start = max(0, value.start - 60)
    clause = re.split(r"[,;:.!?()|]\s", text[start:value.start])[-1]
    found = _PLATFORM_BEFORE.search(" " + clause)
    if found is None:
        return value
    return dataclasses.replace(value, before=stem(found.group("name").lower()))
