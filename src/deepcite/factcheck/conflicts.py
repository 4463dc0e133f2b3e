"""Where a source's sentence and a claim disagree: a value of the same slot that differs
(the one placed most like the claim's), another name or role where the claim's stands,
a negation on one side only, a pair of opposites on the same word.

Each function returns what the claim says and what the sentence says instead, so a
contradiction names both: "draft: 30 days; source [2]: 90 days".
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Sequence

from deepcite.factcheck.agreement import agrees, agrees_as_count, same_slot
from deepcite.factcheck.continued import continued_against
from deepcite.factcheck.named_before import counted_as
from deepcite.factcheck.names import name_groups
from deepcite.factcheck.negation import KEEPING, denied, negated, opposites
from deepcite.factcheck.passages import OPPOSITE_TERMS, Sentence, sentence_values, values_of
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.units import FREE
from deepcite.factcheck.values import Value
from deepcite.factcheck.withdrawn import as_denial, same_numbers

__all__ = ["CLAUSE", "LEADING_JOIN", "WORDS_AND_NUMBERS", "decide", "denial_of",
           "name_in_place", "neighbours", "opposed", "other_role", "same_neighbour", "slots"]

#: How many content words each side of a name tell its place.
NAME_REACH = 3
#: How far after an amount the period it is per may stand ("4 euros a month").
PERIOD_REACH = 4
# Words that introduce the value after them, where a gap between two values has no
# clause break: what stands before the first of them is the earlier value's ("of").
_INTRODUCING = re.compile(r"\b(?:until|till|to|from|in|on|at|by|for|with|after|before|"
                          r"since|during|while|when|than|over|under|between|within)\b",
                          re.IGNORECASE)
# ("get", "take", "make", "have", "is" are no terms at all: terms_of drops them)
_AMOUNT_VERBS = terms_of("pay pays paid paying cost costs costing charge charges charged "
                         "took give gives gave")
CLAUSE = re.compile(r"[,;:\u2013\u2014]\s+|\s+(?:and|but|while|whereas|although)\s+|[，；、]")
LEADING_JOIN = re.compile(r"^(?:and|but|so|or|while|whereas|although)\s+", re.IGNORECASE)
_WORDS_ONLY = re.compile(r"[A-Za-z\u00C0-\u024F]+")
# How the names of roles and trades end: physicist, librarian, teacher, editor, tenant.
_ROLE = re.compile(r"(?:ist|ian|[^e]er|or|ant|eer|ess)$")
_NOT_ROLES = frozenset("""exist consist insist resist persist assist list twist other
    under over after never ever however whether either neither rather further water
    paper number order major minor error floor door for nor or center centre letter
    matter better later power user member server buffer filter folder cluster
    register header footer""".split())  # noqa: SIM905
WORDS_AND_NUMBERS = re.compile(r"[A-Za-z\u00C0-\u024F]+|\d[\d.,]*%?")


def _placed_like(claim: str, at: int, sentence: str, starts: Sequence[int]) -> int:
    """Which of the places ``starts`` of ``sentence`` has the words before it most like
    the claim's words before ``at`` (the first, on a tie): "3 hours" of "lasts 120
    minutes and recharges in 3 hours" for the claim "recharges in 4 hours"."""
    mine = terms_of(claim[max(0, at - 48):at])
    scores = [len(mine & terms_of(sentence[max(0, start - 48):start])) for start in starts]
    return scores.index(max(scores))


