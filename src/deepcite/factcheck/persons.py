"""Who a claim's opening "she", "he", "her" or "his" stands for: the person the draft
named last before it, in any sentence ("Sarah is lovely and very thorough. She works
Mondays, Wednesdays and Fridays." is about Sarah).

A person is named in passing more often than in a claim: a remark ("Sarah is lovely")
states nothing to check, so the claims alone do not hold the name the pronoun stands
for, and "She works Mondays ..." alone finds every member of staff's days. The name is
read from the draft's own text before the claim: a title and a surname ("Dr Patel"), or
the name a sentence opens with before its verb ("Sarah is lovely"); a place named
inside a sentence ("studied in Cremona") is no one.
"""

from __future__ import annotations

import re

from deepcite.text.sentences import split_sentences

__all__ = ["PERSON_PRONOUN", "person_before"]

#: "She", "He", "Her", "His" opening a claim.
PERSON_PRONOUN = re.compile(r"^(she|he|her|his)\b", re.IGNORECASE)
_TITLED = re.compile(r"\b(?:Dr|Doctor|Mr|Mrs|Ms|Miss|Prof|Professor)\.?\s+[A-Z][\w'-]+"
                     r"(?:\s+[A-Z][\w'-]+)?")
# a name opening its sentence before its verb ("Marie Curie was born ...")
_OPENING = re.compile(r"^([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)\s+(?=(?:is|was|has|had|will|"
                      r"can|does|did|[a-z]+ed|[a-z]+[^su\W]s)\b)")
_NOT_PEOPLE = frozenset("""I Monday Tuesday Wednesday Thursday Friday Saturday Sunday
    January February March April May June July August September October November December
    Mondays Tuesdays Wednesdays Thursdays Fridays Saturdays Sundays NHS""".split())  # noqa: SIM905
# capitalised words opening a sentence that name no one
_OPENERS = frozenset("""The A An This That These Those It They We You He She His Her Our
    My Your Their There Here Then So But And Or If When After Before Today Now""".split())  # noqa: SIM905
#: How much of the draft before the claim is read for the name.
CHARS_BACK = 3000


def person_before(document: str, start: int) -> str | None:
    """The person the draft speaks of at ``start``: the last one named, going through
    its sentences before ``start`` in order - a titled name anywhere in a sentence ("we
    met Dr Ana Silva"), or the name a sentence opens with before its verb ("Sarah is
    lovely", "Marie Curie was born in Warsaw"); a sentence opening with a pronoun
    keeps the person. None before any is named."""
    current: str | None = None
    for sentence in split_sentences(document[max(0, start - CHARS_BACK):start]):
        titled = _TITLED.findall(sentence)
        opening = _OPENING.match(sentence.strip().lstrip("*_#> -"))
        if titled:
            current = str(titled[-1])
        elif opening is not None and opening.group(1) not in _NOT_PEOPLE \
                and opening.group(1).split()[0] not in _OPENERS:
            current = opening.group(1)
    return current
