"""In which order things are done: "Hooks run in alphabetical order" against "Hooks run
in the order they are listed in `hooks`" - another kind of order for the same doing, so
the source contradicts the claim, the note quoting the source's clause.

A kind is read from a phrase naming it - alphabetical, the order listed (declared,
given, added ...), random - and the doing is the word before it ("run", "loaded",
"applied"). A sentence anywhere in the passages counts, as the claim's subject may be a
pronoun the words do not find ("They run in alphabetical order"); one saying the claim's
kind for the same doing leaves the claim to the other rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.named_otherwise import first_named_otherwise
from deepcite.factcheck.passages import Pool
from deepcite.factcheck.terms import terms_of

__all__ = ["order_kind_against", "order_kinds"]

_KINDS = (
    ("alphabetical", re.compile(r"\b(?:in\s+)?alphabetical(?:ly)?(?:\s+order)?\b|"
                                r"\bsorted\s+by\s+(?:their\s+)?names?\b", re.IGNORECASE)),
    ("listed", re.compile(
        r"\bin\s+the\s+order\s+(?:in\s+which\s+)?(?:they|it|you|that\s+they)\s+(?:are|were|"
        r"is|was|have\s+been|appear|get)?\s*(?:listed|declared|given|written|defined|"
        r"configured|added|registered|named|specified|installed)\b|"
        r"\bin\s+(?:the\s+)?(?:listed|declared|configured|given)\s+order\b", re.IGNORECASE)),
    ("random", re.compile(r"\bin\s+(?:a\s+)?random\s+order\b|\bin\s+no\s+particular\s+"
                          r"order\b", re.IGNORECASE)),
)
_WORD_BEFORE = re.compile(r"([A-Za-z]+)\s*$")
_CLAUSE_END = re.compile(r",\s|;|\.\s|$")


def order_kinds(text: str) -> Iterator[tuple[str, frozenset[str], int, int]]:
    """Each order ``text`` names: its kind, the doing (the word before the phrase, as
    terms) and where the phrase is."""
    for kind, pattern in _KINDS:
        for match in pattern.finditer(text):
            before = _WORD_BEFORE.search(text[:match.start()])
            doing = terms_of(before.group(1)) if before is not None else frozenset()
            if doing:
                yield kind, doing, match.start(), match.end()


def order_kind_against(claim: str, pool: Pool) -> Judgement | None:
    """``contradicted`` where the claim names one kind of order for a doing and a
    sentence of ``pool`` another for the same doing (and none the claim's); None
    otherwise."""
    mine = list(order_kinds(claim))
    if not mine:
        return None
    other = first_named_otherwise(pool, mine, order_kinds,
                                  lambda my, theirs: bool(my[1] & theirs[1]),
                                  lambda my, theirs: my[0] == theirs[0])
    if other is None:
        return None
    _, (_, _, start, end), index = other
    sentence = pool.sentences[index]
    text = sentence.text
    # the clause the order is said in, from the sentence's start or its clause's
    opening = max((m.end() for m in re.finditer(r";\s*|\.\s+", text[:start])), default=0)
    closing = _CLAUSE_END.search(text, end)
    stop = closing.start() if closing is not None else len(text)
    my_start, my_end = mine[0][2], mine[0][3]
    before = _WORD_BEFORE.search(claim[:my_start])
    draft = claim[before.start() if before is not None else my_start:my_end]
    return Judgement("contradicted", 0.0, (quote_of_sentence(sentence),),
                     (Conflict(draft, text[opening:stop].strip(), 0),))