def name_in_place(claim: str, start: int, end: int, sentence: str,
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
        found += sorted(terms_of(word))
        if len(found) >= NAME_REACH:
            break
    return found[:NAME_REACH]


def _nearest(claim_text: str, value: Value, sentence: Sentence,
             candidates: list[Value]) -> Value:
    """Of a sentence's ``candidates`` for ``value``'s slot, the one placed most like it;
    an amount per period goes with the claim's period ("an annual plan costs 48
    euros" against "4 euros a month or 36 euros a year" is 36 euros)."""
    mine = [v.amount for v in values_of(claim_text) if v.dimension == "period"]
    if mine and value.dimension != "period":
        theirs = values_of(sentence.text)
        same = [c for c in candidates if any(
            p.dimension == "period" and p.amount == mine[0]
            and 0 <= p.start - c.end <= PERIOD_REACH for p in theirs)]
        candidates = same or candidates
    own = _own_place(claim_text, value, sentence.text, candidates)
    if own is not None:
        return candidates[own]
    return candidates[_placed_like(claim_text, value.start, sentence.text,
                                   [c.start for c in candidates])]


def _own_place(claim: str, value: Value, sentence: str,
               candidates: Sequence[Value]) -> int | None:
    """Which of ``candidates`` the claim's words single out (see :func:`_own_scores`),
    or None when no one of them wins."""
    scores = _own_scores(claim, value, sentence, candidates)
    best = max(scores, default=0)
    return scores.index(best) if best and scores.count(best) == 1 else None


def _own_scores(claim: str, value: Value, sentence: str,
                candidates: Sequence[Value]) -> list[int]:
    """Which of a sentence's values of one slot the claim's words single out, judged by
    the words each value owns: "£7 for adults and £4.50 for students" gives "for
    adults" to £7, "adults pay £7 and students pay £4.50" gives "adults pay" to it.

    A gap between two values cut by a clause break (a comma, "and") gives what comes
    before the break to the value before it and the rest to the next; a gap with no
    break is cut before its first word introducing a value ("on", "until", "to"): "60
    tonnes of coffee a year | on a 15-kilogram roaster", "from 1992 | until her
    retirement in 2016". When
    every value has words after it, those part them ("Tickets cost" before the first is
    the subject all share). Else the words before each do, the first value's only when
    they are parallel to the next one's ("adults pay" and "students pay"): otherwise
    they are the sentence's subject ("Half board costs 62 euros for adults; members of
    the Alpine Club pay 48 euros"), which a claim about either value repeats. Each
    candidate's score is how many of the claim's words (but the verbs of any amount)
    it owns.
    """
    if len(candidates) < 2:
        return [0] * len(candidates)
    order = sorted(range(len(candidates)), key=lambda i: candidates[i].start)
    first, last = candidates[order[0]], candidates[order[-1]]
    clause_start = max((m.end() for m in CLAUSE.finditer(sentence, 0, first.start)),
                       default=0)
    ends = [m.start() for m in CLAUSE.finditer(sentence, last.end)]
    lead = {order[0]: terms_of(sentence[clause_start:first.start])}
    trail = {order[-1]: terms_of(sentence[last.end:ends[0] if ends else len(sentence)])}
    for here, nxt in itertools.pairwise(order):
        gap = sentence[candidates[here].end:candidates[nxt].start]
        cut = CLAUSE.search(gap)
        if cut is not None:
            mine_end, next_start = cut.start(), cut.end()
        else:  # "of coffee a year | on a", " | until her retirement in"
            intro = _INTRODUCING.search(gap)
            mine_end = next_start = intro.start() if intro is not None else len(gap)
        trail[here] = terms_of(gap[:mine_end])
        lead[nxt] = terms_of(gap[next_start:])
    if all(trail.values()):
        owned = trail
    else:
        owned = dict(lead)
        if not lead[order[0]] & lead[order[1]]:
            owned[order[0]] = trail[order[0]]  # the subject, not the first value's own
    # (the verbs of any price or amount - "pay", "costs", "get" - single out none)
    mine = terms_of(claim[:value.start] + " " + claim[value.end:]) - _AMOUNT_VERBS
    return [len(mine & owned[i]) for i in range(len(candidates))]


# "off" after an amount is a price cut ("10% off", "£5 off"), no opposite of "on"
_PRICE_CUT = re.compile(r"(?<=[%\d])\s*off\b", re.IGNORECASE)


def opposed(claim: str, sentence: str, claim_terms: frozenset[str]) -> tuple[str, str] | None:
    """A pair of opposites the claim and a clause of the sentence on the claim's words
    take sides on ("on"/"off" of "TLS is supported but off by default"), or None; or
    what the claim says goes on unchanged, which the sentence deprecates."""
    ended = continued_against(claim, sentence)
    if ended is not None:
        return ended
    claim_words = [w.lower() for w in WORDS_AND_NUMBERS.findall(_PRICE_CUT.sub(" ", claim))]
    claim_values = values_of(claim)
    for piece in CLAUSE.split(sentence):
        # a clause on the claim's words, or stating one of its values ("8% more")
        if piece and (terms_of(piece) & claim_terms or any(
                agrees(mine, theirs) for mine in claim_values
                for theirs in values_of(piece))):
            words = [w.lower() for w in WORDS_AND_NUMBERS.findall(_PRICE_CUT.sub(" ", piece))]
            pair = opposites(set(claim_words), set(words))
            # the two words must qualify the same thing ("on by default" and "off by
            # default"), not merely share a sentence ("at most" ... "least recently")
            if pair is not None and (same_neighbour(claim_words, pair[0], words, pair[1])
                                     or _same_object(claim_words, pair[0], words, pair[1])
                                     or _same_noun_across(claim_words, pair[0], words,
                                                          pair[1])
                                     or _same_subject(claim_words, pair[0], words, pair[1])) \
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
               for mine in values_of(claim) for other in values_of(piece))


