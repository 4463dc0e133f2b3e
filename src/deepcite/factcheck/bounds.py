"""How exact a value is: the bounds written around it ("more than 800", "about 22,000",
"18 or older", "children under 12"), a rule's exact value ("must book a month
ahead"), and whether one value falls within what another's bound allows.

Kept apart from :mod:`.values`, which reads the values of a text: a bound is read from
the words around a value once it is found, and compared only when two values meet.
"""

from __future__ import annotations

import dataclasses
import math
import re

from deepcite.factcheck.units import DIMENSIONS
from deepcite.factcheck.value import Value

__all__ = ["AGED_BOUND", "AGE_GROUP", "APPROX_SHARE", "EXACT", "bound_words", "bounded",
           "setting_of_default", "within"]

# ("no older than 70", "no more than 6": a negated bound is the other one)
_NOT = r"(?<!\bno\s)(?<!\bnot\s)"
_BOUNDS = [(re.compile(r"\b(?:" + _NOT + r"more than|" + _NOT + r"over|" + _NOT + r"above|"
                       r"at least|exceeding|upwards of|" + _NOT
                       + r"(?:larger|greater|bigger|longer|higher|heavier|older) than|"
                       r"no less than|no fewer than|"
                       r"(?:no|not) (?:smaller|shorter|lower|lighter|younger) than)"
                       r"\s+(?:a\s+)?$", re.IGNORECASE), "min"),
           (re.compile(r"\b(?:less than|fewer than|under|below|up to|at most|no more than|"
                       r"(?:smaller|shorter|lower|lighter|younger) than|"
                       r"(?:no|not) (?:larger|greater|bigger|longer|higher|heavier|older) than|"
                       r"not more than|not over|not above|a maximum of|maximum of)"
                       r"\s+(?:a\s+)?$", re.IGNORECASE), "max"),
           (re.compile(r"\b(?:about|around|roughly|approximately|nearly|almost|some|"
                       r"approx\.?|circa|ca\.|an estimated|estimated)\s+$",
                       re.IGNORECASE), "approx")]
#: The bound of a value a rule requires exactly (:data:`_REQUIRED_BEFORE`).
EXACT = "exact"
#: How far an "about" value may be from the other and still agree.
APPROX_SHARE = 0.1


# A bound written after the number: "18 or older", "16 and over", "10 or fewer".
# ("12 or newer", "2.0 onwards", "1.74 or later": a version from which on)
_BOUND_AFTER = re.compile(r"\s+(?:(?:or|and)\s+(?:(?P<min>older|over|above|more|upwards|up|"
                          r"newer|later|higher|greater)|"
                          r"(?P<max>younger|under|below|less|fewer))|(?P<from>onwards?|upwards))\b",
                          re.IGNORECASE)
# A requirement written before a value without a bound ("must book a month ahead",
# "need to be 18"): the value is the rule, so a source's "at least two weeks" or "16 or
# over" is another rule, not one the claim's value falls within.
_REQUIRED_BEFORE = re.compile(r"\b(?:must|needs?\s+to|needed\s+to|ha(?:ve|s|d)\s+to|"
                              r"(?:is|are)\s+required\s+to|requires?)\b[^,;.!?]*$",
                              re.IGNORECASE)
# "under-16s", "over-65s": an age group, a bound on age in years ("16s" is no seconds)
AGE_GROUP = re.compile(r"\b(?P<side>under|over)-(?P<age>\d{1,3})s\b", re.IGNORECASE)
# Who a bound before a number is of when the number is an age: "children under 12 ride
# free", "anyone over 65 pays half".
_AGED_BEFORE_BOUND = re.compile(
    r"\b(?:children|child|kids|anyone|everyone|people|those|visitors|guests|pupils|"
    r"passengers|members|adults|players|riders|users|customers)\s+$", re.IGNORECASE)
# A bound on an age just before a number: "children under ", "kids younger than ",
# "anyone over " (a number word there is an age as a figure is: "under sixteen").
AGED_BOUND = re.compile(
    r"\b(?:children|child|kids|anyone|everyone|people|those|visitors|guests|pupils|"
    r"passengers|members|adults|players|riders|users|customers)\s+(?:under|over|"
    r"younger\s+than|older\s+than|below|above)\s+$", re.IGNORECASE)
# Before a bare number bounded after it, words saying it is an age ("be 18 or over",
# "aged 16 and over", "anyone 12 or under").
_AGE_BEFORE = re.compile(r"\b(?:be|aged|age|ages|are|is|anyone|children|adults?)\s+$",
                         re.IGNORECASE)


def bound_words(text: str, value: Value) -> str:
    """The words bounding ``value`` in ``text`` ("around" of "around 420 helpers", "at
    least", "or older"), or "": they say how exact the value is, not what the claim
    is about, so a sentence saying "about 420" need not say "around"."""
    if not value.bound:
        return ""
    before = text[max(0, value.start - 24):value.start]
    for pattern, _bound in _BOUNDS:
        found = pattern.search(before)
        if found is not None and not _attributive(found.group(0), value):
            return found.group(0).strip()
    after = _BOUND_AFTER.search(value.text)  # "18 or older"
    return after.group(0).strip() if after is not None else ""


# "takes place over two days", "spread over three weekends": "over" says during what
# time, not "more than"
_OVER_DURING = re.compile(r"\b(?:takes?|took|taking)\s+place\s+over\s+$|"
                          r"\b(?:held|spread|split|staged|run|spans?)\s+(?:out\s+)?over\s+$",
                          re.IGNORECASE)


