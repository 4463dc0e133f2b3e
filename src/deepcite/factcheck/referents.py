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
from deepcite.factcheck.persons import PERSON_PRONOUN, person_before

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
# Verbs that agree with a plural subject only: "it" never stands for such a subject
# ("Only the changed blocks are copied. It runs 8 transfers" speaks of the tool).
_PLURAL_VERBS = frozenset("are were have do aren't weren't haven't don't".split())  # noqa: SIM905
# Words opening a phrase that is no subject ("In summer", "Since 2019", "Today").
_OPENERS = frozenset("""in on at from since during after before for with by of until
    today now then also still soon once every each""".split())  # noqa: SIM905
# Words opening a verb's object or complement ("sells the", "runs on", "costs 5").
_OBJECT_OPENERS = frozenset("""the a an its their every each all no some more less about
    over under on in at to from with up out into between both""".split())  # noqa: SIM905
_DETERMINERS = frozenset({"the", "a", "an", "each", "every", "all", "some", "no", "any"})
#: The most words before a verb with no auxiliary that may be its subject.
_MAX_BEFORE_VERB = 4
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


@dataclass(frozen=True)
class _Subject:
    """The words a claim is about, and whether its verb makes them plural."""

    words: str
    plural: bool


def _subject(text: str) -> _Subject | None:
    """The words before the claim's first verb, when they are a subject of its own (no
    pronoun, no second clause, at most :data:`MAX_SUBJECT_WORDS` words, cut at a comma:
    "Varnell Blue, the best-known cheese, ..." is Varnell Blue); else a name it opens
    with; else None (the subject stays the one named before)."""
    words = list(_WORD.finditer(text))
    for index, word in enumerate(words[:MAX_SUBJECT_WORDS + 1]):
        if word.group(0).lower() in _VERBS:
            # ("I'm", "we've", "it's": the pronoun before its contraction)
            before = {re.split(r"['\u2019]", w.group(0).lower())[0] for w in words[:index]}
            plural = word.group(0).lower() in _PLURAL_VERBS
            if before and not (_PRONOUNS | _JOINS) & before:
                return _Subject(text[:word.start()].split(",")[0].strip(), plural)
            if before and not _PRONOUNS & before:
                joined = _before_join(words[:index], text)
                return None if joined is None else _Subject(joined, False)
            break
        if 1 <= index <= _MAX_BEFORE_VERB and _third_person(words, index, text):
            return _Subject(text[:word.start()].strip(), False)
    opening = _NAME_RUN.match(text)
    if opening is not None and opening.group(0).split()[0].lower() not in _PRONOUNS:
        return _Subject(_POSSESSIVE.sub("", opening.group(0)), False)
    lead = _LEAD_PHRASE.match(text)
    if lead is not None:
        # "Out of the box, prune keeps ...", "By default, the cache holds ...": the
        # subject of what follows the opening phrase
        # (a short one: "anything passed as a flag wins over what is ..." is none)
        after = _subject(text[lead.end():])
        if after is not None and len(after.words.split()) <= _MAX_BEFORE_VERB:
            return after
    return None


# A short phrase opening a claim, ended by a comma ("Out of the box,", "By default,").
_LEAD_PHRASE = re.compile(r"^[A-Za-z][\w'-]*(?:\s+[\w'-]+){0,3},\s+(?=[a-z])")


def _third_person(words: Sequence[re.Match[str]], index: int, text: str) -> bool:
    """Whether word ``index`` is a verb in the third person ending a subject with no
    auxiliary: "tidepool supports Amazon S3", "Kestrel Lane Coffee roasts its beans".
    A plural noun looks the same ("The volunteers meet"), so the word after it must
    open an object (a determiner, a preposition, a number, a name), or the words before
    it be a name; and the words before must open with no preposition or adverb ("In
    summer the lido opens" names no subject)."""
    if not _VERB_ENDING.search(words[index].group(0)):
        return False
    before = [w.group(0) for w in words[:index]]
    lowered = {re.split(r"['\u2019]", w.lower())[0] for w in before}
    if (_PRONOUNS | _JOINS | _OPENERS) & lowered or before[0].lower().endswith("ly"):
        return False
    if _NAME_RUN.fullmatch(text[:words[index].start()].strip()) or (
            len(before) == 1 and before[0].lower() not in _DETERMINERS):
        return True
    after = words[index + 1].group(0) if index + 1 < len(words) else ""
    return after.lower() in _OBJECT_OPENERS or after[:1].isupper() or after[:1].isdigit()


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
    # the last subject named, and the last one a singular verb spoke of: "it" and "its"
    # stand for that one, "they" and "their" (a company, its staff) for either
    current = singular = _heading_name(document)
    for claim in claims:
        text = clean_claim(claim.text)
        person = PERSON_PRONOUN.match(text)
        named = person_before(document, claim.start) if person is not None else None
        if person is not None and named is not None:
            # "She works Mondays ..." after "Sarah is lovely ...": the person named last
            # (a remark naming someone is no claim, so the claims alone lack the name)
            said = named + ("'s" if person.group(1).lower() in ("her", "his") else "")
            resolved[claim.number] = Referent(said + text[person.end():], named)
            continue
        match = _OPENING_PRONOUN.match(text)
        group = 0 if match is None else 1 if match.group(1) else 3
        if match is not None and match.group(group).lower() in ("it", "its"):
            current = singular
        if match is not None and current is not None:
            subject = _as_subject(current, match.group(group), group == 1)
            opening = text[:match.start(group)]
            if opening and not opening.rstrip().endswith(","):
                # "Today, Kestrel Lane Coffee": the opening is no part of the name
                opening = opening.rstrip() + ", "
            resolved[claim.number] = Referent(
                opening + subject + text[match.end(group):], current)
            continue
        closing = _CLOSING_PRONOUN.search(text)
        if closing is not None and closing.group(1).lower() == "it":
            current = singular
        if (closing is not None and current is not None
                and len(_ANY_PRONOUN.findall(text)) == 1):
            subject = _as_subject(current, closing.group(1), False)
            resolved[claim.number] = Referent(
                text[:closing.start()] + subject + text[closing.end():], current)
            continue
        found = _subject(text)
        if found is not None and not _ANY_PRONOUN.search(text):
            current = found.words
            if not found.plural:
                singular = found.words
    return resolved