def neighbours(words: list[str], word: str) -> tuple[str | None, str | None]:
    """The content words (or numbers) nearest before and after ``word``, or None."""
    index = words.index(word)

    def key(token: str) -> str | None:
        if token[:1].isdigit():
            return token.rstrip(".,")
        return next(iter(sorted(terms_of(token))), None)

    before = next((k for w in reversed(words[:index]) if (k := key(w)) is not None), None)
    after = next((k for w in words[index + 1:] if (k := key(w)) is not None), None)
    return before, after


def same_neighbour(mine: list[str], one: str, theirs: list[str], other: str) -> bool:
    a, b = neighbours(mine, one), neighbours(theirs, other)
    return (a[1] is not None and a[1] == b[1]) or (a[0] is not None and a[0] == b[0])


_KEEPING_WORDS = frozenset(word for pair in KEEPING for word in pair)
#: How many content words after a verb of keeping or taking away are its object.
OBJECT_WORDS = 3


def _same_object(mine: list[str], one: str, theirs: list[str], other: str) -> bool:
    """Whether a verb of keeping and one of taking away ("keeps the EXIF data", "strips
    all metadata (EXIF, XMP ...)") share a word of their objects: the few content words
    after each."""
    if one not in _KEEPING_WORDS or other not in _KEEPING_WORDS:
        return False

    def objects(words: list[str], word: str) -> set[str]:
        after = [t for w in words[words.index(word) + 1:] for t in sorted(terms_of(w))]
        return set(after[:OBJECT_WORDS])

    return bool(objects(mine, one) & objects(theirs, other))


def _same_noun_across(mine: list[str], one: str, theirs: list[str], other: str) -> bool:
    """Whether one word stands right after the noun the other stands right before ("the
    day before" against "the following day"), the last of its text, so it qualifies
    that noun and nothing after it."""
    for (words, word), (other_words, other_word) in (((mine, one), (theirs, other)),
                                                     ((theirs, other), (mine, one))):
        at = words.index(word)
        if at == len(words) - 1 and at > 0:
            noun = words[at - 1]
            after = other_words.index(other_word) + 1
            if after < len(other_words) and other_words[after] == noun \
                    and terms_of(noun):
                return True
    return False



_COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "became", "become",
                      "becomes", "remain", "remains", "stay", "stays", "get", "gets", "got"})
#: How many words (adverbs, a value) may stand between a copula and what it says.
_COPULA_REACH = 4


