"""Words of a source that say another thing where a claim's word stands, with no number
to compare: another material or kind ("a cotton T-shirt" for "a technical running
shirt"), another agent ("by volunteers" for "by the council's staff"), another place, a
ban of what the claim allows, another holder of what the claim says is still held.

Split from :mod:`deepcite.factcheck.conflicts`, which compares values, names and
negations; each function here likewise returns what the claim says and what the
sentence says instead, so the contradiction names both.
"""

from __future__ import annotations

import re

from deepcite.factcheck.conflicts import CLAUSE, LEADING_JOIN, WORDS_AND_NUMBERS, same_neighbour
from deepcite.factcheck.names import name_groups
from deepcite.factcheck.negation import denied
from deepcite.factcheck.restrictions import restrictions
from deepcite.factcheck.terms import terms_of
from deepcite.text.stopwords import STOPWORDS

__all__ = ["forbidden", "other_agent", "other_holder", "other_of_kind", "other_place"]


# What a thing is made of: "a technical running shirt" against "a cotton T-shirt", "a
# wooden bench" against "a steel bench". Named with the word after them in a note
# ("cotton T-shirt"): the material alone does not say of what.
_MATERIALS = (
    "cotton polyester wool woollen merino linen silk nylon synthetic technical fleece "
    "leather denim",
    "wooden wood timber oak pine steel iron aluminium aluminum plastic glass concrete "
    "stone brick bronze copper",
)
_MATERIAL_WORDS = frozenset(" ".join(_MATERIALS).split())
# Words of one kind of which a sentence saying one where the claim says another, beside
# the same word, states another fact: "the green bin" against "the blue bin", "the
# second woman" against "the first woman".
_KINDS = tuple(frozenset(words.split()) for words in (
    "red orange yellow green blue purple violet pink brown black white grey gray silver "
    "gold golden",
    "first second third fourth fifth sixth seventh eighth ninth tenth",
    "monday tuesday wednesday thursday friday saturday sunday",
    "spring summer autumn fall winter",
    "northern southern eastern western north south east west",
    "morning afternoon evening night",
    *_MATERIALS,
))


def other_of_kind(claim: str, sentence: str) -> tuple[str, str] | None:
    """A word of one of a few closed kinds (colours, ordinals, weekdays, seasons,
    directions, times of day) the claim says and the sentence replaces with another of
    the same kind beside the same word, as ``(claim's, sentence's)``; else None."""
    mine = [_of_kind(w) for w in WORDS_AND_NUMBERS.findall(claim)]
    clause = [_of_kind(w) for w in WORDS_AND_NUMBERS.findall(_clause_about(claim, sentence))]
    whole = [_of_kind(w) for w in WORDS_AND_NUMBERS.findall(sentence)]
    for kind in _KINDS:
        # a material qualifies the noun beside it wherever the clause is ("a medal and a
        # cotton T-shirt": the T-shirt's clause says fewer of the claim's words)
        theirs = whole if kind <= _MATERIAL_WORDS else clause
        for word in mine:
            if word not in kind or word in theirs:
                continue
            for other in theirs:
                if other in kind and other not in mine \
                        and same_neighbour(mine, word, theirs, other):
                    if word in _MATERIAL_WORDS:
                        return _with_next(claim, word), _with_next(sentence, other)
                    return word, other
    return None


def _with_next(text: str, word: str) -> str:
    """``word`` as ``text`` writes it with the word after it, when that is a content
    word ("cotton T-shirt"); else ``word``."""
    match = re.search(rf"\b{re.escape(word)}\b(?:\s+([A-Za-z][\w-]*))?", text, re.IGNORECASE)
    if match is None:
        return word
    if match.group(1) and terms_of(match.group(1)):
        return match.group(0)
    return text[match.start():match.start() + len(word)]


_ALL_KINDS = frozenset().union(*_KINDS)


def _of_kind(word: str) -> str:
    """``word`` in lower case, a plural of a word of the kinds as that word ("on
    Mondays" is Monday, "in the evenings" evening)."""
    lower = word.lower()
    return lower[:-1] if lower.endswith("s") and lower[:-1] in _ALL_KINDS else lower


