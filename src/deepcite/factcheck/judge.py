"""One claim's verdict from the passages found for it, without a model.

1. **The same subject.** Every sentence of every passage is scored by the claim's
   content words it says, each weighted by how rare it is among the passages' sentences
   (a word every passage has - the product's name - tells little; "refund" tells
   much). A name the sentence leaves to a pronoun counts half when its passage names it.
   The best sentence below :data:`FOUND` means nothing states the subject: ``not_found``.
2. **The same values.** The claim's values (:mod:`deepcite.factcheck.values`) are
   looked up in the best sentence, its neighbours and the other sentences on the
   subject: a value one of them states agrees; a different value of the same slot in a
   sentence on the subject contradicts ("draft: 30 days; source [2]: 90 days"). Names
   the passage lacks, where its sentence names someone else, contradict too; a negation
   or an opposite ("enabled"/"disabled") in the clause that says the claim's words is
   the source stating the opposite.
3. **The verdict.** Any contradiction: ``contradicted``. Every value and name stated,
   and the sentence saying :data:`SUPPORTED` of the claim's words: ``supported``.
   Otherwise part of it: ``partly_supported``.

The quotes are sentences of the passages, with their offsets in the passage text, so
they are verbatim by construction.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from deepcite.factcheck.claims import clean_claim
from deepcite.factcheck.values import (
    ABBREVIATIONS,
    OPPOSITES,
    Value,
    agrees,
    capitalised_inside,
    denied,
    extract_values,
    name_groups,
    opposites,
    same_slot,
)
from deepcite.text.cjk_terms import cjk_terms
from deepcite.text.sentences import sentence_spans
from deepcite.text.stem import singular, stem
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD
from deepcite.types import SearchResult, Verdict

__all__ = ["FOUND", "SUPPORTED", "Conflict", "Judgement", "Quote", "judge", "terms_of"]

#: The share of the claim's (weighted) words the best sentence must say for the
#: sources to state the claim's subject at all.
FOUND = 0.5
#: ... and for a claim whose values all agree to count as supported.
SUPPORTED = 0.68
#: ... or, when every value the claim states (at least one) agrees, this share.
SUPPORTED_WITH_VALUES = 0.6
#: A name the sentence does not repeat counts this much when its passage says it.
CONTEXT_WEIGHT = 0.5
#: A value of another sentence this close to the best one's score contradicts the claim.
NEAR_SCORE = 0.15
#: A sentence of only the claim's words denying it contradicts it from this share on
#: (among the best few).
DENIAL_FLOOR = 0.3
DENIAL_CANDIDATES = 5
#: ... and only when that sentence says this share of the claim's words itself.
NEAR_FLOOR = 0.3
#: Sentences this close to the best are ranked by the facts they state of the claim's kinds.
SLOT_BONUS = 0.1
#: How many content words each side of a name tell its place.
NAME_REACH = 3
#: How far after an amount the period it is per may stand ("4 euros a month").
PERIOD_REACH = 4
#: The most quotes kept as a claim's evidence.
MAX_QUOTES = 3
_CLAUSE = re.compile(r"[,;:\u2013\u2014]\s+|\s+(?:and|but|while|whereas|although)\s+|[，；、]")
_LEADING_JOIN = re.compile(r"^(?:and|but|so|or|while|whereas|although)\s+", re.IGNORECASE)
_WORDS_ONLY = re.compile(r"[A-Za-z\u00C0-\u024F]+")
# How the names of roles and trades end: physicist, librarian, teacher, editor, tenant.
_ROLE = re.compile(r"(?:ist|ian|[^e]er|or|ant|eer|ess)$")
_NOT_ROLES = frozenset("""exist consist insist resist persist assist list twist other
    under over after never ever however whether either neither rather further water
    paper number order major minor error floor door for nor or center centre letter
    matter better later power user member server buffer filter folder cluster
    register header footer""".split())  # noqa: SIM905
_WORDS_AND_NUMBERS = re.compile(r"[A-Za-z\u00C0-\u024F]+|\d[\d.,]*%?")
_PRONOUN = re.compile(r"(?:it|its|they|their|this|these|he|she|his|her|there)\b",
                      re.IGNORECASE)
_RULE_LINE = re.compile(r"[=\-~*_+]{3,}")
# What opens a line of a list, a quote or a heading: not part of a quote.
_LINE_MARK = re.compile(r"(?:[-*+\u2022>]|\d{1,3}[.)]|#{1,6})[ \t]+")
_NUMBER_WORDS = frozenset("""zero one two three four five six seven eight nine ten eleven
    twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty
    fifty sixty seventy eighty ninety hundred dozen""".split())  # noqa: SIM905


# Words a draft says for a source's (stems, as :func:`~deepcite.text.stem.stem` gives
# them): "started by" is "founded by", "bought" is "acquired".
# Irregular verb forms, read as their base form before stemming ("paid" is "pay").
_IRREGULAR = {form: base for base, forms in (
    ("pay", "paid"), ("win", "won"), ("grow", "grew grown"), ("sell", "sold"),
    ("buy", "bought"), ("build", "built"), ("hold", "held"), ("lead", "led"),
    ("run", "ran"), ("begin", "began begun"), ("write", "wrote written"),
    ("spend", "spent"), ("send", "sent"), ("keep", "kept"), ("leave", "left"),
    ("meet", "met"), ("tell", "told"), ("rise", "rose risen"), ("fall", "fell fallen"),
    ("take", "took taken"), ("give", "gave given"), ("choose", "chose chosen"),
    ("teach", "taught"), ("bring", "brought"), ("think", "thought"),
    ("speak", "spoke spoken"), ("drive", "drove driven"), ("fly", "flew flown"),
    ("draw", "drew drawn"), ("lose", "lost"), ("shut", "shut"), ("cost", "cost"),
) for form in forms.split()}


def _norm(term: str) -> str:
    """A stem a little further: "operate" and "operat", "swimm" and "swim", "rowing"
    and "row" are one word (the shared stemmer leaves them apart)."""
    if len(term) > 5 and term.endswith("ing"):
        term = term[:-3]
    elif len(term) > 6 and term.endswith(("able", "ible")):
        term = term[:-4]
    elif len(term) > 4 and term.endswith("ed") and not term.endswith("eed"):
        term = term[:-2]
    if len(term) > 3 and term.endswith("e"):
        term = term[:-1]
    if len(term) > 3 and term[-1] == term[-2] and term[-1] not in "lsz":
        term = term[:-1]
    return term


_SYNONYMS = {_norm(word): _norm(group[0]) for group in (
    ("found", "start", "establish", "creat", "set"),
    ("releas", "launch", "ship", "shipp", "publish"),
    ("buy", "bought", "acquir", "purchas"),
    ("allow", "permitt", "permit", "let", "welcom"),
    ("attend", "came", "come", "visit"),
    ("peopl", "person", "visitor", "attende", "guest", "spectator"),
    ("standard", "regular", "normal", "usual"),
    ("ticket", "admission", "admiss", "entry", "entri", "entrance", "fare"),
    ("forbid", "forbidden", "prohibit", "bann", "ban"),
    ("price", "pric", "cost", "costs", "charg", "fee"),
    ("late", "later"),
    ("need", "requir"),
    ("depend", "dependency", "dependenc"),
    ("base", "bas", "headquarter", "headquart", "locat", "seat"),
    ("lead", "led", "head", "manag"),
    ("big", "larg", "larger", "bigger"),
    ("small", "smaller", "littl"),
    ("fast", "quick", "faster", "quicker"),
    ("keep", "kept", "retain", "stor", "store", "hold", "held"),
    ("support", "run", "runs", "work", "works"),
    ("available", "exist", "offer", "provid"),
    ("evict", "remov", "delet", "drop", "dropp"),
    ("written", "wrote", "writ", "develop", "built", "build", "author"),
) for word in group}
# Verbs that say nothing of what is done ("uses" - "use" is a stop word already).
_EMPTY = frozenset({"uses", "make", "makes", "made", "get", "gets", "got", "take", "takes",
                    # quantities that name no amount
                    "several", "many", "various", "numerous", "any", "few", "lot", "lots",
                    "much", "certain"})


def terms_of(text: str) -> frozenset[str]:
    """The content words of ``text`` (stemmed, no stop words, numbers or number words)
    and the meaningful pairs of its CJK runs: what a claim and a sentence share."""
    return _terms(text)


@lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    words = WORD.findall(text)
    if any(word.lower() in ABBREVIATIONS for word in words):
        words = [part for word in words
                 for part in ABBREVIATIONS.get(word.lower(), word).split()]
    found = {_SYNONYMS.get(term, term) for term in (
        _norm(stem(singular(_IRREGULAR.get(word.lower(), word.lower())))) for word in words
        if word.lower() not in STOPWORDS and not word[0].isdigit()
        and word.lower() not in _NUMBER_WORDS and len(word) > 1
        and word.lower() not in _EMPTY)}
    found.update(cjk_terms(text))
    return frozenset(found)


@dataclass(frozen=True)
class Quote:
    """A sentence of passage ``passage`` (an index into the passages judged), at
    ``start``..``end`` of that passage's text."""

    passage: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Conflict:
    """What the claim says (``draft``) against what quote ``quote`` says (``source``)."""

    draft: str
    source: str
    quote: int


