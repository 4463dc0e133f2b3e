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

from deepcite.factcheck.agreement import agrees
from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.passages import Pool, values_of
from deepcite.factcheck.terms import terms_of

__all__ = ["continued_against", "ended_outright"]

#: The score of a version the claim says goes on, which a sentence says has ended.
ENDED_FOUND = 0.5

# what goes on as it is: "keep using", "continue to", "still works", "nothing's changing"
_GOES_ON = re.compile(
    r"\b(?:keeps?|kept)\s+(?:on\s+)?[a-z]+ing\b|\bcontinu(?:e|es|ed|ing)\s+to\b|"
    r"\bstill\s+(?:(?!less\b|unless\b)[a-z]+[^s\W]s\b|"
    r"works?|supported|available|usable|accepted|valid|there|runs?|"
    r"maintained|(?:gets?|getting|receives?|receiving)\s+(?:[a-z]+\s+)?(?:updates?|"
    r"patch(?:es)?|fixes|support|releases?))\b|"
    r"\bnothing(?:[\u2019']s|\s+is|\s+will\s+be)?\s+chang(?:e|es|ed|ing)\b|"
    r"\bno\s+changes?\s+(?:to|there|here)\b|\bunchanged\b|\b(?:is\s*n[\u2019']t|is\s+not|"
    r"are\s*n[\u2019']t|are\s+not)\s+going\s+(?:away|anywhere)\b", re.IGNORECASE)
# what the source says ends: "Deprecated:", "is deprecated", "will be removed"
# (or that it is past its end of life and gets nothing more: "reached end of life",
# "EOL", "receives no further updates"; or that it held until a release: "Until this
# release, obsolete entries were removed on every sync")
_ENDS = re.compile(r"\b(?:deprecated|deprecates|deprecation|removed|dropped|discontinued|"
                   r"phased\s+out|no\s+longer|obsolete|end[-\s]of[-\s]life|EOL|"
                   r"no\s+further|until\s+(?:this|that|the\s+\w+)\s+(?:release|version))\b",
                   re.IGNORECASE)
# "obsolete strings": what the thing is, no end the claim speaks of
_ATTRIBUTIVE = re.compile(r"obsolete\s+[a-z]", re.IGNORECASE)
_CLAUSE = re.compile(r";|\.\s|\s(?:but|while|whereas)\s")
# an end the claim itself gives what goes on: "keeps working until 2.0", "for now"
_UNTIL = re.compile(r"\b(?:until|till|for\s+now|for\s+the\s+time\s+being)\b", re.IGNORECASE)


def continued_against(claim: str, sentence: str) -> tuple[str, str] | None:
    """What ``claim`` says goes on unchanged and the word of ``sentence`` deprecating or
    removing it, in a clause on the claim's words; None otherwise (or where the claim
    speaks of the end itself: "is deprecated but still works", "keeps working until
    2.0")."""
    goes_on = _GOES_ON.search(claim)
    if goes_on is None or _UNTIL.search(claim, goes_on.end()) or any(
            not _ATTRIBUTIVE.match(claim, end.start()) for end in _ENDS.finditer(claim)):
        # (one going on "until 1.0" speaks of its end: a deprecation says as much)
        return None
    claim_terms = terms_of(claim[:goes_on.start()] + " " + claim[goes_on.end():])
    versions = [v for v in values_of(claim) if v.kind == "version"]
    for clause in _CLAUSE.split(sentence):
        ends = _ENDS.search(clause)
        # (or on the claim's version: "2.x" of "v2.x reached end of life")
        if ends is not None and (terms_of(clause) & claim_terms or any(
                agrees(mine, theirs) for mine in versions for theirs in values_of(clause))):
            return goes_on.group(0), ends.group(0)
    return None


def ended_outright(claim: str, pool: Pool) -> Judgement | None:
    """A version the claim says goes on ("your 2.x install is still getting security
    patches") that a sentence says has ended ("v2.x reached end of life and receives no
    further updates"): contradicted, though the claim's other words are the source's
    only in other words, so no sentence was found by them. None otherwise."""
    if _GOES_ON.search(claim) is None or not any(
            v.kind == "version" for v in values_of(claim)):
        return None
    for sentence in pool.sentences:
        if _ENDS.search(sentence.text) is None:
            continue
        pair = continued_against(claim, sentence.text)
        if pair is not None and any(v.kind == "version" and any(
                agrees(mine, v) for mine in values_of(claim)) for v in values_of(sentence.text)):
            return Judgement("contradicted", ENDED_FOUND, (quote_of_sentence(sentence),),
                             (Conflict(pair[0], pair[1], 0),))
    return None
