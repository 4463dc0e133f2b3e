"""What a claim's opening pronoun stands for: "It has a staff of twelve" after "Kestrel
Lane Coffee was started in 2014" is searched and judged as "Kestrel Lane Coffee has a
staff of twelve".

A person's draft names its subject once and then says "it", "they", "its": alone, such a
claim says too few of its source's words to find it ("staff", "twelve"), and the
sentence that states it is left unfound. The pronoun opening a claim (or following a
short opening, "Today it ...", "Each year it ...") is read as the subject of the last
claim that named one - the words before its first verb ("The roastery", "Blue badge
holders") or the name it opens with - else the name in the document's first heading.
Only the text searched and judged changes; the claim keeps its own words and offsets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deepcite.factcheck.claims import Claim, clean_claim

__all__ = ["Referent", "resolve_pronouns"]

# A pronoun opening a claim, after at most three words of a short opening ("Today it",
# "Each year it", "In 2019, they").
_OPENING_PRONOUN = re.compile(r"^(?:(it|they|its|their)|((?:[A-Za-z]+|\d{1,4})"
                              r"(?:\s+(?:[a-z]+|\d{1,4})){0,2},?\s+)(it|they))\b",
                              re.IGNORECASE)
# "it"/"them" ending a claim, its object ("Back then 540 people ran it", "Thousands
# visit it each year"): the claim's one mention of its subject.
_CLOSING_PRONOUN = re.compile(r"\b(it|them)(?=\s*[.!?]?\s*$)", re.IGNORECASE)
# A pronoun anywhere else: the claim speaks of the subject it had, naming another thing
# ("The county council has owned it since 2003"); the subject stays.
_ANY_PRONOUN = re.compile(r"\b(?:it|its|they|their|them)\b", re.IGNORECASE)
# Words that end a subject: the verb (an auxiliary or a modal) after it.
_VERBS = frozenset("""is are was were has have had can cannot could may might must will
    would shall does do did isn't aren't wasn't weren't hasn't haven't doesn't don't
    didn't can't won't""".split())  # noqa: SIM905
#: The most words a subject before its verb may have ("The hospital's multi-storey car
#: park on Quarry Road has ...").
MAX_SUBJECT_WORDS = 8
_WORD = re.compile(r"[\w'\u2019&.-]+")
_PRONOUNS = frozenset({"it", "they", "its", "their", "this", "these", "there", "he", "she",
                       "his", "her", "we", "you", "i", "our", "my", "your"})
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
# A run of two or more capitalised words: the name a heading is about.
_NAME_RUN = re.compile(r"\b[A-Z][\w'\u2019&-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w'\u2019&-]*)+")
_DETERMINER = re.compile(r"^(?:The|A|An)\s")
# A verb in the third person: "belongs", "runs" (not "glass", "its", "bus").
_VERB_ENDING = re.compile(r"^[a-z]+[^su']s$")
_POSSESSIVE = re.compile(r"['\u2019]s?$")
# Words that join a second clause or an object: what stands before them and a verb is
# no plain subject ("The lido belongs to the town council and is open").
_JOINS = frozenset({"to", "and", "that", "which", "who", "than", "or", "but"})


def _subject(text: str) -> str | None:
    """The words before the claim's first verb, when they are a subject of its own (no
    pronoun, no second clause, at most :data:`MAX_SUBJECT_WORDS` words, cut at a comma:
    "Varnell Blue, the best-known cheese, ..." is Varnell Blue); else a name it opens
    with; else None (the subject stays the one named before)."""
    words = list(_WORD.finditer(text))
    for index, word in enumerate(words[:MAX_SUBJECT_WORDS + 1]):
        if word.group(0).lower() in _VERBS:
            before = {w.group(0).lower() for w in words[:index]}
            if before and not (_PRONOUNS | _JOINS) & before:
                return text[:word.start()].split(",")[0].strip()
            if before and not _PRONOUNS & before:
                return _before_join(words[:index], text)
            break
    opening = _NAME_RUN.match(text)
    if opening is not None and opening.group(0).split()[0].lower() not in _PRONOUNS:
        return _POSSESSIVE.sub("", opening.group(0))
    return None


def _before_join(words: Sequence[re.Match[str]], text: str) -> str | None:
    """The subject of a claim whose first verb comes after a second clause ("The lido
    belongs to the town council and has been ..."): the words before the first joining
    word, less the verb ending them ("belongs")."""
    head: list[re.Match[str]] = []
    for word in words:
        if word.group(0).lower() in _JOINS:
            break
        head.append(word)
    if len(head) >= 3 and _VERB_ENDING.search(head[-1].group(0)):
        head.pop()
        if head[0].group(0)[:1].isupper():
            return text[:head[-1].end()]
    return None


def _heading_name(document: str) -> str | None:
    """The name the document's first heading is about, if it has one."""
    heading = _HEADING.search(document)
    if heading is None:
        return None
    runs = _NAME_RUN.findall(heading.group(1))
    return max(runs, key=len) if runs else None


def _as_subject(subject: str, pronoun: str, at_start: bool) -> str:
    """``subject`` standing for ``pronoun``: possessive for "its"/"their", a leading
    "The" in lower case within the sentence."""
    if not at_start and _DETERMINER.match(subject):
        subject = subject[0].lower() + subject[1:]
    if pronoun.lower() in ("its", "their"):
        subject += "'" if subject.endswith("s") else "'s"
    return subject


@dataclass(frozen=True)
class Referent:
    """A claim's ``text`` with its opening pronoun replaced by ``subject``."""

    text: str
    subject: str


def resolve_pronouns(document: str, claims: Sequence[Claim]) -> dict[int, Referent]:
    """The text to search and judge for each claim (by number) that opens with a
    pronoun: the pronoun replaced by the subject it stands for (see the module docs).
    Claims not listed keep their own text."""
    resolved: dict[int, Referent] = {}
    current = _heading_name(document)
    for claim in claims:
        text = clean_claim(claim.text)
        match = _OPENING_PRONOUN.match(text)
        if match is not None and current is not None:
            group = 1 if match.group(1) else 3
            subject = _as_subject(current, match.group(group), group == 1)
            opening = text[:match.start(group)]
            if opening and not opening.rstrip().endswith(","):
                # "Today, Kestrel Lane Coffee": the opening is no part of the name
                opening = opening.rstrip() + ", "
            resolved[claim.number] = Referent(
                opening + subject + text[match.end(group):], current)
            continue
        closing = _CLOSING_PRONOUN.search(text)
        if (closing is not None and current is not None
                and len(_ANY_PRONOUN.findall(text)) == 1):
            subject = _as_subject(current, closing.group(1), False)
            resolved[claim.number] = Referent(
                text[:closing.start()] + subject + text[closing.end():], current)
            continue
        found = _subject(text)
        if found is not None and not _ANY_PRONOUN.search(text):
            current = found
    return resolved