def _attributive(bound: str, value: Value) -> bool:
    """Whether a bound word before "a" governs a noun the value describes, not the value:
    in "under a twelve-year contract" and "over a 10-year period" the number-unit pair
    is an adjective of "contract" and "period", and "under" says on what terms, so an
    eight-year deal is not within it."""
    return bound.rstrip().lower().endswith(" a") and "-" in value.text


# A setting's default in brackets after its name, the name where the bound's value
# stands: "waits up to `lock_wait` (default 30 minutes)", "at most `max_size` (by
# default 5 GB)" - the bound is of that default, as "up to 30 minutes" would be.
_DEFAULT_OF_SETTING = re.compile(r"`[^`\n]{1,40}`\s*\(\s*(?:(?:by\s+)?default"
                                 r"(?:s\s+to)?|defaulting\s+to)\s*[:=]?\s*$", re.IGNORECASE)


def setting_of_default(text: str, value: Value) -> int | None:
    """Where the setting's name starts whose bracketed default ``value`` is
    (:data:`_DEFAULT_OF_SETTING`); None where it is no such default."""
    setting = _DEFAULT_OF_SETTING.search(text, max(0, value.start - 64), value.start)
    return None if setting is None else setting.start()


def _bound_before(text: str, value: Value) -> str:
    """The text whose end a bound before ``value`` closes: the 24 characters before it,
    or before the setting whose default it is."""
    at = setting_of_default(text, value)
    at = value.start if at is None else at
    return text[max(0, at - 24):at]


def bounded(text: str, value: Value) -> Value:
    """``value`` with the bound written before it ("more than 800", "about 22,000") or
    after it ("18 or older"): people write a limit either way, and "16 or older" must
    compare with "at least 18 years old" as one limit with another. A bare number so
    bounded by "older"/"younger", or after "be"/"aged", is an age in years."""
    if value.kind not in ("number", "money", "percent"):
        return value
    before = _bound_before(text, value)
    for pattern, bound in _BOUNDS:
        found = pattern.search(before)
        if found is not None and not _attributive(found.group(0), value) and not (
                value.dimension == "time" and _OVER_DURING.search(before)):
            bounded = dataclasses.replace(value, bound=bound)
            at = text.rfind(before, 0, value.start) + found.start()
            if _AGED_BEFORE_BOUND.search(text, max(0, at - 16), at) is not None:
                return _as_age(bounded)
            return bounded
    after = _BOUND_AFTER.match(text, value.end)
    if after is None:
        if _REQUIRED_BEFORE.search(text, max(0, value.start - 60), value.start):
            required = dataclasses.replace(value, bound=EXACT)
            if not value.unit and _AGE_BEFORE.search(text, max(0, value.start - 16),
                                                     value.start) is not None:
                return _as_age(required)  # "must be 18 to join"
            return required
        return value
    lower = bool(after.group("min") or after.group("from"))
    bounded = dataclasses.replace(value, bound="min" if lower else "max",
                                  text=text[value.start:after.end()], end=after.end())
    aged = after.group(0).split()[-1].lower() in ("older", "younger") \
        or _AGE_BEFORE.search(text, max(0, value.start - 16), value.start) is not None
    if not value.unit and aged:
        return _as_age(bounded)
    return bounded


def _as_age(value: Value) -> Value:
    """A bounded bare number that is an age, in years; a value with a measure, or one
    that is no age (over 120), as it is. The word after it is then no unit: in
    "children under 12 ride free" it is the verb."""
    if value.kind != "number" or value.dimension or value.amount is None \
            or not 0 < value.amount <= 120:
        return value
    dimension, size = DIMENSIONS["year"]
    text = value.text
    if value.unit:  # "12 ride": the number alone
        number = re.match(r"\S+", text)
        text = number.group(0) if number is not None else text
    return dataclasses.replace(value, unit="year", dimension=dimension, text=text,
                               end=value.start + len(text) if value.unit else value.end,
                               amount=value.amount * size)


#: A bound holds a value at most this many times smaller (or larger, for a lower bound)
#: than itself: past that, the two are of other things ("up to a week ahead" and "within
#: 15 minutes of the start").
BOUND_SPREAD = 20.0


def within(claim: Value, other: Value) -> bool:
    """Whether ``other``'s amount is within what the claim's bound allows."""
    mine, theirs = claim.amount, other.amount
    if mine is None or theirs is None:
        return False
    if math.isclose(mine, theirs, rel_tol=1e-6):
        return True
    if claim.bound == EXACT:
        return False  # a rule's value: "must book a month ahead" is not "two weeks"
    if claim.bound and claim.bound == other.bound and claim.bound != "approx":
        return False  # "up to 1,000 notes" and "up to 500 notes" are two limits
    if claim.bound in ("min", "max") and theirs and mine and max(
            abs(mine / theirs), abs(theirs / mine)) > BOUND_SPREAD:
        return False  # "up to a week ahead" is no bound on "within 15 minutes"
    if claim.bound == "min":
        return theirs > mine and other.bound != "max"
    if claim.bound == "max":
        return theirs < mine and other.bound != "min"
    if other.bound == "min" and claim.bound != "max":
        return mine > theirs  # "1,200 users" is what "over 1,000 users" allows
    if other.bound == "max" and claim.bound != "min":
        return mine < theirs
    if "approx" in (claim.bound, other.bound):
        return abs(mine - theirs) <= APPROX_SHARE * max(abs(mine), abs(theirs))
    return False
