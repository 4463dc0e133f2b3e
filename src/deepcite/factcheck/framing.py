"""Conditions that frame a claim for its reader rather than bound what it says.

"If you ride regularly, the yearly plan is the better deal" or "If you need a
receipt, you can ask at the desk": the condition speaks of the reader's wants, needs,
plans or habits - the situation the advice is for - and states nothing of the subject
a source would have to say too. "If you cancel within 24 hours, you get a refund" is a
real condition: an act of the reader's that triggers the rule, which a source states.
"""

from __future__ import annotations

import re

__all__ = ["reader_framing"]

# "if you", "when you're", "should you", "for those of you who"
_TO_READER = r"(?:(?:if|when|whenever|where|should)\s+you(?:[\u2019']re|\s+are)?|" \
    r"for\s+(?:those\s+of\s+you|anyone|people)\s+who)\s+"
# the reader's wish, need, plan or liking
_WANTING = (r"(?:(?:just|only|really|mostly|ever)\s+)?(?:need|needs|want|wants|wish|prefer|"
            r"plan|planning|intend|intending|like|would\s+like|hope|hoping|mean|looking|"
            r"interested|after|keen|curious)\b")
# a habit: a verb and how often ("ride regularly", "travel a lot", "commute daily")
_HABIT = (r"(?:\w+\s+){1,3}?(?:regularly|often|frequently|occasionally|rarely|seldom|"
          r"daily|weekly|a\s+lot|every\s+(?:day|week)|most\s+days|now\s+and\s+then)\b")
_FRAMING = re.compile(rf"^\W*(?:(?:and|but|so|or)\s+)?{_TO_READER}(?:{_WANTING}|{_HABIT})",
                      re.IGNORECASE)


def reader_framing(condition: str) -> bool:
    """Whether ``condition`` (a claim's "if ..." clause) frames the claim for its
    reader - their wants, needs, plans or habits - rather than restricting it."""
    return _FRAMING.search(condition) is not None