def _clause_about(claim: str, sentence: str) -> str:
    """The clause of ``sentence`` that says most of the claim's words, words of the
    kinds aside, when one says more than every other; else the whole sentence. A
    sentence may state one fact for two things ("halogenated waste goes into the green
    drum; all other waste goes into the red drum"): the claim's "red drum" for
    halogenated waste is the other clause's."""
    pieces = [p for p in CLAUSE.split(sentence) if p and p.strip()]
    if len(pieces) < 2 or any(
            len(words := WORDS_AND_NUMBERS.findall(p)) == 1 and _of_kind(words[0]) in _ALL_KINDS
            for p in pieces):
        # (a piece that is one word of the kinds is an item of a list - "Works Monday,
        # Wednesday and Saturday" - which the list's clause says whole)
        return sentence
    wanted = terms_of(" ".join(w for w in WORDS_AND_NUMBERS.findall(claim)
                               if w.lower() not in _ALL_KINDS))
    said = [len(terms_of(piece) & wanted) for piece in pieces]
    best = max(said)
    return pieces[said.index(best)] if said.count(best) == 1 else sentence


# Who or what did it: "heated by solar panels", "paid for by the national lottery".
_AGENT = re.compile(r"\bby\s+(?:the\s+|an?\s+|its\s+|their\s+)?"
                    r"((?:[a-z][a-z-]+\s+){0,2}[a-z][a-z-]+)")


def other_agent(claim: str, sentence: str, known: frozenset[str]) -> tuple[str, str] | None:
    """The claim's "by ..." (who or what did it) whose words no passage has, where the
    sentence names its own doer with "by" ("warmed by a gas boiler" against "heated
    by solar panels"), as ``(claim's, sentence's)``; else None. A doer the passages
    name anywhere is only not stated here (it may be the sentence's "it")."""
    claim_terms = terms_of(claim)
    for mine in _AGENT.finditer(claim):
        words = terms_of(mine.group(1))
        if not words or words & known:
            continue
        for theirs in _AGENT.finditer(sentence):
            other = terms_of(theirs.group(1))
            if other and not other & claim_terms:
                return mine.group(0), theirs.group(1)
    return None


# Where it is done: "at the main reception", "from the estates office".
_PLACE = re.compile(r"\b(at|from)\s+(?:the|a|an|its|their|our)\s+"
                    r"((?:[a-z][a-z'\u2019-]+\s+){0,2}[a-z][a-z'\u2019-]+)")


def other_place(claim: str, sentence: str, known: frozenset[str]) -> tuple[str, str] | None:
    """The claim's "at the ..." or "from the ..." (where it is done) with a word no
    passage has, where the sentence names its own place after the same word and none of
    the claim's words ("register their badge at the security office" against "at the
    main reception"), as ``(claim's, sentence's)``; else None."""
    claim_terms = terms_of(claim)
    for mine in _PLACE.finditer(claim):
        words = terms_of(mine.group(2))
        if not words or words <= known:
            continue
        for theirs in _PLACE.finditer(sentence):
            other = terms_of(theirs.group(2))
            if theirs.group(1) == mine.group(1) and other and not other & claim_terms:
                return mine.group(0), _up_to_stopword(theirs.group(2))
    return None


def _up_to_stopword(words: str) -> str:
    """``words`` up to the first stop word after the first ("main reception before
    leaving" is "main reception")."""
    kept = words.split()[:1]
    for word in words.split()[1:]:
        if word in STOPWORDS:
            break
        kept.append(word)
    return " ".join(kept)


# What a claim allows ("Visitors may take photographs with flash") ...
_PERMIT = re.compile(r"\b(?:may|can|could|allowed|permitted|free to|welcome(?! (?:pack|"
                     r"centre|center|desk|letter|meeting|drink|event|email|message)\b))\b",
                     re.IGNORECASE)
