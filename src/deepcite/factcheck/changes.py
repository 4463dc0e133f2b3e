"""A value the source says was changed: "The default filter changed from bicubic to
lanczos3", "The maximum was raised from 64 to 256". A claim stating the old value as it
is now ("the default filter has been bicubic since then") says what the source says no
longer holds.

Its own module so that :mod:`~deepcite.factcheck.judge` stays about the verdict: the
words of such a claim all match its source, the old value included, so only the change
tells it wrong.
"""

from __future__ import annotations

import re

from deepcite.factcheck.terms import terms_of

__all__ = ["changed_from"]

_CHANGE = re.compile(
    r"\b(?:changed|switched|moved|went|raised|lowered|increased|reduced|cut|renamed|"
    r"upgraded|downgraded|migrated)\s+from\s+(?P<old>[^,;.()]+?)\s+to\s+"
    r"(?P<new>[^,;()]+?)(?=[,;()]|\.(?:\s|$)|\s+(?:in|on|at|for|when|because|after|"
    r"since)\b|$)", re.IGNORECASE)
# A claim about the time before the change: "until 2.0 it was bicubic", "used to be".
_BEFORE_CHANGE = re.compile(r"\b(?:until|till|before|used\s+to|originally|previously|"
                            r"formerly|at\s+first|initially|no\s+longer)\b", re.IGNORECASE)
_MARKS = re.compile(r"[`*_\"\u201c\u201d]")


def changed_from(claim: str, sentence: str) -> tuple[str, str] | None:
    """The claim's old value and the source's change, when ``sentence`` says a thing
    of the claim's was changed from what the claim says to something else ("changed
    from bicubic to lanczos3" against "has been bicubic"), else None. The sentence must
    say two more of the claim's words, and the claim neither the new value nor a time
    before the change."""
    if _BEFORE_CHANGE.search(claim):
        return None
    claim_terms = terms_of(claim)
    plain = _MARKS.sub("", sentence)
    for match in _CHANGE.finditer(plain):
        old, new = terms_of(match.group("old")), terms_of(match.group("new"))
        if not old or not new or not old <= claim_terms or new & claim_terms:
            continue
        if len((terms_of(plain) - old - new) & claim_terms) < 2:
            continue
        return match.group("old").strip(), match.group(0).strip()
    return None