def _subject(words: list[str], word: str) -> str | None:
    """The noun ``word`` is said of after a copula: "read" of "reads are also faster",
    "reads are roughly 10 % slower"; None where no copula stands just before it."""
    at = words.index(word)
    for index in range(at - 1, max(-1, at - 2 - _COPULA_REACH), -1):
        if words[index] in _COPULAS:
            return next((k for w in reversed(words[:index])
                         if (k := next(iter(sorted(terms_of(w))), None)) is not None), None)
    return None


def _same_subject(mine: list[str], one: str, theirs: list[str], other: str) -> bool:
    """Whether the two words are said of the same noun by a copula ("reads are also
    faster" against "while reads are roughly 10 % slower")."""
    subject = _subject(mine, one)
    return subject is not None and subject == _subject(theirs, other)


def other_role(claim: str, sentence: str,
                said: frozenset[str]) -> tuple[str, str] | None:
    """A person's role the claim names and the sentence does not, where it names
    another beside the same word ("a Swedish physicist", "a Swedish chemist"): words
    ending as roles do (-ist, -ian, -er, -or ...), so that a paraphrase ("has a fleet
    of", "owns") is never taken for one."""
    mine = [w for w in _WORDS_ONLY.findall(claim)]
    theirs = [w for w in _WORDS_ONLY.findall(sentence)]
    lowered = {w.lower() for w in mine}
    for word in mine:
        if not _ROLE.search(word.lower()) or word.lower() in _NOT_ROLES or terms_of(word) & said:
            continue
        around = neighbours([w.lower() for w in mine], word.lower())
        for other in theirs:
            suffix = _ROLE.search(other.lower())
            if other.lower() in lowered or suffix is None or other.lower() in _NOT_ROLES \
                    or not word.lower().endswith(suffix.group(0)[-2:]) \
                    or other[0].isupper() != word[0].isupper():
                continue  # roles end alike: "physicist" and "chemist", not "reader" and "assist"
            if _compared(claim, word) or _compared(sentence, other):
                continue  # "three times faster than", "higher than": no role but a comparison
            near = neighbours([w.lower() for w in theirs], other.lower())
            # two words in -er before the same noun are what describes it ("an older
            # refractor", "a smaller refractor"), not roles: only the word before counts
            modifiers = word.lower().endswith("er") and other.lower().endswith("er")
            if (around[0] is not None and around[0] == near[0]) or (
                    not modifiers and around[1] is not None and around[1] == near[1]):
                return word, other
    return None



def _compared(text: str, word: str) -> bool:
    """Whether ``word`` of ``text`` is a comparative, before "than" ("faster than")."""
    return re.search(rf"\b{re.escape(word)}\s+than\b", text, re.IGNORECASE) is not None


def decide(value: Value, claim: str, sentences: Sequence[Sentence],
            claim_values: Sequence[Value] = (), *,
            loose: bool = False) -> tuple[Sentence, Value | None] | None:
    """The first of ``sentences`` stating ``value`` (with ``None``), else the first
    stating another value of its slot (with that value) - not one the claim states
    elsewhere ("between 8:00 and 12:00" against "between 8:00 and 10:00" is 10:00) -
    else, ``loose`` (the sentence saying the claim's subject), the first stating its
    count under another noun ("three vessels" for "three ships"), else None."""
    # each sentence's values, a count "of them" read as the claim's noun where it names it
    # (a table row's with its columns' headers, of the columns the claim names)
    claim_terms = terms_of(claim)
    counted = [(sentence, counted_as(value, sentence_values(sentence, claim_terms),
                                     sentence.text))
               for sentence in sentences]
    for sentence, theirs in counted:
        if any(agrees(value, other) for other in theirs):
            # (a row's cells are its columns', not owned by the words before them)
            return sentence, None if sentence.header else _singled_out(
                value, claim, sentence, theirs, claim_values)
    for sentence, theirs in counted:
        slot = [other for other in theirs if same_slot(value, other)
                and not any(agrees(mine, other) for mine in claim_values if mine != value)]
        if slot and sentence.header:
            return sentence, _closest(value, slot)
        if slot:
            return sentence, _nearest(claim, value, sentence, slot)
    for sentence in sentences if loose else ():
        if any(agrees_as_count(value, other)
               for other in sentence_values(sentence, claim_terms)):
            return sentence, None
    return None


