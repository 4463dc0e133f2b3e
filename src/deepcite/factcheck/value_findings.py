"""The judge's second stage: what the passages say of each of a claim's values.

Each value is looked up in the best sentence first - what it says decides - then its
neighbours and the sentences nearly as close to the claim, then the other sentences on
the subject (:func:`~deepcite.factcheck.restated_bounds.decide_bounded`). A value found
is ``stated``; a different value of the same slot in a sentence close enough is a
:class:`~deepcite.factcheck.judgement.Conflict`; a value the source says no longer holds
conflicts with what holds now; anything else is ``missing``. A change the claim ties to
a version is then dated by the changelog's heading.

Kept apart from :mod:`deepcite.factcheck.judge` so that the stages read one at a time:
the sentences chosen, the values decided (here), the names, negations and scopes.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Sequence

from deepcite.factcheck.agreement import agrees, same_slot
from deepcite.factcheck.changes import claim_in_past, of_another_release
from deepcite.factcheck.clauses import shown
from deepcite.factcheck.judgement import NEAR_FLOOR, Conflict
from deepcite.factcheck.passages import Pool, Sentence, sentence_values
from deepcite.factcheck.releases import release_scope
from deepcite.factcheck.restated_bounds import decide_bounded
from deepcite.factcheck.superseded import current_value, superseded_by
from deepcite.factcheck.units import FREE
from deepcite.factcheck.value import Value

__all__ = ["Candidates", "ValueFindings", "find_values"]


@dataclasses.dataclass
class ValueFindings:
    """What the sentences say of the claim's values: the values stated (by their text),
    the conflicts, the values no sentence close enough decides, and the sentence that
    stated each value."""

    conflicts: list[Conflict] = dataclasses.field(default_factory=list)
    stated: list[str] = dataclasses.field(default_factory=list)
    missing: list[str] = dataclasses.field(default_factory=list)
    decided_by: dict[str, Sentence] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Candidates:
    """The sentences a claim's values are looked up in, closest first: the best one, the
    ones close to it (its neighbours, those nearly as close) and all on the subject, with
    each sentence's score in words (by ``id``)."""

    best: Sentence
    close_by: Sequence[Sentence]
    on_subject: Sequence[Sentence]
    own: dict[int, float]


def find_values(text: str, values: Sequence[Value], claim_terms: frozenset[str],
                pool: Pool, at: Candidates,
                quote_of: Callable[[Sentence], int]) -> ValueFindings:
    """Each of ``values`` of the claim ``text`` decided by the sentences of ``at``;
    ``quote_of`` records a sentence as a quote and gives its index."""
    found = ValueFindings()
    past = claim_in_past(text)

    def ended(value: Value, sentence: Sentence) -> Sentence | None:
        # (a claim writing the change itself, "went up from 75 to 90", gives both)
        if past or value.kind not in ("money", "number", "percent") \
                or value.dimension == "period" or value.unit == FREE or any(
                    same_slot(value, mine) for mine in values if mine is not value):
            return None
        return superseded_by(sentence, value, pool)

    together = _stated_together(values, text, claim_terms, pool)
    for value in values:
        decided: tuple[Sentence, Value | None] | None = None
        if id(value) in together:
            # (a range of the claim's a sentence states as a range, "between 60 and 75
            # credits", is stated there, whatever the sentence closest in words says)
            decided = (together[id(value)], None)
        for sentences in ([at.best], at.close_by, at.on_subject):
            if decided is not None:
                break
            decided = decide_bounded(value, text, sentences, values, at.on_subject, at.best)
            if decided is not None:
                break
        if decided is None:
            clash = _range_end_clash(value, values, text, claim_terms, [at.best, *at.close_by])
            if clash is not None:
                # "from 1 to 128" against "the range 1 to 64": one end the same, the other
                # not - of one range, whatever words stand before the numbers
                found.conflicts.append(Conflict(shown(value, text),
                                                shown(clash[1], clash[0].text),
                                                quote_of(clash[0])))
            else:
                found.missing.append(value.text)
        elif decided[1] is None and (end := ended(value, decided[0])) is not None:
            # a value the source says no longer holds ("was a flat £1 per ride. Per-minute
            # pricing replaced the flat charge"): what holds now, where a sentence on the
            # subject states it, else the sentence ending it
            # (or a sentence of its passage saying more of the claim's words: a table's row)
            mates = sorted((s for s in pool.by_passage[decided[0].passage]
                            if s not in at.on_subject and claim_terms & s.terms),
                           key=lambda s: (-len(claim_terms & s.terms),
                                          abs(s.index - decided[0].index)))
            now = current_value(value, decided[0], (*at.on_subject, *mates), values)
            if now is not None:
                found.conflicts.append(Conflict(shown(value, text), shown(now[1], now[0].text),
                                                quote_of(now[0])))
            else:
                found.conflicts.append(Conflict(shown(value, text), end.text, quote_of(end)))
        elif decided[1] is None:
            found.decided_by[value.text] = decided[0]
            found.stated.append(value.text)
            quote_of(decided[0])
        elif of_another_release(values, value, decided[0].text):
            found.missing.append(value.text)  # the date of another version than the claim's
        elif decided[0] is at.best or (any(decided[0] is s for s in at.close_by)
                                       and at.own[id(decided[0])] >= NEAR_FLOOR):
            found.conflicts.append(Conflict(shown(value, text),
                                            shown(decided[1], decided[0].text),
                                            quote_of(decided[0])))
        else:
            found.missing.append(value.text)
    _date_release(text, claim_terms, pool, at.best, found, quote_of)
    return found


