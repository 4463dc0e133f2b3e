"""Support withdrawn, read as a denial: "Support for PostgreSQL 11 was dropped",
"Dropped support for PostgreSQL 11", "32-bit builds are no longer provided" and "the
Lite plan was discontinued" deny what a claim saying it is supported asserts.

:func:`as_denial` writes each such phrase as a plain negation ("no support for
PostgreSQL 11"), so that the polarity check compares it as it compares "not supported";
a claim saying the same withdrawal is rewritten alike and agrees.
"""

from __future__ import annotations

import re

__all__ = ["as_denial", "same_numbers"]

_GONE = r"(?:dropped|removed|discontinued|withdrawn|retired)"
_BE = r"(?:is|are|was|were|has\s+been|have\s+been|had\s+been|got|will\s+be)"
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    # "Dropped support for PostgreSQL 11", "removes support for Python 3.8"
    (re.compile(r"\b(?:dropped|drops|drop|removed|removes|remove|ended|ends)\s+"
                r"(support\s+for\b)", re.IGNORECASE), r"no \1"),
    # "Support for PostgreSQL 11 was dropped", "Windows support has been removed"
    (re.compile(r"((?:^|(?<=[,;:(]))\s*|\b)((?:[\w.+#-]+\s+){0,3}?support\s+(?:for\s+)?"
                r"[^,;:.()]*?|[^,;:.()]*?\bsupport)\s+" + _BE + r"\s+" + _GONE + r"\b",
                re.IGNORECASE), r"\1no \2"),
    # "The Lite plan was discontinued"
    (re.compile(r"((?:^|(?<=[,;:(]))\s*)([^,;:.()]+?)\s+" + _BE + r"\s+discontinued\b",
                re.IGNORECASE), r"\1no \2"),
    # "replaces the old B-tree engine with an LSM tree" denies the B-tree as "an LSM
    # tree instead of a B-tree" does (each side written alike, so the two agree)
    (re.compile(r"\breplac(?:es|ed|ing|e)\s+(?P<old>[^,;:.()]+?)\s+(?:with|by)\s+"
                r"(?P<new>[^,;:.()]+)", re.IGNORECASE), r"uses \g<new> instead of \g<old>"),
    # "stopped providing 32-bit builds", "ceased shipping": a stop denies as "no longer"
    (re.compile(r"\b(?:stopped|stops|stop|ceased|ceases|cease)\s+(?=[a-z]+ing\b)",
                re.IGNORECASE), "not "),
    # "32-bit builds are no longer provided", "no longer supports": "no longer" before
    # anything but "than" bounds no value
    (re.compile(r"\bno\s+longer\s+(?=[a-z])(?!than\b)", re.IGNORECASE), "not "),
)


def as_denial(text: str) -> str:
    """``text`` with each phrase withdrawing support written as a negation."""
    for pattern, replacement in _REWRITES:
        text = pattern.sub(replacement, text)
    return text


_NUMBER = re.compile(r"\d+(?:\.\d+)*")


def same_numbers(claim: str, denials: list[str]) -> bool:
    """Whether the claim says a number the withdrawn ``denials`` name, or they name
    none: support dropped for version 11 says nothing of 12 to 16."""
    numbers = {n for words in denials for n in _NUMBER.findall(words)}
    return not numbers or bool(numbers & set(_NUMBER.findall(claim)))
