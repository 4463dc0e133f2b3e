"""A past value: what a sentence says something changed from, which the claim gives as
what holds now ("the default filter is bicubic" against "The default resampling filter
changed from bicubic to lanczos3"; "the limit is 600" against "can now be set up to
1,000 (previously 600)").

A source writing a change names both values, so the claim's value is "stated" by the
sentence - as the value it no longer has. Read by patterns: a verb of change before
"from X to Y", "Y instead of X", "Y (previously X)", "(it was X)".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from deepcite.factcheck.passages import Sentence, values_of
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.value import Value

__all__ = ["Change", "changes_in", "claim_in_past", "labelled_past_value",
           "of_another_release", "past_value", "past_value_in"]

_ITEM = r"[`'\"]?[\w.,%£$€-]+(?:\s[\w.%-]+){0,2}?[`'\"]?"
# "changed from bicubic to lanczos3", "was raised from 64 to 256", "moved from MIT to
# the Apache License 2.0"
_FROM_TO = re.compile(
    r"\b(?:(?:chang|switch|mov|rais|lower|increas|reduc|dropp|extend|shorten|upgrad|"
    r"downgrad|renam|convert|replac)\w*|cut|cuts|rise|rises|risen|rose|fell|fall|falls|"
    r"grew|grow|grows|went|goes|gone|turned)"
    r"(?:\s+\w+){0,4}?\s+from\s+(?P<old>" + _ITEM + r")\s+to\s+(?:the\s+)?"
    r"(?P<new>" + _ITEM + r")(?=[\s.,;:)]|$)", re.IGNORECASE)
# "now defaults to the number of cores instead of 4"
_LAST = r"(?P<new>(?:[\d.,]+\s)?[^\s(]+)"
_INSTEAD = re.compile(_LAST + r"\s+instead\s+of\s+(?P<old>" + _ITEM
                      + r")(?=[\s.,;:)]|$)", re.IGNORECASE)
# "up to 1,000 megapixels (previously 600)", "is now 12 (it was 11)"
_BEFORE = re.compile(_LAST + r"\s*\((?:previously|formerly|before|"
                     r"it\s+was|they\s+were|was|were)\s+(?P<old>[^)]+?)\)", re.IGNORECASE)
# A claim that speaks of the past itself ("used to be", "was bicubic until 2.0").
_PAST = re.compile(r"\b(?:used\s+to|previously|formerly|originally|until|before|was|were|"
                   r"had\s+been|no\s+longer|changed|old|earlier)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_QUOTES = "`'\""
_LEAD = re.compile(r"^(?:(?:is|are|now|to|the|be|set)\s+)+", re.IGNORECASE)


@dataclass(frozen=True)
class Change:
    """A value ``old`` the sentence says was replaced by ``new``."""

    old: str
    new: str


def changes_in(sentence: str) -> Iterator[Change]:
    """The changes ``sentence`` writes (see the module docs)."""
    for pattern in (_FROM_TO, _INSTEAD, _BEFORE):
        for match in pattern.finditer(sentence):
            old = match.group("old").strip(_QUOTES + " .,")
            new = _LEAD.sub("", match.group("new")).strip(_QUOTES + " .,")
            if old and new and old.lower() != new.lower():
                yield Change(old, new)


def _says(text: str, value: str) -> bool:
    if re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w]|\.\d)", text,
                 re.IGNORECASE) is not None:
        return True
    # a number the text writes in words ("is two" says the 2 of "from 2 to 4")
    return _NUMBER.fullmatch(value) is not None and any(
        v.amount == float(value) and not _NUMBER.search(v.text) for v in values_of(text))


def claim_in_past(claim: str) -> bool:
    """Whether the claim itself speaks of what held before ("used to", "was", "until")."""
    return _PAST.search(claim) is not None


def past_value(claim: str, sentence: str, claim_terms: frozenset[str]) -> Change | None:
    """The change of ``sentence`` whose old value the claim gives as holding now (and
    not its new one), on a word of the claim's besides the value ("default", "filter");
    None when the claim itself speaks of the past."""
    if claim_in_past(claim):
        return None
    plain = claim.replace("`", "")
    for change in changes_in(sentence):
        if not _says(plain, change.old) or _says(plain, change.new):
            continue
        if (claim_terms - terms_of(change.old)) & terms_of(sentence):
            return change
    return None


def past_value_in(claim: str, sentences: Iterable[Sentence],
                  claim_terms: frozenset[str]) -> tuple[Sentence, Change] | None:
    """The first of ``sentences`` with a :func:`past_value` of the claim, and it."""
    for sentence in sentences:
        change = past_value(claim, sentence.text, claim_terms)
        if change is not None:
            return sentence, change
    return None


def _release(value: Value) -> str | None:
    """The version ``value`` names ("2.2.1", or "2" of "version 2.0"), else None."""
    if value.kind == "version":
        number = value.key
    elif value.kind == "number" and value.before in ("version", "release") \
            and value.amount is not None:
        found = _NUMBER.match(value.text)
        number = found.group(0) if found is not None else ""
    else:
        return None
    while number.endswith(".0"):
        number = number[:-2]
    return number or None


def of_another_release(claim_values: Sequence[Value], value: Value, sentence: str) -> bool:
    """Whether ``sentence``'s value against the claim's ``value`` (not a version itself)
    is that of another release: the claim names a version, the sentence names versions
    and none of them the claim's ("Version 2.0 came out in March 2024" against "Current
    version: 2.2.1 (released 9 September 2024)")."""
    mine = {r for v in claim_values if (r := _release(v)) is not None}
    if _release(value) is not None or not mine:
        return False
    theirs = {r for v in values_of(sentence) if (r := _release(v)) is not None}
    return bool(theirs) and not mine & theirs


def labelled_past_value(claim: str, sentences: Iterable[Sentence]) -> tuple[
        Sentence, Change, str] | None:
    """A sentence anywhere in the passages saying the claim's bare number with its label
    ("port 8000") changed ("The default port ... changed from 8000 to 4173"), the label
    in the words before the change: the claim gives the old value, though its other words
    ("point your browser at localhost") may find no sentence. The sentence, the change
    and the sentence up to its new value; None otherwise (or where the claim speaks of
    the past itself)."""
    if claim_in_past(claim):
        return None
    labels = {v.before for v in values_of(claim)
              if v.kind == "number" and not v.unit and v.before and v.amount is not None}
    if not labels:
        return None
    plain = claim.replace("`", "")
    for sentence in sentences:
        for change in changes_in(sentence.text):
            if not _NUMBER.fullmatch(change.old) or not _says(plain, change.old) \
                    or _says(plain, change.new):
                continue
            at = sentence.text.find(change.new, sentence.text.find(change.old))
            if at < 0 or not labels & terms_of(sentence.text[:sentence.text.find(change.old)]):
                continue
            return sentence, change, sentence.text[:at + len(change.new)].strip()
    return None
