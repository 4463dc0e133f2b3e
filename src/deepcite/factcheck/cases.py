"""A source splitting its subject into cases, against a claim saying one thing holds in
all of them.

"pictorn keeps all frames if the output format is GIF or WebP. For any other output
format, only the first frame is written" says what happens in two cases; a claim that
"animated images are always flattened to their first frame, whatever format you
convert them to" says the second case's outcome for every case, so the first case
contradicts it. No word of the two ("keeps all frames", "flattened") marks them as
opposites: the split itself does - a sentence under a condition ("if", "when") and the
one after it opening on the other cases ("For any other ...", "Otherwise").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.factcheck.judgement import (
    DENIAL_CANDIDATES,
    DENIAL_FLOOR,
    Conflict,
    Judgement,
    quote_of_sentence,
)
from deepcite.factcheck.passages import Pool, Sentence
from deepcite.factcheck.restrictions import restrictions, scope_clash
from deepcite.factcheck.terms import terms_of

__all__ = ["case_split", "split_outright"]

# A sentence on the cases the one before it leaves: "For any other output format",
# "In all other cases", "Otherwise", "Any other ..."
_OTHER_CASES = re.compile(
    r"^\W*(?:(?:for|in|with|on|at|to)\s+(?:any|all|every)\s+other\b|in\s+(?:all\s+)?other\s+"
    r"cases\b|otherwise\b|else(?:where)?\b|(?:any|all|every)\s+other\b|for\s+the\s+rest\b)",
    re.IGNORECASE)


# What a claim says holds in every case: "always", "whatever format", "regardless of",
# "no matter which", "never" ("all frames" counts the frames, not the cases)
_ALL_CASES = re.compile(r"\b(?:always|never|whatever|whichever|whoever|regardless|no matter|"
                        r"in (?:all|every|any) cases?|every time|without exception)\b",
                        re.IGNORECASE)


def _pair(sentence: Sentence, pool: Pool) -> tuple[Sentence, Sentence] | None:
    """The sentence under a condition and the one after it on the other cases, of which
    ``sentence`` is one; None when it is in no such pair."""
    mine = pool.by_passage[sentence.passage]
    for first_index in (sentence.index, sentence.index - 1):
        if first_index < 0 or first_index + 1 >= len(mine):
            continue
        condition, rest = mine[first_index], mine[first_index + 1]
        if _OTHER_CASES.match(rest.text) and any(
                r.kind == "conditional" for r in restrictions(condition.text)):
            return condition, rest
    return None


def _without_conditions(text: str) -> frozenset[str]:
    """The words of ``text`` beside its conditions: what it says happens."""
    rest = text
    for restriction in restrictions(text):
        if restriction.kind == "conditional":
            rest = rest.replace(restriction.text, " ")
    rest = _OTHER_CASES.sub(" ", rest)
    return terms_of(rest)


def case_split(claim: str, sentence: Sentence,
               pool: Pool) -> tuple[str, str, Sentence] | None:
    """The claim's "always"/"whatever" against a split into cases ``sentence`` is part
    of: what the claim says for all, the case that says otherwise (the one saying fewer
    of the claim's words beside its condition), and that case's sentence; or None."""
    wide = _ALL_CASES.search(claim)
    if wide is None or any(r.kind == "conditional" for r in restrictions(claim)):
        return None  # (a claim of one case - "when converted to GIF" - is no claim of all)
    pair = _pair(sentence, pool)
    if pair is None:
        return None
    claim_terms = terms_of(claim)
    said = [len(claim_terms & _without_conditions(case.text)) for case in pair]
    if said[0] == said[1]:
        return None  # neither case says more of the claim: no telling which differs
    other = pair[0] if said[0] < said[1] else pair[1]
    clash = scope_clash(claim, other.text)
    draft = clash.draft if clash is not None else wide.group(0)
    source = clash.source if clash is not None and clash.source else other.text
    return draft, source, other


def split_outright(text: str, claim_terms: frozenset[str],
                   scored: Sequence[tuple[float, Sentence]], pool: Pool) -> Judgement | None:
    """A split into cases among the sentences saying the most of the claim's words (at
    least :data:`DENIAL_FLOOR`) that contradicts what it says of all: said of cases in
    other words, the claim is no sentence's subject by its words."""
    for score, sentence in scored[:DENIAL_CANDIDATES]:
        if score < DENIAL_FLOOR or len(claim_terms & sentence.terms) < 2:
            continue
        found = case_split(text, sentence, pool)
        if found is not None:
            return Judgement("contradicted", score, (quote_of_sentence(found[2]),),
                             (Conflict(found[0], found[1], 0),))
    return None