@dataclass(frozen=True)
class Judgement:
    """A claim's verdict and why: the quotes that decided it (by index into
    ``quotes``), the conflicts, what was stated and what was not."""

    verdict: Verdict
    score: float
    quotes: tuple[Quote, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    stated: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Sentence:
    passage: int
    index: int
    start: int
    end: int
    text: str
    terms: frozenset[str]


@dataclass
class _Pool:
    """The passages' sentences and the weight of each word among them."""

    texts: list[str]
    sentences: list[_Sentence] = field(default_factory=list)
    by_passage: dict[int, list[_Sentence]] = field(default_factory=dict)
    context: list[frozenset[str]] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=dict)
    total: int = 0

    def __post_init__(self) -> None:
        counts: dict[str, int] = {}
        for number, text in enumerate(self.texts):
            spans = _spans(text)
            mine = [_Sentence(number, index, start, end, text[start:end],
                              _terms(text[start:end]))
                    for index, (start, end) in enumerate(spans)]
            self.by_passage[number] = mine
            self.sentences += mine
            self.context.append(_terms(text))
            for sentence in mine:
                for term in sentence.terms:
                    counts[term] = counts.get(term, 0) + 1
        self.total = len(self.sentences)
        self.weights = {term: self.weight_of(count) for term, count in counts.items()}

    def weight_of(self, count: int) -> float:
        return 1.0 + math.log((self.total + 1) / (count + 1))

    def weight(self, term: str) -> float:
        found = self.weights.get(term)
        return found if found is not None else self.weight_of(0)


