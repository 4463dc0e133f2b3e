"""A value the source says no longer holds: the sentence stating it is followed by one
saying it was replaced ("The fee was a flat £2 per visit. A per-hour rate replaced the
flat fee in 2022."), or writes it as what held until a date ("was £40 until May 2021").

A claim giving that value as what holds now is contradicted - by the value of the same
slot another sentence on the subject states, where one does, else by the sentence
saying it was replaced. A claim that speaks of the past itself ("used to cost", "was
£2 when it opened") is not (:func:`deepcite.factcheck.changes.past_value` reads it so).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.factcheck.agreement import agrees, same_slot
from deepcite.factcheck.passages import Pool, Sentence, values_of
from deepcite.factcheck.value import Value

__all__ = ["current_value", "superseded_by"]

# a verb ending what the sentence before stated ("replaced the flat charge", "was
# scrapped", "no longer applies", "has since been withdrawn")
_ENDED = re.compile(
    r"\b(?:replac(?:ed|es|ing)|supersed(?:ed|es)|scrapped|abolished|discontinued|"
    r"withdrawn|phased\s+out|no\s+longer|did\s+away\s+with|in\s+place\s+of)\b",
    re.IGNORECASE)
# the value written as what held until a date or change ("was £75 until March 2023")
_UNTIL = re.compile(r"\b(?:until|till|up\s+to)\s+(?:(?:early|late|mid|the\s+end\s+of)\s+)?"
                    r"(?:\d{4}|(?:January|February|March|April|May|June|July|August|"
                    r"September|October|November|December)\b)", re.IGNORECASE)
_PAST_VERB = re.compile(r"\b(?:was|were|used\s+to\s+be|had\s+been)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[;:.!?]|,\s+(?:when|but|and)\b")


def superseded_by(sentence: Sentence, value: Value, pool: Pool) -> Sentence | None:
    """The sentence of ``pool`` saying that ``value``, as ``sentence`` states it, no
    longer holds (``sentence`` itself for "was X until 2023"), else None."""
    at = _place(sentence.text, value)
    if at is not None:
        head = sentence.text[:at]
        clause_start = max((m.end() for m in _CLAUSE.finditer(head)), default=0)
        tail = sentence.text[at:]
        clause_end = next((m.start() for m in _CLAUSE.finditer(tail)), len(tail))
        if _PAST_VERB.search(head[clause_start:]) and _UNTIL.search(tail[:clause_end]):
            return sentence
    after = next((s for s in pool.by_passage.get(sentence.passage, ())
                  if s.index == sentence.index + 1), None)
    if after is None:
        return None
    ended = _ENDED.search(after.text)
    if ended is None or not _PAST_VERB.search(sentence.text):
        return None
    # what it ends is what the sentence before is about: a word of it
    shared = (after.terms & sentence.terms) - frozenset(
        t for v in values_of(after.text) for t in v.text.lower().split())
    return after if shared else None


def current_value(value: Value, stated_by: Sentence, sentences: Sequence[Sentence],
                  claim_values: Sequence[Value] = ()) -> tuple[Sentence, Value] | None:
    """The first of ``sentences`` (other than ``stated_by``) stating another value of
    ``value``'s slot (none the claim states), and it: what holds now."""
    for sentence in sentences:
        if sentence is stated_by:
            continue
        for other in values_of(sentence.text):
            if same_slot(value, other) and not any(agrees(mine, other)
                                                   for mine in (value, *claim_values)):
                return sentence, other
    return None


def _place(text: str, value: Value) -> int | None:
    for other in values_of(text):
        if agrees(value, other):
            return other.start
    return None

