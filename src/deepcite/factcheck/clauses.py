"""A claim's clauses: where a claim of several parts is cut ("... and is free for
patients"), a clause of a value given the noun it follows ("the timeout, which is a
minute"), a clause it adds that no sentence says, and how a contradiction's note writes
a bare number.

Split from :mod:`~deepcite.factcheck.judge`, which uses them, to keep that module to
its verdict rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.factcheck.negation import KEEPING
from deepcite.factcheck.passages import Sentence, terms_said
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.units import FREE
from deepcite.factcheck.value import Value
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD

__all__ = ["CLAUSE_MIN_TERMS", "claim_parts", "shown", "unsaid_clause", "with_antecedents"]

_PARTS = re.compile(r",\s+(?:and\s+|but\s+|while\s+|whereas\s+)?|\s+(?:and|but|while|whereas)\s+"
                    r"|;\s*|\uff0c|\uff1b")
_BETWEEN = re.compile(r"\bbetween\s+\S+(?:\s+\S+)?$", re.IGNORECASE)
_LOWER_WORD = re.compile(r"\b[a-z][a-z-]{2,}\b")
_FRACTION = re.compile(r"(?:an?\s+)?(?:half|quarter|third)\b", re.IGNORECASE)


def claim_parts(text: str) -> list[str]:
    """The clauses of a claim that each state something: cut at commas and "and",
    "but" ..., where the part after the cut has words of its own beyond names (so
    "by Ilona Varga and Jonas Berg" stays whole)."""
    parts: list[str] = []
    at = 0
    for match in _PARTS.finditer(text):
        left, right = text[at:match.start()], text[match.end():]
        if _FRACTION.match(right):
            continue  # "three and a half hours" is one amount
        if match.group(0).strip() == "and" and (_BETWEEN.search(left) or len(WORD.findall(
                right[:next((m.start() for m in _PARTS.finditer(right)), len(right))])) < 3):
            # "between 1 and 100" is one range; "for resizing and converting images,"
            # one thing done, not a clause of two words
            continue
        if len(WORD.findall(left)) >= 3 and len(WORD.findall(right)) >= 3 and any(
                word not in STOPWORDS for word in _LOWER_WORD.findall(right)):
            parts.append(left)
            at = match.end()
    parts.append(text[at:])
    return [part.strip() for part in parts if terms_of(part)]


_AND_CLAUSE = re.compile(r"\s+and\s+(?=(?:is|are|was|were|has|have|had|can|will|"
                         r"also|now)\b)")
# The last item of a list the claim ends with: "... and a garden".
_AND_LAST_ITEM = re.compile(r"\s+and\s+(?=(?:a|an|some)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?"
                            r"\s*\.?\s*$)")
# A remark on the people or things just counted: ", most of them retired", ", many of
# whom live nearby".
_REMARK = re.compile(r",\s+(?:most|many|some|several|half|all|none|few|nearly\s+all|"
                     r"almost\s+all)\s+of\s+(?:them|whom|which)\b", re.IGNORECASE)
#: The fewest content words of an added clause for :func:`_unsaid_clause`.
CLAUSE_MIN_TERMS = 2


def unsaid_clause(text: str, sentences: Sequence[Sentence],
                   values: Sequence[Value]) -> str | None:
    """A clause the claim adds after "and" with a verb of its own ("... and is free for
    patients"), stating no value and at least :data:`CLAUSE_MIN_TERMS` content words,
    none of which the best of ``sentences`` says and no more than half of which one of
    the others (its neighbours) says; else None."""
    remark = _REMARK.search(text)
    if remark is not None:
        # "Around 140 volunteers help out, most of them retired": what the remark says
        # of them, none of which a sentence there says
        terms = terms_of(text[remark.end():])
        if terms and not any(terms_said(terms, s.terms) for s in sentences):
            return text[remark.start():].strip(" ,.")
    last = _AND_LAST_ITEM.search(text)
    for match in [*_AND_CLAUSE.finditer(text), *([last] if last else [])]:
        if any(v.start < match.start() < v.end for v in values):
            continue  # "an hour and a half" is one value
        clause = text[match.end():].rstrip(" .")
        terms = terms_of(clause)
        if match is last and terms and not any(v.start >= match.end() for v in values) \
                and not any(terms_said(terms, s.terms) for s in sentences):
            # the last thing of a list ("a kitchen on every floor and a garden") that
            # no sentence there says, even in one word
            return clause
        # ("free" is a value of no amount, said in a word: the clause's words decide)
        if len(terms) < CLAUSE_MIN_TERMS or any(v.start >= match.end() and v.unit != FREE
                                                for v in values):
            continue
        best, *near = sentences
        if not terms_said(terms, best.terms) and not any(
                2 * len(terms_said(terms, s.terms)) > len(terms) for s in near):
            return clause
    return None


_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z-]*)\s*$")


def shown(value: Value, text: str) -> str:
    """How a contradiction's note writes ``value`` of ``text``: a bare number with the
    word before it that names it ("level 2", "port 9090"), since "draft: 3; source: 2"
    alone says nothing of what differs."""
    if value.kind != "number" or value.unit or not value.before:
        return value.text
    word = _WORD_BEFORE.search(text, 0, value.start)
    if word is None or value.before not in terms_of(word.group(1)):
        return value.text
    return f"{word.group(1)} {value.text}"


_QUANTIFIED = re.compile(r"\b(?:every|each|any|all)\s+(?:of\s+)?(?:the\s+|its\s+|their\s+)?"
                         r"(?:single\s+)?([A-Za-z][\w-]*)", re.IGNORECASE)
# Spans of time: "every day", "any time" scope when, whatever the source calls the days.
_SPANS = frozenset(terms_of("day days week weeks month months year years time times hour "
                            "hours night nights weekday weekdays weekend weekends season "
                            "round long"))


def quantified_elsewhere(claim: str, sentence: str, sentence_terms: frozenset[str]) -> bool:
    """Whether the claim's "every"/"any"/"all" and the sentence's are of other things:
    each word the claim's quantifies one the sentence does not say and no span of time,
    where the sentence quantifies a word of its own ("Every September the airport holds
    an open day" against "opens ... every day except 25 December": the claim's "every"
    is of Septembers, the sentence's exception of days). "Any replica" against "the
    primary only" is limited: the sentence's "only" quantifies nothing."""
    mine = [w for m in _QUANTIFIED.finditer(claim) if (w := terms_of(m.group(1)))]
    theirs = {t for m in _QUANTIFIED.finditer(sentence) for t in terms_of(m.group(1))}
    return bool(mine) and bool(theirs) and all(
        not (w & sentence_terms) and not (w & _SPANS) and not (w & theirs) for w in mine)


_KEEPING_WORDS = frozenset(word for pair in KEEPING for word in pair)


def word_and_next(text: str, word: str) -> str:
    """``word`` as ``text`` writes it, a verb of keeping or taking away with up to two
    words after it in its clause, its object ("strips all metadata"): what a note shows
    of the source's opposite."""
    if word.lower() not in _KEEPING_WORDS:
        return word
    match = re.search(r"\b" + re.escape(word) + r"\b(?:[ \t]+[\w-]+){0,2}", text, re.IGNORECASE)
    return match.group(0) if match is not None else word


_WHICH_VALUE = re.compile(r"^which\s+(?=(?:is|are|was|were)\s+(?:now\s+|still\s+|only\s+)?"
                          r"(?:an?\s+|\d))", re.IGNORECASE)
_TAIL_WORDS = re.compile(r"((?:[\w'-]+\s+){0,2}[\w'-]+)\W*$")


def with_antecedents(parts: list[str]) -> list[str]:
    """``parts`` with a clause of a value, "which is a minute unless you change it",
    saying what it is the value of: the last words of the part before ("the per-file
    timeout, which is a minute" is "per-file timeout is a minute"), so that it is judged
    as the fact it states."""
    done = list(parts)
    for index in range(1, len(done)):
        which = _WHICH_VALUE.match(done[index])
        tail = _TAIL_WORDS.search(parts[index - 1])
        if which is not None and tail is not None:
            done[index] = f"{tail.group(1)} {done[index][which.end():]}"
    return done
