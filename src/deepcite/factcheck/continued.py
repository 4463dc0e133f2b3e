"""A thing the claim says goes on as it is, which the source deprecates or removes:
"You can keep using `--exclude-caches`, nothing's changing there" against
"Deprecated: `--exclude-caches` flag; use `exclude_caches = true` in the config file".

A deprecation is no negation of the thing ("`--exclude-caches` still works" may well be
true of a deprecated flag), so the polarity check sees none; what it denies is that
nothing changes. Only a claim saying so - "keep using", "continues to", "still
supported", "nothing changes", "unchanged" - is contradicted, by a clause of the source
on the claim's words saying it is deprecated, removed or going away.
"""

from __future__ import annotations

import re

from deepcite.factcheck.terms import terms_of

__all__ = ["continued_against"]

# what goes on as it is: "keep using", "continue to", "still works", "nothing's changing"
_GOES_ON = re.compile(
    r"\b(?:keeps?|kept)\s+(?:on\s+)?[a-z]+ing\b|\bcontinu(?:e|es|ed|ing)\s+to\b|"
    r"\bstill\s+(?:works?|supported|available|usable|accepted|valid|there)\b|"
    r"\bnothing(?:[\u2019']s|\s+is|\s+will\s+be)?\s+chang(?:e|es|ed|ing)\b|"
    r"\bno\s+changes?\s+(?:to|there|here)\b|\bunchanged\b|\b(?:is\s*n[\u2019']t|is\s+not|"
    r"are\s*n[\u2019']t|are\s+not)\s+going\s+(?:away|anywhere)\b", re.IGNORECASE)
# what the source says ends: "Deprecated:", "is deprecated", "will be removed"
_ENDS = re.compile(r"\b(?:deprecated|deprecates|deprecation|removed|dropped|discontinued|"
                   r"phased\s+out|no\s+longer|obsolete)\b", re.IGNORECASE)
_CLAUSE = re.compile(r";|\.\s|\s(?:but|while|whereas)\s")
# an end the claim itself gives what goes on: "keeps working until 2.0", "for now"
_UNTIL = re.compile(r"\b(?:until|till|for\s+now|for\s+the\s+time\s+being)\b", re.IGNORECASE)


def continued_against(claim: str, sentence: str) -> tuple[str, str] | None:
    """What ``claim`` says goes on unchanged and the word of ``sentence`` deprecating or
    removing it, in a clause on the claim's words; None otherwise (or where the claim
    speaks of the end itself: "is deprecated but still works", "keeps working until
    2.0")."""
    goes_on = _GOES_ON.search(claim)
    if goes_on is None or _ENDS.search(claim) or _UNTIL.search(claim, goes_on.end()):
        # (one going on "until 1.0" speaks of its end: a deprecation says as much)
        return None
    claim_terms = terms_of(claim[:goes_on.start()] + " " + claim[goes_on.end():])
    for clause in _CLAUSE.split(sentence):
        ends = _ENDS.search(clause)
        if ends is not None and terms_of(clause) & claim_terms:
            return goes_on.group(0), ends.group(0)
    return None