_JOINED = re.compile(r"\s*(?:and|to|or|-|\u2013|\u2014)\s*", re.IGNORECASE)


def _ranges(values: Sequence[Value], text: str) -> list[tuple[Value, Value]]:
    """The pairs of ``values`` written as one range or choice in ``text``: "between 60
    and 75", "4 to 6", "12-14"."""
    ordered = sorted(values, key=lambda v: v.start)
    return [(one, two) for one, two in itertools.pairwise(ordered)
            if _JOINED.fullmatch(text[one.end:two.start])]


def _range_end_clash(value: Value, values: Sequence[Value], text: str,
                     claim_terms: frozenset[str], sentences: Sequence[Sentence]
                     ) -> tuple[Sentence, Value] | None:
    """The sentence whose range has the same other end as the claim's range ``value``
    ends, and its own end there when that differs ("from 1 to 128" against "the range 1
    to 64": 64); None where no range of ``sentences`` shares an end with it."""
    for one, two in _ranges(values, text):
        if value is not one and value is not two:
            continue
        for sentence in sentences:
            for first, second in _ranges(sentence_values(sentence, claim_terms), sentence.text):
                same, mine, theirs = (one, two, second) if value is two else (two, one, first)
                kept = first if value is two else second
                if agrees(same, kept) and not agrees(mine, theirs) and _comparable(mine, theirs):
                    return sentence, theirs
    return None


def _comparable(mine: Value, theirs: Value) -> bool:
    """Whether two range ends count one thing: the same slot, or both bare numbers."""
    bare = not (mine.unit or mine.dimension or theirs.unit or theirs.dimension)
    return same_slot(mine, theirs) or (bare and mine.kind == theirs.kind == "number")


def _stated_together(values: Sequence[Value], text: str, claim_terms: frozenset[str],
                     pool: Pool) -> dict[int, Sentence]:
    """The sentence stating a range of the claim's values as a range too ("between 60 and
    75 credits" in the claim and a sentence), for each of the two by ``id``. The range
    places the sentence: the sentence closest to the claim in words may be one about
    another value of the same unit ("Most modules are worth 15 credits"), whose number
    must not contradict it."""
    found: dict[int, Sentence] = {}
    for one, two in _ranges([v for v in values if v.dimension != "period"], text):
        for sentence in pool.sentences:
            theirs = sentence_values(sentence, claim_terms)
            if any(agrees(one, a) and agrees(two, b) for a, b in _ranges(theirs, sentence.text)):
                found[id(one)] = found[id(two)] = sentence
                break
    return found


def _date_release(text: str, claim_terms: frozenset[str], pool: Pool, best: Sentence,
                  found: ValueFindings, quote_of: Callable[[Sentence], int]) -> None:
    """A change the claim ties to a version, which a changelog's heading dates: "- AVIF
    output." under "## 2.1" against "available since version 1.8"."""
    release = release_scope(text, claim_terms, pool)
    if release is None or found.decided_by.get(release[0].text) is best or (
            release[0].text not in found.missing and release[0].text not in found.stated):
        return
    version, item, heading, same = release
    if version.text in found.missing:
        found.missing.remove(version.text)
    if same:
        found.stated.append(version.text)
        quote_of(item)
    else:
        if version.text in found.stated:
            found.stated.remove(version.text)
        found.conflicts.append(Conflict(shown(version, text), heading, quote_of(item)))