@lru_cache(maxsize=512)
def _spans(text: str) -> tuple[tuple[int, int], ...]:
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
            if not pieces or _LINE_MARK.match(line) or line.startswith("|") \
                    or _RULE_LINE.fullmatch(line) or _own_line(previous):
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
            for x in _terms(a):
                table.setdefault(x, set()).update(_terms(b))
    return {term: frozenset(others) for term, others in table.items()}


# A sentence saying "disabled" is about what a claim saying "enabled" is about.
_OPPOSITE_TERMS = _opposite_terms()


def _said(claim: frozenset[str], sentence: frozenset[str]) -> frozenset[str]:
    """The claim's words the sentence says, or says the opposite of."""
    return (claim & sentence) | frozenset(
        term for term in claim - sentence if _OPPOSITE_TERMS.get(term, frozenset()) & sentence)


def _score(claim: frozenset[str], names: frozenset[str], sentence: _Sentence,
           pool: _Pool, values: Sequence[Value] = ()) -> float:
    total = sum(pool.weight(term) for term in claim)
    if not total:
        return 0.0
    said_terms = _said(claim, sentence.terms)
    said = sum(pool.weight(term) for term in said_terms)
    if values:
        # a value is the claim's most particular word: stated, it counts as one; of the
        # same slot but another, it shows the sentence is on the subject, half as much
        weight = max(pool.weight(term) for term in claim)
        theirs = _value_cache(sentence.text)
        for value in values:
            total += weight
            if any(agrees(value, other) for other in theirs):
                said += weight
            elif any(same_slot(value, other) for other in theirs):
                said += weight / 2
    context = pool.context[sentence.passage]
    # what the sentence leaves to a pronoun ("It has 412 members") its passage names
    borrowed = (claim - said_terms) if _PRONOUN.match(sentence.text) else names - said_terms
    said += CONTEXT_WEIGHT * sum(pool.weight(term) for term in borrowed & context)
    return said / total