def _closest(value: Value, candidates: list[Value]) -> Value:
    """Of a table row's ``candidates`` for ``value``'s slot (the columns the claim
    names), the one nearest it in amount: the cell the claim most likely misread."""
    if value.amount is None:
        return candidates[0]
    mine = value.amount
    # (a morning hour may be the afternoon's, written without pm: "shut at half four"
    # against "08:30 - 16:00" misread 16:00, not 08:30)
    readings = (mine, mine + 720) if value.dimension == "clock" and mine < 720 else (mine,)
    return min(candidates, key=lambda c: min(
        abs((c.amount if c.amount is not None else mine) - reading) for reading in readings))


def _singled_out(value: Value, claim: str, sentence: Sentence, theirs: Sequence[Value],
                 claim_values: Sequence[Value]) -> Value | None:
    """Of a sentence stating ``value`` and other values of its slot, the other one the
    claim's words single out, or None: "Parking is free" against "Entry to the beach is
    free, but parking costs £8" is about the £8 - the sentence's "free" is the entry's."""
    if value.dimension == "period":
        return None  # "a month" qualifies an amount, which decides ("4 euros a month")
    slot = [other for other in theirs if same_slot(value, other) or agrees(value, other)]
    if len(slot) < 2:
        return None
    scores = _own_scores(claim, value, sentence.text, slot)
    best = max(scores)
    if not best or scores.count(best) > 1:
        return None
    chosen = slot[scores.index(best)]
    stating = [other for other in slot if agrees(value, other)]
    if agrees(value, chosen) or any(scores[slot.index(other)] for other in stating) or any(
            agrees(mine, chosen) for mine in claim_values if mine != value):
        return None  # the stating value has some of the claim's words: it may be so
    # another of the claim's values stated in the clause of the one stating this: the
    # claim is about that clause ("Postage is free on orders above 30 pounds")
    breaks = [m.end() for m in CLAUSE.finditer(sentence.text)]
    said_there = {bisect.bisect_right(breaks, other.start) for other in stating}
    if any(bisect.bisect_right(breaks, other.start) in said_there
           for mine in claim_values if mine != value
           for other in theirs if agrees(mine, other)):
        return None
    return chosen


def slots(values: Sequence[Value], unknown_name: bool, sentence: Sentence,
           known: frozenset[str] | set[str], claim_terms: frozenset[str]) -> float:
    """The share of the claim's facts (values, and a name no passage has) for which the
    sentence states a fact of the same slot."""
    theirs = sentence_values(sentence, claim_terms)
    wanted = len(values) + unknown_name
    if not wanted:
        return 0.0
    found = sum(any(same_slot(value, other) or agrees(value, other) for other in theirs)
                for value in values)
    if unknown_name and any(not terms_of(sentence.text[a:b]) & claim_terms
                            for a, b in name_groups(sentence.text, known)):
        found += 1
    return found / wanted