# ... and a source's clause forbidding it ("but flash is forbidden").
_FORBID = re.compile(r"\b(?:forbidden|prohibited|banned|not (?:allowed|permitted)|"
                     r"may not|must not|mustn[\u2019']t|cannot|can[\u2019']t|"
                     r"(?:must|may|should|can) never(?: be used to| be used for)?)\b",
                     re.IGNORECASE)


_ANYWHERE = re.compile(r"\b(?:anywhere|at any time|at all|under any circumstances)\b",
                       re.IGNORECASE)


def forbidden(claim: str, sentence: str, claim_terms: frozenset[str]) -> tuple[str, str] | None:
    """A claim allowing something ("may take photographs with flash") against a clause
    of the sentence forbidding what the claim names and nothing else ("but flash is
    forbidden"), as ``(claim's, sentence's)``; else None. The clause's own words must
    all be the claim's: "flash is forbidden in the archive" forbids only there."""
    mine = _PERMIT.search(claim)
    if mine is None or _FORBID.search(claim) or denied(claim):
        return None
    for piece in CLAUSE.split(sentence):
        ban = _FORBID.search(piece or "")
        if piece is None or ban is None:
            continue
        words = terms_of(piece[:ban.start()] + " " + piece[ban.end():])
        subject = terms_of(piece[:ban.start()])
        # a ban of the claim's subject anywhere ("Dogs are not allowed anywhere on the
        # reserve" against "Dogs are welcome on a lead") forbids it wherever it is
        anywhere = bool(subject) and subject <= claim_terms and bool(
            _ANYWHERE.search(piece, ban.end()))
        if any(r.kind == "exclusive" and r.terms <= claim_terms
               for r in restrictions(sentence)):
            return None  # "Assistance dogs are welcome": the exception the ban makes
        if words and (words <= claim_terms or anywhere):
            return LEADING_JOIN.sub("", claim[mine.start():].strip().rstrip(".")), \
                LEADING_JOIN.sub("", piece.strip().rstrip("."))
    return None


# A claim that someone still holds a role: "who still runs it today", "is still in
# charge", "still leads the team".
_STILL_HOLDS = re.compile(
    r"\b(?:still|now|today|currently)\s+(?:(?:runs|leads|heads|manages|owns|directs|chairs|"
    r"coaches)\b|is\s+(?:in\s+charge|the\s+(?:director|head|chair|owner|manager|"
    r"leader|principal|editor)))[^,.;]*|\b(?:runs|leads|heads|manages|owns|directs|"
    r"chairs)\s+(?:it|them|the\s+\w+)\s+(?:still|today|now)\b", re.IGNORECASE)
# ... and a source's word for who holds it now.
_HOLDER = re.compile(
    r"\b(?:director|head|chair|chairman|chairwoman|chief executive|owner|manager|leader|"
    r"principal|editor|run by|led by|managed by|owned by|headed by|directed by)\b",
    re.IGNORECASE)


def other_holder(claim: str, sentence: str, known: frozenset[str] | set[str]
                 ) -> tuple[str, str] | None:
    """A claim that the person it names still holds a role ("set up by Elena Marchetti,
    who still runs it today") against a sentence naming someone else as the holder
    ("its director today is Paolo Ferrante"), as ``(claim's words, the other name)``;
    else None. The names alone do not conflict - both are stated, each for its own
    role - so the claim's "still" is what the other name contradicts."""
    still = _STILL_HOLDS.search(claim)
    if still is None or _HOLDER.search(sentence) is None:
        return None
    claim_terms = terms_of(claim)
    if not any(terms_of(claim[a:b]) for a, b in name_groups(claim, known)):
        return None  # no one named to hold it
    role = _HOLDER.search(sentence)
    for start, end in name_groups(sentence, known):
        words = terms_of(sentence[start:end])
        # a person's name: two capitalised words or more, none of the claim's, after
        # the word for the role
        if role is not None and start > role.start() and len(sentence[start:end].split()) >= 2 \
                and words and not words & claim_terms:
            return still.group(0).strip(), sentence[start:end]
    return None
