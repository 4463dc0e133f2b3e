"""A claim that one command-line flag is the short form of another ("`-j` is the short
form of `--concurrency`") against the reference that lists a flag's forms side by side
("- `-j N`, `--concurrency N`: number of parallel uploads").

A reference never says "short form": it writes the two forms in one list item, so the
claim's words find nothing. The pair, written together, says it; the short flag written
beside another long one contradicts it, and the note names that one.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.passages import Pool, values_of
from deepcite.factcheck.terms import terms_of

__all__ = ["Alias", "alias_claimed", "judge_alias", "only_alias"]

_FLAG = r"-{1,2}[A-Za-z][\w-]*"
_CLAIMED = re.compile(
    rf"`?(?P<one>{_FLAG})`?\s+(?:is|are)\s+(?:just\s+|simply\s+)?(?:the\s+|a\s+|an\s+)?"
    r"(?:short(?:hand)?(?:\s+(?:form|version|flag|option))?|abbreviation|alias|"
    r"(?:long(?:\s+form)?))\s+(?:for|of)\s+"
    rf"`?(?P<two>{_FLAG})`?", re.IGNORECASE)
# the forms of one flag as a reference lists them: "`-j N`, `--concurrency N`",
# "-j/--concurrency", "-j or --concurrency" (a value's name after each form)
_FORMS = re.compile(
    rf"(?<![\w-])(?P<one>{_FLAG})(?:[ =][A-Z][A-Z_]*)?`?\s*(?:,|/|\bor\b|\|)\s*`?"
    rf"(?P<two>{_FLAG})(?![\w-])")


class Alias(NamedTuple):
    """Two forms of one flag a claim names as the same."""

    one: str
    two: str


def alias_claimed(claim: str) -> Alias | None:
    """The two flags ``claim`` says are forms of one, or None."""
    match = _CLAIMED.search(claim)
    return Alias(match.group("one"), match.group("two")) if match else None


def judge_alias(claim: str, pool: Pool) -> Judgement | None:
    """``supported`` where a sentence lists the claim's two flags as forms of one,
    ``contradicted`` where it lists one of them beside another flag (and none lists the
    two together); None where no sentence lists either."""
    alias = alias_claimed(claim)
    if alias is None:
        return None
    mine = {alias.one.lower(), alias.two.lower()}
    other = None
    for sentence in pool.sentences:
        for match in _FORMS.finditer(sentence.text):
            theirs = {match.group("one").lower(), match.group("two").lower()}
            if theirs == mine:
                return Judgement("supported", 1.0, (quote_of_sentence(sentence),),
                                 stated=(alias.one, alias.two))
            shared = theirs & mine
            if len(shared) == 1 and other is None:
                kept = next(iter(shared))
                said = alias.two if kept == alias.one.lower() else alias.one
                found = next(flag for flag in (match.group("one"), match.group("two"))
                             if flag.lower() != kept)
                other = sentence, said, found
    if other is None:
        return None
    sentence, said, found = other
    return Judgement("contradicted", 1.0, (quote_of_sentence(sentence),),
                     (Conflict(said, found, 0),))


def only_alias(text: str) -> bool:
    """Whether what ``text`` says beside the alias it claims is no more than a frame
    ("If a job needs more throughput, ..."): no value and at most three content words."""
    alias = alias_claimed(text)
    if alias is None:
        return False
    rest = text.replace(alias.one, " ").replace(alias.two, " ")
    return not values_of(rest) and len(terms_of(rest) - _ALIAS_WORDS) <= 3


_ALIAS_WORDS = terms_of("short shorthand form version flag option abbreviation alias long")