def denial_of(claim: str, sentence: str, shared: frozenset[str]) -> tuple[str, str] | None:
    """The claim's words and the sentence's when one of them denies what both say
    ("uses a camera" against "does not use a camera"), else None. Support withdrawn
    ("Support for PostgreSQL 11 was dropped") denies as "not supported" does."""
    said, says = as_denial(claim), as_denial(sentence)
    # (what a denial of permission denies by its subject - "Cash is not accepted" -
    # only against a side denying nothing: "Cash isn't an option" says the same)
    mine = {t for words in denied(said, subjects=not negated(says))
            for t in terms_of(words)} & shared
    theirs = {t for words in denied(says, subjects=not negated(said))
              for t in terms_of(words)} & shared
    if theirs and not mine and says != sentence and not same_numbers(claim, denied(says)):
        # "Support for PostgreSQL 11 was dropped" denies 11, not "PostgreSQL 12 to 16"
        return None
    if mine == theirs or (mine and theirs):
        # both deny something, each another thing ("do not need to book" against
        # "required for vehicles but not for foot passengers"): no plain opposite
        return None
    if (mine and not theirs and _REFUSING.search(sentence)) or (
            theirs and not mine and _REFUSING.search(claim)):
        # "will not open an image above 30,000 pixels" against "refuses any image whose
        # width exceeds 30,000 pixels": a verb of refusing denies in a word
        return None
    if (mine and not theirs and _NOT_UNTIL.search(claim) and _ONLY_WHEN.search(sentence)) or (
            theirs and not mine and _NOT_UNTIL.search(sentence) and _ONLY_WHEN.search(claim)):
        # "doesn't free any space until a prune runs" against "Space is only freed when
        # prune runs": a denial up to a condition says what "only when" it says
        return None
    if not mine and theirs & _PRICE_TERMS and any(v.unit == FREE for v in values_of(claim)):
        # "these inductions cost nothing" against "There is no joining fee": a price of
        # nothing on each side; the values compare what is free
        return None
    # "not allowed" against "banned": the denial says the other's opposite
    for side, other in ((claim, sentence), (sentence, claim)):
        negated_terms = {t for words in denied(side) for t in terms_of(words)}
        if any(OPPOSITE_TERMS.get(t, frozenset()) & terms_of(other) for t in negated_terms):
            return None
    differ = mine ^ theirs
    return _piece_with(claim, differ), _piece_with(sentence, differ, widen=True)


_PRICE_TERMS = terms_of("price fee charge cost")
_NOT_UNTIL = re.compile(r"(?:\bnot\b|n't\b|\bnever\b)[^.;]*?\b(?:until|unless|till)\b",
                        re.IGNORECASE)
_ONLY_WHEN = re.compile(r"\bonly\b[^.;]*?\b(?:when|after|once|if)\b|"
                        r"\b(?:when|after|once|if)\b[^.;]*?\bonly\b", re.IGNORECASE)
_REFUSING = re.compile(r"\b(?:refus(?:e|es|ed|ing)|reject(?:s|ed|ing)?|prohibit(?:s|ed)?|"
                       r"forbid(?:s|den)?|bans?|banned|den(?:y|ies|ied)|prevent(?:s|ed)?|"
                       r"exclud(?:e|es|ed))\b", re.IGNORECASE)

#: A clause of at most this many content words is quoted with the one before it.
SHORT_CLAUSE = 1


def _piece_with(text: str, terms: frozenset[str] | set[str], *, widen: bool = False) -> str:
    """The clause of ``text`` that says most of ``terms``; ``widen``: with the clause
    before it when it says no more than :data:`SHORT_CLAUSE` word ("not cash" of "The
    pay stations take cards only, not cash" is "take cards only, not cash": what the
    source says instead)."""
    pieces = [p.strip() for p in CLAUSE.split(text) if p and p.strip()] or [text]
    # of clauses saying as many, the one with a negation: it is the denial ("Tidebase
    # supports PostgreSQL and MySQL; SQLite is not supported")
    index = max(range(len(pieces)), key=lambda i: (len(terms_of(pieces[i]) & terms),
                                                   negated(pieces[i])))
    piece = pieces[index].rstrip(".\u3002!\uff01")
    if widen and index and len(terms_of(piece)) <= SHORT_CLAUSE:
        start = text.find(pieces[index - 1])
        end = text.find(pieces[index], start) + len(pieces[index])
        if start >= 0 and end > start:
            piece = text[start:end].rstrip(".\u3002!\uff01")
    return LEADING_JOIN.sub("", piece)
