"""A claim that something is open or runs at every hour ("around the clock", "24/7",
"24 hours a day") against a source giving it hours ("operate from 6:00 to 23:00 only"):
the hours contradict it, though no value of the claim's has a slot to compare."""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.factcheck.passages import Pool, Sentence, values_of
from deepcite.factcheck.terms import terms_of

__all__ = ["HOURS_CANDIDATES", "all_hours", "hours_among", "hours_clash", "hours_on_subject"]

_ALL_HOURS = re.compile(r"\b(?:a)?round\s+the\s+clock\b|\b24/7\b|\b24\s+hours\s+a\s+day\b|"
                        r"\bday\s+and\s+night\b|\bat\s+all\s+hours\b|"
                        r"\b(?:at\s+)?any\s+time\s+of\s+(?:the\s+)?day(?:\s+or\s+night)?\b",
                        re.IGNORECASE)
# Words of being open at some hours: what every sentence of hours says, no subject
_HOURS_TERMS = terms_of("open opens opened opening close closes closed closing stay stays "
                        "operate operates operating run runs running available hour hours "
                        "day days night nights time times staffed season")
_CLAUSE_START = re.compile(r"[,;:.!?]\s+")
_DAY_MINUTES = 24 * 60


def all_hours(text: str) -> str | None:
    """The words of ``text`` saying every hour of the day, or None."""
    match = _ALL_HOURS.search(text)
    return match.group(0) if match else None


def hours_clash(claim: str, sentence: str) -> tuple[str, str] | None:
    """The claim's "around the clock" and the sentence's hours, where the sentence
    gives a range of clock times short of the whole day; else None."""
    wide = all_hours(claim)
    if wide is None or all_hours(sentence) is not None:
        return None
    clocks = [v for v in values_of(sentence) if v.dimension == "clock"]
    if len(clocks) < 2:
        return None
    first, last = clocks[0], clocks[1]
    if first.amount is None or last.amount is None or (
            first.amount == last.amount or (last.amount - first.amount) % _DAY_MINUTES == 0):
        return None  # "from midnight to midnight" is the whole day
    start = max((m.end() for m in _CLAUSE_START.finditer(sentence, 0, first.start)),
                default=0)
    end = last.end
    only = re.match(r"\s+only\b", sentence[end:])
    return wide, sentence[start:end + (only.end() if only else 0)]


def hours_on_subject(claim: str, claim_terms: frozenset[str], sentence: Sentence,
                     pool: Pool) -> bool:
    """Whether the passage of ``sentence`` names what the claim says is open at every
    hour: the claim's words but its hours' and those every sentence of opening hours has
    ("The library stays open around the clock": ``library``) - "Opening hours are
    10:00-16:00" under the Registry's address says nothing of a library. True where the
    claim names nothing but its hours."""
    wide = all_hours(claim)
    subject = claim_terms - terms_of(wide) - _HOURS_TERMS if wide else frozenset()
    return not subject or any(subject & mate.terms for mate in pool.by_passage[sentence.passage])


#: How many of the sentences ranked for a claim are read for their hours.
HOURS_CANDIDATES = 8


def hours_among(claim: str, claim_terms: frozenset[str],
                ranked: Sequence[tuple[float, Sentence]],
                every: bool, pool: Pool) -> tuple[Sentence, tuple[str, str]] | None:
    """Of the first sentences ``ranked`` for a claim saying "around the clock", the
    first on its subject (a word of it besides its hours) giving hours short of the
    whole day, and the clash: the claim worded apart from its source ("every docking
    station is open around the clock" against "Stations in the outer districts operate
    from 6:00 to 23:00 only") finds its hours' sentence among the next ranked, not as
    the best. None where one of them says the hours are the whole day, unless the claim
    speaks of ``every`` one (some open all day, others not, contradicts "every")."""
    wide = all_hours(claim)
    if wide is None:
        return None
    subject = claim_terms - terms_of(wide)
    found = None
    for _, sentence in ranked[:HOURS_CANDIDATES]:
        if not subject & sentence.terms or not hours_on_subject(claim, claim_terms,
                                                                sentence, pool):
            continue
        if all_hours(sentence.text) is not None and not every:
            return None
        clash = hours_clash(claim, sentence.text)
        if clash is not None and found is None:
            found = sentence, clash
    return found
