"""The passages' sentences, and how much of a claim each says: the pool a claim's best
sentence is chosen from.

A passage is cut into sentences (a list's items, a table's rows and a heading line
each one of their own); each word weighs by how rare it is among all the sentences (a
word every passage has - the product's name - tells little; "refund" tells much), and
a sentence scores by the weighted share of the claim's words it says (or says the
opposite of), its values counting as its most particular word.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from deepcite.factcheck.agreement import agrees, same_slot
from deepcite.factcheck.negation import OPPOSITES
from deepcite.factcheck.ranges import shared_units
from deepcite.factcheck.table_rows import header_of, row_values
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.units import FREE
from deepcite.factcheck.values import Value, extract_values
from deepcite.text.sentences import sentence_spans
from deepcite.text.stopwords import STOPWORDS

__all__ = ["CONTEXT_WEIGHT", "OPPOSITE_TERMS", "Pool", "Sentence", "line_mate", "passage_spans",
           "sentence_values", "share_said", "terms_said", "values_of"]

#: A name the sentence does not repeat counts this much when its passage says it.
CONTEXT_WEIGHT = 0.5
_WORDS_ONLY = re.compile(r"[A-Za-z\u00C0-\u024F]+")
_PRONOUN = re.compile(r"(?:it|its|they|their|this|these|he|she|his|her|there)\b",
                      re.IGNORECASE)
_RULE_LINE = re.compile(r"[=\-~*_+]{3,}")
# What opens a line of a list, a quote or a heading: not part of a quote.
_LINE_MARK = re.compile(r"(?:[-*+\u2022>]|\d{1,3}[.)]|#{1,6})[ \t]+")


# A configuration key or identifier of words joined by "_" (`lock_wait`, `keep_daily`).
_IDENTIFIER = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")


def _sentence_terms(text: str) -> frozenset[str]:
    """A sentence's words, and those of each identifier it writes: a draft names a
    setting by what it is of ("waits for the lock" of `lock_wait`, "dailies" of
    `keep_daily`). Only a sentence's: a claim writing the identifier itself shares it
    whole, not three times over."""
    terms = terms_of(text)
    parts = [part for name in _IDENTIFIER.findall(text) for part in name.split("_")]
    return terms | terms_of(" ".join(parts)) if parts else terms


_HEADING = re.compile(r"^#{1,6}[ \t]+(.+)$", re.MULTILINE)


def _row_context(text: str, start: int, header: str) -> frozenset[str]:
    """The words a table's row says by its place: its table's header row and the
    heading over the table ("| `time` | `"02:30"` |" under "## [schedule]" and "| Key
    | Default |" is the schedule's default time). None for any other sentence."""
    if not header:
        return frozenset()
    headings = _HEADING.findall(text, 0, start)
    return terms_of(header) | (terms_of(headings[-1]) if headings else frozenset())


@dataclass(frozen=True)
class Sentence:
    """Sentence ``index`` of passage ``passage``, at ``start``..``end`` of its text, with
    its content words."""

    passage: int
    index: int
    start: int
    end: int
    text: str
    terms: frozenset[str]
    #: the header row of the table the sentence is a row of, else ""
    header: str = ""


@dataclass
class Pool:
    """The passages' sentences and the weight of each word among them."""

    texts: list[str]
    sentences: list[Sentence] = field(default_factory=list)
    by_passage: dict[int, list[Sentence]] = field(default_factory=dict)
    context: list[frozenset[str]] = field(default_factory=list)
    #: every word any passage says (the union of ``context``)
    said: frozenset[str] = frozenset()
    weights: dict[str, float] = field(default_factory=dict)
    total: int = 0

    def __post_init__(self) -> None:
        counts: dict[str, int] = {}
        for number, text in enumerate(self.texts):
            spans = passage_spans(text)
            headers = [header_of(text, start) for start, _ in spans]
            mine = [Sentence(number, index, start, end, text[start:end],
                             _sentence_terms(text[start:end])
                             | _row_context(text, start, header), header)
                    for index, ((start, end), header) in enumerate(zip(spans, headers,
                                                                       strict=True))]
            self.by_passage[number] = mine
            self.sentences += mine
            self.context.append(terms_of(text))
            for sentence in mine:
                for term in sentence.terms:
                    counts[term] = counts.get(term, 0) + 1
        self.total = len(self.sentences)
        self.said = frozenset().union(*self.context)
        self.weights = {term: self.weight_of(count) for term, count in counts.items()}

    def weight_of(self, count: int) -> float:
        return 1.0 + math.log((self.total + 1) / (count + 1))

    def weight(self, term: str) -> float:
        found = self.weights.get(term)
        return found if found is not None else self.weight_of(0)



@lru_cache(maxsize=512)
def passage_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Sentences of a passage; the items of a list or table, and a heading line, are
    sentences of their own, while prose wrapped over lines stays one sentence."""
    spans: list[tuple[int, int]] = []
    for start, end in sentence_spans(text):
        lines: list[tuple[int, int]] = []  # (start, end) of each line of the sentence
        at = start
        for line in text[start:end].split("\n"):
            lines.append((at, at + len(line)))
            at += len(line) + 1
        pieces: list[list[int]] = []
        for index, (a, b) in enumerate(lines):
            line = text[a:b].strip()
            previous = text[lines[index - 1][0]:lines[index - 1][1]].strip() if index else ""
            # (a title-cased line the next goes on from in lower case is wrapped prose:
            # "MySQL and MariaDB are not" / "supported from version 4.0 onward")
            if not pieces or _LINE_MARK.match(line) or line.startswith("|") \
                    or _RULE_LINE.fullmatch(line) or (
                        _own_line(previous) and not line[:1].islower()):
                pieces.append([a, b])
            else:
                pieces[-1][1] = b
        for a, b in pieces:
            piece = text[a:b]
            stripped = piece.strip()
            mark = _LINE_MARK.match(stripped)
            if mark is not None and mark.end() < len(stripped):
                stripped = stripped[mark.end():]
            if stripped:
                lead = a + len(piece.rstrip()) - len(stripped)
                spans.append((lead, lead + len(stripped)))
    return tuple(spans)


def _own_line(line: str) -> bool:
    """Whether a line stands alone: a heading, a table row, a list item, or a title
    (title case, no end), ending the sentence-like piece it is in."""
    if not line:
        return False
    if line.startswith(("#", "|")) or _LINE_MARK.match(line) or _RULE_LINE.fullmatch(line):
        return True
    words = [w for w in _WORDS_ONLY.findall(line) if w.lower() not in STOPWORDS]
    return bool(words) and not line.endswith((".", ",", ";", ":", "-", "(")) \
        and sum(w[0].isupper() for w in words) >= 0.6 * len(words)


def _opposite_terms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for one, two in OPPOSITES:
        for a, b in ((one, two), (two, one)):
            for x in terms_of(a):
                table.setdefault(x, set()).update(terms_of(b))
    return {term: frozenset(others) for term, others in table.items()}


# A sentence saying "disabled" is about what a claim saying "enabled" is about.
OPPOSITE_TERMS = _opposite_terms()


#: A word of the claim this long that begins another of the sentence, or is begun by
#: it, at most :data:`DERIVED_EXTRA` letters apart, is the same word derived
#: ("photograph" and "photography", "deliver" and "delivery").
DERIVED_MIN = 6
DERIVED_EXTRA = 3


def _derived(one: str, other: str) -> bool:
    short, long = sorted((one, other), key=len)
    return len(short) >= DERIVED_MIN and len(long) - len(short) <= DERIVED_EXTRA \
        and long.startswith(short)


def terms_said(claim: frozenset[str], sentence: frozenset[str]) -> frozenset[str]:
    """The claim's words the sentence says (or a word derived from them), or says the
    opposite of."""
    return (claim & sentence) | frozenset(
        term for term in claim - sentence if OPPOSITE_TERMS.get(term, frozenset()) & sentence
        or any(_derived(term, theirs) for theirs in sentence - claim))


# The words of a bound ("around", "at least", "or older"): how exact a value is.
_BOUND_TERMS = terms_of("about around roughly approximately nearly almost circa estimated "
                        "least most more less fewer over under above below maximum minimum "
                        "older younger upwards")


def share_said(claim: frozenset[str], names: frozenset[str], sentence: Sentence,
           pool: Pool, values: Sequence[Value] = ()) -> float:
    total = sum(pool.weight(term) for term in claim)
    if not total:
        return 0.0
    said_terms = terms_said(claim, sentence.terms)
    said = sum(pool.weight(term) for term in said_terms)
    if values:
        # a value is the claim's most particular word: stated, it counts as one; of the
        # same slot but another, it shows the sentence is on the subject, half as much
        weight = max(pool.weight(term) for term in claim)
        theirs = sentence_values(sentence, claim)
        for value in values:
            if value.unit == FREE:
                continue  # "free" is one of the claim's words already, and a common one
            total += weight
            credited: frozenset[str] = frozenset()
            if any(agrees(value, other) for other in theirs):
                said += weight
                # and the noun it counts, said in the sentence's own ("420 helpers"
                # stated as "about 420 volunteers")
                credited = (terms_of(value.text) & claim) - said_terms
            elif any(same_slot(value, other) for other in theirs):
                said += weight / 2
                # (and the words of a time of day, which the sentence's time says its own
                # way: "quarter past seven" against "06:45"; not a bound's, the claim's
                # own, nor a measure's unit - "20 minutes" against another thing's "two
                # hours" is another subject)
                # (or of a date, which the sentence's date says: "in July" against "in
                # August")
                if value.dimension == "clock" or value.kind == "date":
                    credited = (terms_of(value.text) & claim) - said_terms - _BOUND_TERMS
            else:
                continue
            if value.bound:
                # its bound is part of it, said in the sentence's own words ("around 420"
                # as "about 420", "16 or older" as "at least 18 years old")
                credited |= (claim & _BOUND_TERMS) - said_terms
            said += sum(pool.weight(term) for term in credited)
    context = pool.context[sentence.passage]
    # what the sentence leaves to a pronoun ("It has 412 members") its passage names
    borrowed = (claim - said_terms) if _PRONOUN.match(sentence.text) else names - said_terms
    said += CONTEXT_WEIGHT * sum(pool.weight(term) for term in borrowed & context)
    return said / total


def line_mate(sentence: Sentence, pool: Pool) -> Sentence | None:
    """``sentence`` joined with the one after it on the same line (a list item or a
    paragraph of two sentences), or with the one before when none follows; None when
    it stands alone on its line."""
    text = pool.texts[sentence.passage]
    mine = pool.by_passage[sentence.passage]
    for other in (mine[sentence.index + 1] if sentence.index + 1 < len(mine) else None,
                  mine[sentence.index - 1] if sentence.index else None):
        if other is None:
            continue
        first, second = sorted((sentence, other), key=lambda s: s.start)
        if "\n" not in text[first.end:second.start]:
            return Sentence(sentence.passage, sentence.index, first.start, second.end,
                            text[first.start:second.end], first.terms | second.terms)
    return None


def sentence_values(sentence: Sentence, claim_terms: frozenset[str]) -> tuple[Value, ...]:
    """The values ``sentence`` states, as a claim of ``claim_terms`` reads them: a table
    row's with its columns' headers, of the columns the claim names
    (:func:`~deepcite.factcheck.table_rows.row_values`)."""
    if sentence.header:
        return row_values(sentence.text, sentence.header, claim_terms)
    return values_of(sentence.text)


def values_of(text: str) -> tuple[Value, ...]:
    """The values ``text`` states (cached: a sentence is read once per check)."""
    return _values_cached(text)


@lru_cache(maxsize=4096)
def _values_cached(text: str) -> tuple[Value, ...]:
    return tuple(shared_units(text, extract_values(text), extract_values))
