"""What happens unless the reader acts: the default, on or off. "Drafts are published
unless you turn them off" says they are on by default; "Drafts are left out unless you
pass `--drafts`" says they are off. Two such sentences on one subject whose main clauses
differ in polarity - one negated or excluding, the other not - state opposite defaults,
so the source contradicts the claim, the note quoting the source's sentence.

The claim's words may not find the sentence (it says what the default is, the source
how to change it), so every sentence of the passages with an "unless" is read: one whose
main clause shares the claim's subject (a word before its verb) and its verb or an
opposite of it.
"""

from __future__ import annotations

import re

from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.passages import Pool
from deepcite.factcheck.terms import terms_of

__all__ = ["default_against", "unless_against", "unless_default"]

# the main clause and the condition: "Drafts are excluded | unless you pass `--drafts`"
_UNLESS = re.compile(r"(?P<main>[^.;:!?]*?)\s*,?\s+unless\s+(?P<cond>[^.;!?,]*)",
                     re.IGNORECASE)
# a main clause saying the thing does not happen
_OFF = re.compile(
    r"\b(?:not|never|no|cannot)\b|n[\u2019']t\b|\b(?:excluded|skipped|omitted|ignored|"
    r"hidden|left\s+out|disabled|off|suppressed|withheld|dropped)\b", re.IGNORECASE)
# a setting the reader makes: "unless you pass `--drafts`", "unless you turn it off"
_SETTING = re.compile(r"\b(?:pass|passes|set|sets|turn|turns|switch|switches|enable|"
                      r"enables|disable|disables|opt|opts|tell|configure|specify|add|"
                      r"explicitly)\b", re.IGNORECASE)
#: The most content words of a main clause read (a short statement of a default).
_MAIN_TERMS = 8
# the verb of a main clause, after its subject: "are excluded", "get published"
_VERB = re.compile(r"\b(?:is|are|get|gets|will\s+be|will|do|does|don[\u2019']t|"
                   r"doesn[\u2019']t|aren[\u2019']t|isn[\u2019']t)\b", re.IGNORECASE)


def unless_default(text: str) -> tuple[str, frozenset[str], bool] | None:
    """``text``'s "X ... unless you set Y": its span, the words of X's subject (before
    its verb) and whether X is off (negated or excluding); None where it has none, or
    where the condition is no setting of the reader's ("unless you cancel late" says
    when, not what the default is)."""
    match = _UNLESS.search(text)
    if match is None or not _SETTING.search(match.group("cond")):
        return None
    main = match.group("main")
    verb = _VERB.search(main)
    if verb is None or len(terms_of(main)) > _MAIN_TERMS:
        return None
    subject = terms_of(main[:verb.start()])
    if not subject or not terms_of(main[verb.start():]):
        return None
    return text[match.start("main"):match.end()].strip(), subject, bool(_OFF.search(main))


def default_against(claim: str, sentence: str) -> str | None:
    """The "unless" of ``sentence``, where it states the opposite default of
    ``claim``'s on the same subject; None otherwise."""
    mine, theirs = unless_default(claim), unless_default(sentence)
    if mine is None or theirs is None or mine[2] == theirs[2] or not mine[1] & theirs[1]:
        return None
    return theirs[0]


def unless_against(claim: str, pool: Pool) -> Judgement | None:
    """``contradicted`` where a sentence of ``pool`` states the opposite default of the
    claim's "unless"; None otherwise."""
    mine = unless_default(claim)
    if mine is None:
        return None
    for sentence in pool.sentences:
        if "unless" in sentence.text.lower() and default_against(claim, sentence.text):
            return Judgement("contradicted", 0.0, (quote_of_sentence(sentence),),
                             (Conflict(mine[0], sentence.text.strip(), 0),))
    return None