def _placed_like(claim: str, at: int, sentence: str, starts: Sequence[int]) -> int:
    """Which of the places ``starts`` of ``sentence`` has the words before it most like
    the claim's words before ``at`` (the first, on a tie): "3 hours" of "lasts 120
    minutes and recharges in 3 hours" for the claim "recharges in 4 hours"."""
    mine = _terms(claim[max(0, at - 48):at])
    scores = [len(mine & _terms(sentence[max(0, start - 48):start])) for start in starts]
    return scores.index(max(scores))


def _name_in_place(claim: str, start: int, end: int, sentence: str,
                   names: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    """Of the sentence's ``names``, the one standing where the claim's name at
    ``start``..``end`` stands - among the same words just before or after it, the
    nearest counting most - or None."""
    before = _near_terms(claim[:start], backwards=True)
    after = _near_terms(claim[end:])
    best, best_score = None, 0.0
    for a, b in names:
        theirs_before = _near_terms(sentence[:a], backwards=True)
        theirs_after = _near_terms(sentence[b:])
        score = sum(1 / (1 + i) for i, t in enumerate(before) if t in theirs_before) \
            + sum(1 / (1 + i) for i, t in enumerate(after) if t in theirs_after)
        if score > best_score:
            best, best_score = (a, b), score
    return best


def _near_terms(text: str, *, backwards: bool = False) -> list[str]:
    """The first :data:`NAME_REACH` content words of ``text`` (its last ones, nearest
    first, ``backwards``), as terms."""
    words = _WORDS_ONLY.findall(text)
    if backwards:
        words.reverse()
    found: list[str] = []
    for word in words:
        found += sorted(_terms(word))
        if len(found) >= NAME_REACH:
            break
    return found[:NAME_REACH]


def _nearest(claim_text: str, value: Value, sentence: _Sentence,
             candidates: list[Value]) -> Value:
    """Of a sentence's ``candidates`` for ``value``'s slot, the one placed most like it;
    an amount per period goes with the claim's period ("an annual plan costs 48
    euros" against "4 euros a month or 36 euros a year" is 36 euros)."""
    mine = [v.amount for v in _value_cache(claim_text) if v.dimension == "period"]
    if mine and value.dimension != "period":
        theirs = _value_cache(sentence.text)
        same = [c for c in candidates if any(
            p.dimension == "period" and p.amount == mine[0]
            and 0 <= p.start - c.end <= PERIOD_REACH for p in theirs)]
        candidates = same or candidates
    return candidates[_placed_like(claim_text, value.start, sentence.text,
                                   [c.start for c in candidates])]


def _opposed(claim: str, sentence: str, claim_terms: frozenset[str]) -> tuple[str, str] | None:
    """A pair of opposites the claim and a clause of the sentence on the claim's words
    take sides on ("on"/"off" of "TLS is supported but off by default"), or None."""
    claim_words = [w.lower() for w in _WORDS_AND_NUMBERS.findall(claim)]
    claim_values = _value_cache(claim)
    for piece in _CLAUSE.split(sentence):
        # a clause on the claim's words, or stating one of its values ("8% more")
        if piece and (_terms(piece) & claim_terms or any(
                agrees(mine, theirs) for mine in claim_values
                for theirs in _value_cache(piece))):
            words = [w.lower() for w in _WORDS_AND_NUMBERS.findall(piece)]
            pair = opposites(set(claim_words), set(words))
            # the two words must qualify the same thing ("on by default" and "off by
            # default"), not merely share a sentence ("at most" ... "least recently")
            if pair is not None and _same_neighbour(claim_words, pair[0], words, pair[1]) \
                    and not _complementary(claim, piece) \
                    and _denies(claim, pair[0]) == _denies(piece, pair[1]):
                # "not allowed" is "banned": an opposite under a negation agrees
                return pair
    return None


def _denies(text: str, word: str) -> bool:
    """Whether a negation of ``text`` governs ``word`` ("are not allowed")."""
    return any(word in denial.lower().split() for denial in denied(text))


def _complementary(claim: str, piece: str) -> bool:
    """Whether the claim and the clause bound one value from opposite sides ("up to 25
    MB are accepted", "larger than 25 MB are rejected"): their opposites then agree."""
    bounds = {"min": "max", "max": "min"}
    return any(mine.bound in bounds and other.bound == bounds[mine.bound]
               and mine.amount is not None and other.amount is not None
               and math.isclose(mine.amount, other.amount, rel_tol=1e-6)
               for mine in _value_cache(claim) for other in _value_cache(piece))


def _neighbours(words: list[str], word: str) -> tuple[str | None, str | None]:
    """The content words (or numbers) nearest before and after ``word``, or None."""
    index = words.index(word)

    def key(token: str) -> str | None:
        if token[:1].isdigit():
            return token.rstrip(".,")
        return next(iter(sorted(_terms(token))), None)

    before = next((k for w in reversed(words[:index]) if (k := key(w)) is not None), None)
    after = next((k for w in words[index + 1:] if (k := key(w)) is not None), None)
    return before, after


def _same_neighbour(mine: list[str], one: str, theirs: list[str], other: str) -> bool:
    a, b = _neighbours(mine, one), _neighbours(theirs, other)
    return (a[1] is not None and a[1] == b[1]) or (a[0] is not None and a[0] == b[0])


def _values(text: str) -> tuple[Value, ...]:
    return tuple(extract_values(text))


_value_cache = lru_cache(maxsize=4096)(_values)


_PARTS = re.compile(r",\s+(?:and\s+|but\s+|while\s+|whereas\s+)?|\s+(?:and|but|while|whereas)\s+"
                    r"|;\s*|\uff0c|\uff1b")
_LOWER_WORD = re.compile(r"\b[a-z][a-z-]{2,}\b")


def _claim_parts(text: str) -> list[str]:
    """The clauses of a claim that each state something: cut at commas and "and",
    "but" ..., where the part after the cut has words of its own beyond names (so
    "by Ilona Varga and Jonas Berg" stays whole)."""
    parts: list[str] = []
    at = 0
    for match in _PARTS.finditer(text):
        left, right = text[at:match.start()], text[match.end():]
        if len(WORD.findall(left)) >= 3 and len(WORD.findall(right)) >= 3 and any(
                word not in STOPWORDS for word in _LOWER_WORD.findall(right)):
            parts.append(left)
            at = match.end()
    parts.append(text[at:])
    return [part.strip() for part in parts if _terms(part)]


def judge(claim: str, passages: Sequence[SearchResult], *,
          names_known: frozenset[str] = frozenset()) -> Judgement:
    """The verdict on ``claim`` from ``passages`` (see the module docs).

    ``names_known``: lower-cased words known to be names (capitalised mid-sentence in
    the checked document), so that one opening a sentence is read as a name too. A
    claim of several clauses the whole of which is not settled is judged clause by
    clause: one clause stated and another not is ``partly_supported``.
    """
    text = clean_claim(claim)
    pool = _Pool([result.full_text or result.snippet for result in passages])
    known = names_known | capitalised_inside(pool.texts)
    whole = _judge_text(text, pool, known)
    if whole.verdict in ("supported", "contradicted"):
        return whole
    parts = _claim_parts(text)
    if len(parts) < 2:
        return whole
    judged = [_judge_text(part, pool, known) for part in parts]
    for one in judged:
        # a clause alone may find another sentence; a value the whole claim found
        # stated stays stated ("School starts at 8:45" alone meets the breakfast club)
        kept = tuple(c for c in one.conflicts if c.draft not in whole.stated)
        if one.verdict == "contradicted" and kept:
            return dataclasses.replace(one, conflicts=kept)
    stated = [one for one in judged if one.verdict != "not_found"]
    if not stated:
        return whole
    quotes = tuple(dict.fromkeys(q for one in stated for q in one.quotes))[:MAX_QUOTES]
    said = tuple(dict.fromkeys(v for one in stated for v in one.stated))
    missing = tuple(dict.fromkeys(
        [v for one in judged for v in one.missing]
        + [part for part, one in zip(parts, judged, strict=True) if one.verdict == "not_found"]))
    verdict: Verdict = "supported" if not missing and all(
        one.verdict == "supported" for one in judged) else "partly_supported"
    return Judgement(verdict, max(one.score for one in judged), quotes, (), said, missing)


def _judge_text(text: str, pool: _Pool, known: frozenset[str] | set[str]) -> Judgement:
    """The verdict on one claim or clause (already cleaned of markup)."""
    claim_terms = _terms(text)
    groups = [text[a:b] for a, b in name_groups(text, known)]
    name_terms = frozenset(t for group in groups for t in _terms(group))
    if not pool.sentences or not claim_terms:
        return Judgement("not_found", 0.0)

    # a name no passage has is either wrong or out of the sources' reach: the subject
    # is what the rest of the claim says
    everywhere = frozenset(term for terms in pool.context for term in terms)
    unknown = frozenset(t for group in groups if not _terms(group) & everywhere
                        for t in _terms(group))
    subject = claim_terms - unknown if len(claim_terms - unknown) >= 2 else claim_terms
    values = _value_cache(text)
    scored = sorted(((_score(subject, name_terms - unknown, s, pool, values), s)
                     for s in pool.sentences),
                    key=lambda pair: (-pair[0], len(pair[1].text)))
    if scored[0][0] < FOUND:
        return _denied_outright(text, claim_terms, scored, known) or Judgement(
            "not_found", scored[0][0])
    # of the sentences about as close, the one stating facts of the claim's kinds
    # (a number of its unit, another name where it names one no passage has)
    close = [(score + SLOT_BONUS * _slots(values, bool(unknown), s, known, claim_terms), s)
             for score, s in scored if score >= scored[0][0] - SLOT_BONUS and score >= FOUND]
    best = max(close, key=lambda pair: pair[0])[1]
    best_score = next(score for score, s in scored if s is best)
    scored = [(score, s) for score, s in scored if s is best] + [
        (score, s) for score, s in scored if s is not best]
    near = [s for s in pool.by_passage[best.passage] if abs(s.index - best.index) == 1]
    on_subject = [best, *near, *(s for score, s in scored[1:] if score >= FOUND
                                 and s not in near)]
    quotes: list[Quote] = []

    def quote_of(sentence: _Sentence) -> int:
        quote = _quote(sentence)
        if quote not in quotes:
            quotes.append(quote)
        return quotes.index(quote)

    conflicts: list[Conflict] = []
    stated: list[str] = []
    missing: list[str] = []
    # a value is looked up in the best sentence first: what it says decides; then its
    # neighbours and the sentences nearly as close to the claim; then the others
    own = {id(s): score for score, s in scored}
    close_by = [s for s in on_subject if s is best or s in near
                or own[id(s)] >= best_score - NEAR_SCORE]
    for value in values:
        decided = None
        for sentences in ([best], close_by, on_subject):
            decided = _decide(value, text, sentences, values)
            if decided is not None:
                break
        if decided is None:
            missing.append(value.text)
        elif decided[1] is None:
            stated.append(value.text)
            quote_of(decided[0])
        elif decided[0] is best or (any(decided[0] is s for s in close_by)
                                    and own[id(decided[0])] >= NEAR_FLOOR):
            conflicts.append(Conflict(value.text, decided[1].text, quote_of(decided[0])))
        else:
            missing.append(value.text)
    passage_terms = pool.context[best.passage]
    best_names = name_groups(best.text, known)
    for start, end in name_groups(text, known):
        group = text[start:end]
        words = _terms(group)
        if not words or words <= best.terms:
            if words:
                stated.append(group)
            continue
        # another name where the claim's stands, and the claim's named nowhere in the
        # passages: a different name (a name found elsewhere is only not stated here;
        # one the passage has, with no other name in its place, is the sentence's "it")
        others = [(a, b) for a, b in best_names
                  if _terms(best.text[a:b]) - claim_terms]
        placed = _name_in_place(text, start, end, best.text, others)
        if placed is None and words <= passage_terms:
            stated.append(group)
        elif placed is not None and words - everywhere:
            # "Lund University" where the sentence says "Uppsala University": the
            # name's own word is in no passage
            conflicts.append(Conflict(group, best.text[placed[0]:placed[1]], quote_of(best)))
        else:
            missing.append(group)
    if not conflicts:
        role = _other_role(text, best.text, best.terms)
        if role is not None:
            conflicts.append(Conflict(role[0], role[1], quote_of(best)))
    denial = _denial(text, best.text, claim_terms & best.terms)
    if denial is not None:
        # the sentence on the subject denies it: what other sentences say of its values
        # does not matter ("The men's team has never won it")
        conflicts = [c for c in conflicts if quotes[c.quote] == _quote(best)]
        conflicts.append(Conflict(denial[0], denial[1], quote_of(best)))
    if not conflicts:
        pair = _opposed(text, best.text, claim_terms)
        if pair is not None:
            conflicts.append(Conflict(pair[0], pair[1], quote_of(best)))
    if conflicts:
        return Judgement("contradicted", best_score, tuple(quotes), tuple(conflicts),
                         tuple(stated), tuple(missing))
    quotes.insert(0, quotes.pop(quote_of(best)))
    if values and not any(v.text in stated for v in values) \
            and best_score < SUPPORTED_WITH_VALUES:
        # none of the claim's values stated, the subject only loosely: nothing found
        return Judgement("not_found", best_score)
    # the share of the claim's words alone (its values' agreement aside) decides how
    # much of the claim beyond its values the sentence says
    # (the words of its values - "an hour" against "55 minutes" - are the values')
    value_words = frozenset(t for v in values for t in _terms(v.text)) - best.terms
    words = subject - value_words if len(subject - value_words) >= 1 else subject
    words_score = _score(words, name_terms - unknown, best, pool)
    enough = SUPPORTED if not values else SUPPORTED_WITH_VALUES if not all(
        v.unit or v.kind in ("year", "date", "version", "money", "percent") for v in values
    ) else FOUND
    # two or more of the claim's values, all in the one sentence, say it whatever
    # words carry them ("starts at 8:45 and finishes at 15:15", "runs from 8:45 to
    # 15:15")
    best_values = _value_cache(best.text)
    facts = [v for v in values if v.dimension != "period"]  # "a month" only qualifies
    all_in_best = len(facts) >= 2 and all(
        any(agrees(v, other) for other in best_values) for v in values)
    verdict: Verdict = "supported" if not missing and (
        (best_score >= SUPPORTED and words_score >= FOUND) or words_score >= enough
        or all_in_best) else "partly_supported"
    return Judgement(verdict, best_score, tuple(quotes[:MAX_QUOTES]), (), tuple(stated),
                     tuple(missing))


def _denied_outright(text: str, claim_terms: frozenset[str],
                     scored: Sequence[tuple[float, _Sentence]],
                     known: frozenset[str] | set[str]) -> Judgement | None:
    """A short sentence made only of the claim's words that denies it ("There are no
    snakes on Veldra" against "Veldra has a population of venomous snakes"): said in
    fewer words than the claim, it scores too low to be its subject, yet contradicts
    it."""
    for score, sentence in scored[:DENIAL_CANDIDATES]:
        if score < DENIAL_FLOOR:
            break
        # its own words beyond the claim's may only be names (the subject the claim
        # calls "the app") and one more ("no minimum term")
        extra = sentence.terms - claim_terms
        names = frozenset(t for a, b in name_groups(sentence.text, known)
                          for t in _terms(sentence.text[a:b]))
        shared = sentence.terms & claim_terms
        if len(shared) >= 2 and len(extra - names) <= 1:
            denial = _denial(text, sentence.text, shared)
            if denial is not None:
                quote = _quote(sentence)
                return Judgement("contradicted", score, (quote,),
                                 (Conflict(denial[0], denial[1], 0),))
    return None


def _other_role(claim: str, sentence: str,
                said: frozenset[str]) -> tuple[str, str] | None:
    """A person's role the claim names and the sentence does not, where it names
    another beside the same word ("a Swedish physicist", "a Swedish chemist"): words
    ending as roles do (-ist, -ian, -er, -or ...), so that a paraphrase ("has a fleet
    of", "owns") is never taken for one."""
    mine = [w for w in _WORDS_ONLY.findall(claim)]
    theirs = [w for w in _WORDS_ONLY.findall(sentence)]
    lowered = {w.lower() for w in mine}
    for word in mine:
        if not _ROLE.search(word.lower()) or word.lower() in _NOT_ROLES or _terms(word) & said:
            continue
        around = _neighbours([w.lower() for w in mine], word.lower())
        for other in theirs:
            suffix = _ROLE.search(other.lower())
            if other.lower() in lowered or suffix is None or other.lower() in _NOT_ROLES \
                    or not word.lower().endswith(suffix.group(0)[-2:]) \
                    or other[0].isupper() != word[0].isupper():
                continue  # roles end alike: "physicist" and "chemist", not "reader" and "assist"
            near = _neighbours([w.lower() for w in theirs], other.lower())
            if (around[0] is not None and around[0] == near[0]) or (
                    around[1] is not None and around[1] == near[1]):
                return word, other
    return None


def _quote(sentence: _Sentence) -> Quote:
    return Quote(sentence.passage, sentence.start, sentence.end, sentence.text)


def _decide(value: Value, claim: str, sentences: Sequence[_Sentence],
            claim_values: Sequence[Value] = ()) -> tuple[_Sentence, Value | None] | None:
    """The first of ``sentences`` stating ``value`` (with ``None``), else the first
    stating another value of its slot (with that value) - not one the claim states
    elsewhere ("between 8:00 and 12:00" against "between 8:00 and 10:00" is 10:00) -
    else None."""
    for sentence in sentences:
        if any(agrees(value, other) for other in _value_cache(sentence.text)):
            return sentence, None
    for sentence in sentences:
        slot = [other for other in _value_cache(sentence.text) if same_slot(value, other)
                and not any(agrees(mine, other) for mine in claim_values if mine != value)]
        if slot:
            return sentence, _nearest(claim, value, sentence, slot)
    return None


def _slots(values: Sequence[Value], unknown_name: bool, sentence: _Sentence,
           known: frozenset[str] | set[str], claim_terms: frozenset[str]) -> float:
    """The share of the claim's facts (values, and a name no passage has) for which the
    sentence states a fact of the same slot."""
    theirs = _value_cache(sentence.text)
    wanted = len(values) + unknown_name
    if not wanted:
        return 0.0
    found = sum(any(same_slot(value, other) or agrees(value, other) for other in theirs)
                for value in values)
    if unknown_name and any(not _terms(sentence.text[a:b]) & claim_terms
                            for a, b in name_groups(sentence.text, known)):
        found += 1
    return found / wanted


def _denial(claim: str, sentence: str, shared: frozenset[str]) -> tuple[str, str] | None:
    """The claim's words and the sentence's when one of them denies what both say
    ("uses a camera" against "does not use a camera"), else None."""
    mine = {t for words in denied(claim) for t in _terms(words)} & shared
    theirs = {t for words in denied(sentence) for t in _terms(words)} & shared
    if mine == theirs or (mine and theirs):
        # both deny something, each another thing ("do not need to book" against
        # "required for vehicles but not for foot passengers"): no plain opposite
        return None
    # "not allowed" against "banned": the denial says the other's opposite
    for side, other in ((claim, sentence), (sentence, claim)):
        negated_terms = {t for words in denied(side) for t in _terms(words)}
        if any(_OPPOSITE_TERMS.get(t, frozenset()) & _terms(other) for t in negated_terms):
            return None
    differ = mine ^ theirs
    return _piece_with(claim, differ), _piece_with(sentence, differ)


def _piece_with(text: str, terms: frozenset[str] | set[str]) -> str:
    """The clause of ``text`` that says most of ``terms``."""
    pieces = [p.strip() for p in _CLAUSE.split(text) if p and p.strip()] or [text]
    piece = max(pieces, key=lambda piece: len(_terms(piece) & terms)).rstrip(".\u3002!\uff01")
    return _LEADING_JOIN.sub("", piece)
