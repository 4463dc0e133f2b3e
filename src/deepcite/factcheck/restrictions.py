"""Restrictions and scope: what a claim or a source limits a statement to.

A draft often drops or changes a qualifier rather than a number: "children stay free"
where the source says "children stay free when accompanied by a member", "open every
day" against "open daily except on Mondays", "reads are served from any replica"
against "from the primary only". The words match; the scope does not. Two kinds of
restriction are read, each from its marker to the end of its clause:

- **exclusive** ("only", "except", "apart from", "but not", "other than" ...): the source
  says the statement is false outside the restriction, so a claim stating it for all
  ("any", "every", "always", "all year round" ...) is contradicted, the note naming the
  source's restriction;
- **conditional** ("if", "when", "unless", "provided", "as long as", "by appointment"
  ...): the source states it under a condition the claim leaves out, so a claim stating
  it for all is partly supported (the condition is named as not stated).

A restriction the claim adds and the source does not state ("only for members" where
the source gives no limit) is part of the claim the source does not say: partly
supported; a restriction of the same kind the source states otherwise ("except on
Tuesdays" against "except on Mondays") contradicts it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from deepcite.factcheck.framing import reader_framing
from deepcite.factcheck.terms import terms_of

__all__ = ["Restriction", "ScopeClash", "always", "always_span", "beyond_only", "from_start",
           "limit_clash", "period_beside", "restated_conditions", "restrictions",
           "rhythm_clash", "scope_clash", "start_clash", "universal"]

RestrictionKind = Literal["exclusive", "conditional", "period"]

_EXCLUSIVE = re.compile(
    r"\b(?:only|except|excepting|excluding|apart from|other than|save for|aside from|"
    r"with the exception of|but not|not on|not for|not in|solely|exclusively)\b",
    re.IGNORECASE)
# A restrictive relative clause, no comma before it: "free for pupils whose families
# receive income support", "for members who joined before 2020" - only those.
_RELATIVE = re.compile(r"(?<![,\s])\s+\b(?:whose|who)\s+[a-z]+\b")
_CONDITIONAL = re.compile(
    r"\b(?:if|when|unless|provided(?: that)?|providing|as long as|so long as|"
    r"in (?:the )?(?:case|event) of|"
    r"on condition that|subject to|by appointment|on request|with permission|"
    r"accompanied by)\b", re.IGNORECASE)
# Words that state something for all: "any", "every pupil", "always", "all year round".
# ("every" before a number or a period counts how often: "every two weeks", "every
# week", and is no claim of all)
_MONTH_NAMES = ("January|February|March|April|May|June|July|August|September|October|"
                "November|December")
_DAY_NAMES = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_UNIVERSAL = re.compile(
    r"\b(?:always|any|anyone|anybody|anything|anywhere|everyone|everybody|everything|"
    r"everywhere|all year(?: round)?|year-round|(?<!\bat\s)all|both|whatever|whoever|"
    r"at any time|"
    r"regardless|without exception|without restriction|unrestricted|every day|daily|"
    # the whole week or year counted out: "seven days a week", "7 days a week", "365
    # days a year", "24/7"
    r"(?:seven|7) days (?:a|per|each) week|365 days (?:a|per|each) year|24/7|"
    r"around the clock|all week|"
    r"every(?!\s+(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|other|few|"
    r"couple|second|minute|hour|week|fortnight|month|quarter|year|season|time|spring|"
    rf"summer|autumn|winter|{_MONTH_NAMES})\b))\b",
    re.IGNORECASE)
# A date just before "when": the "when" says what happened then ("priced at £75 until
# March 2023, when it rose to £90"), no condition.
_AT_A_TIME = re.compile(rf"(?:\b\d{{4}}|\b(?:{_MONTH_NAMES})(?:\s+\d{{1,2}})?)\s*,\s*$",
                        re.IGNORECASE)
# "even when", "even if": it holds all the same, no condition.
_EVEN = re.compile(r"\beven\s+(?:when\s+|if\s+)?$", re.IGNORECASE)
_PART_OF_MONTH = r"(?:(?:mid|early|late)-?\s*|the end of\s+|the start of\s+)?"
_MONTH = rf"{_PART_OF_MONTH}(?:{_MONTH_NAMES}|{_DAY_NAMES})"
# A part of the year or week a statement holds for: "from March to November", "on
# weekdays", "in summer", "Monday to Friday", "late March to late October", "seasonal" -
# against "all year round" or "every day", another scope.
_DAY = rf"(?:{_DAY_NAMES})s?"
_PERIOD = re.compile(
    r"\b(?:from|between)\s+" + _MONTH + r"\s+(?:to|and|until|till)\s+" + _MONTH + r"\b|"
    # a range of days or months with no "from" ("available Monday to Friday",
    # "Seasonal, late March to late October")
    rf"\b{_DAY}\s*(?:to|until|till|through|-|\u2013)\s*{_DAY}\b|"
    rf"\b{_PART_OF_MONTH}(?:{_MONTH_NAMES})\s+(?:to|until|till|through)\s+{_MONTH}\b|"
    r"\b(?:on|at|during)\s+(?:weekdays|weekends|the weekend|working days)\b|"
    r"\b(?:in|during)\s+(?:the\s+)?(?:spring|summer|autumn|winter|season|term time)\b|"
    r"\bseasonal(?:ly)?\b|\bin\s+season\b", re.IGNORECASE)
_DAY_INDEX = {day: index for index, day in enumerate(_DAY_NAMES.lower().split("|"))}
_DAY_RANGE = re.compile(rf"\b(?P<first>{_DAY})\s*(?:to|until|till|through|and|-|\u2013)\s*"
                        rf"(?P<last>{_DAY})\b", re.IGNORECASE)


def _whole_week(phrase: str) -> bool:
    """Whether ``phrase`` is a range of days spanning the whole week ("Monday to
    Sunday"): no part of it."""
    match = _DAY_RANGE.search(phrase)
    if match is None:
        return False
    first, last = _day_span(match)
    return (last - first) % 7 == 6


def _day_span(match: re.Match[str]) -> tuple[int, int]:
    """The first and last day of a :data:`_DAY_RANGE` match, Monday 0 to Sunday 6."""
    return (_DAY_INDEX[match.group("first").lower().rstrip("s")],
            _DAY_INDEX[match.group("last").lower().rstrip("s")])


def _week_words(text: str) -> str:
    """``text`` with a range of days written as the words for it ("Monday to Friday" as
    "weekdays", "Saturday and Sunday" as "weekends"), so that either wording states
    the other."""
    def named(match: re.Match[str]) -> str:
        first, last = _day_span(match)
        return "weekdays" if (first, last) == (0, 4) else "weekends" if (first, last) == (
            5, 6) else match.group(0)
    text = _DAY_RANGE.sub(named, text)
    return re.sub(r"\bworking days\b|\bweekday\b", "weekdays", text, flags=re.IGNORECASE)


# Universal words about time: only a period restriction contradicts them.
_ALWAYS = re.compile(r"\b(?:always|all year(?: round)?|year-round|(?:every|any) day(?: of "
                     r"the (?:week|year))?|daily|at any time|whenever|24/7|around the clock|"
                     r"(?:seven|7) days (?:a|per|each) week|365 days (?:a|per|each) year|"
                     r"all week)\b", re.IGNORECASE)
_AMOUNT = re.compile(r"\d[\d.,:]*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                     r"single)\b", re.IGNORECASE)
# Where a restriction's clause ends.
# (a point, comma or colon inside a number or a word - "1.4", "21,500", "10:00", "1.x",
# "e.g" - ends nothing)
_CLAUSE_END = re.compile(r"[;!?()\u2013\u2014]|[,.:](?![\w])|\s(?:and|but|while|whereas)\s")
# "between" with no "and" yet after it: the "and" to come closes its range
_OPEN_BETWEEN = re.compile(r"\bbetween\s+(?:(?!\band\b)[^,;.])*$", re.IGNORECASE)
_BREAK = re.compile(r"[;!?()|\u2013\u2014]|[,.:](?![\w])")
# A condition that nothing is chosen: "if you don't set a quality yourself", "unless you
# specify one", "when no format is given" - the default.
_UNSET = re.compile(r"\b(?:if|when|unless)\s+(?:you|they|users?|one|no|nothing)?\s*(?:do\s+not\s+|"
                    r"don[\u2019']t\s+|doesn[\u2019']t\s+|never\s+)?(?:set|specify|specifies|"
                    r"choose|chooses|pick|give|gives|pass|select|configure|change)\b|"
                    r"\b(?:if|when)\s+(?:no|nothing)\b[^,;]*\b(?:is|are)\s+(?:set|given|"
                    r"specified|chosen|passed|selected)\b|\b(?:if|when)\s+(?:not|left)\s+"
                    r"(?:set|specified|unset|empty|blank)\b", re.IGNORECASE)
# The markers a restriction's words are read without ("weekdays only" says "weekdays").
_TRAILING_MARKERS = ("only", "except", "solely", "exclusively")
# An "only" after the words it restricts ("from the primary only", "weekdays only").
_TRAILING_ONLY = re.compile(r"((?:\S+\s+){1,2})only\b", re.IGNORECASE)


@dataclass(frozen=True)
class Restriction:
    """A restriction of a text: its kind, its words as written, and its content terms."""

    kind: RestrictionKind
    text: str
    terms: frozenset[str]


@dataclass(frozen=True)
class ScopeClash:
    """A claim's scope against its source's: ``contradicted`` (the source excludes what
    the claim includes, or restricts it otherwise) or ``partly`` (a condition or
    restriction one side states and the other does not)."""

    outcome: Literal["contradicted", "partly"]
    draft: str
    source: str


def restrictions(text: str, *, relative: bool = True) -> list[Restriction]:
    """The restrictions ``text`` states, each from its marker to the end of its clause
    ("except on Mondays", "when accompanied by a parent"), or the words an "only"
    follows ("the primary only"); ``relative``: with restrictive "who"/"whose" clauses
    (a source's "free for pupils whose families ..." limits a claim's "every pupil"; a
    claim's own "people who had used X" names whom it speaks of, no restriction)."""
    found: list[Restriction] = []
    taken: list[int] = []
    spans: list[tuple[int, int]] = []
    kinds: tuple[tuple[RestrictionKind, re.Pattern[str]], ...] = (
        ("period", _PERIOD), ("exclusive", _EXCLUSIVE), ("conditional", _CONDITIONAL),
        *((("exclusive", _RELATIVE),) if relative else ()))
    for kind, pattern in kinds:
        for match in pattern.finditer(text):
            if any(match.start() <= at < match.end() for at in taken):
                continue
            if pattern is _RELATIVE and any(a <= match.start() < b for a, b in spans):
                continue  # "when accompanied by a parent who is a member": the condition's
            if kind == "conditional" and _AT_A_TIME.search(text, 0, match.start()) \
                    and match.group(0).lower() == "when":
                continue  # "until March 2023, when it rose": the time, no condition
            if kind == "conditional" and _EVEN.search(text, 0, match.start()):
                continue  # "even when accompanied by an adult": it holds all the same
            end = _clause_end(text, match.end())
            phrase = match.group(0) if kind == "period" else \
                text[match.start():end.start() if end else len(text)].strip()
            if kind == "period" and _whole_week(phrase):
                continue  # "Monday to Sunday" is every day
            marker = terms_of(match.group(0)) if kind != "period" else frozenset()
            if match.group(0).lower() == "only" and not terms_of(phrase) - marker:
                # "members only", "open to members only from 9:00": what it follows
                before = _TRAILING_ONLY.search(text[max(0, match.start() - 40):match.end()])
                phrase = before.group(0).strip() if before else phrase
                period = next((p for p in _PERIOD.finditer(text, max(0, match.start() - 60))
                               if not text[p.end():match.start()].strip()), None)
                if period is not None:
                    # "Monday to Friday only": the range is what it follows
                    phrase = text[period.start():match.end()]
            terms = terms_of(phrase) - marker
            if terms:
                found.append(Restriction(kind, phrase, terms))
                taken.append(match.start())
                spans.append((match.start(), end.start() if end else len(text)))
    return found


def _clause_end(text: str, start: int) -> re.Match[str] | None:
    """Where the clause going on at ``start`` ends: its "and" none that closes a
    "between" range ("except between 7:00 and 9:00 on weekdays" is one clause)."""
    end = _CLAUSE_END.search(text, start)
    if end is not None and end.group(0).strip() == "and" \
            and _OPEN_BETWEEN.search(text, start, end.start()):
        end = _CLAUSE_END.search(text, end.end())
    return end


def universal(text: str) -> str | None:
    """The word of ``text`` stating something for all ("any", "every pupil", "always"),
    or None."""
    match = _UNIVERSAL.search(text)
    return match.group(0) if match else None


def always_span(text: str) -> tuple[int, int] | None:
    """Where :func:`always` finds its words in ``text``, or None."""
    match = _ALWAYS.search(text)
    return match.span() if match else None


def always(text: str) -> str | None:
    """The words of ``text`` stating something holds at all times ("all year round",
    "every day of the week"), or None: only a part of the year or week contradicts
    them."""
    match = _ALWAYS.search(text)
    return match.group(0) if match else None


def scope_clash(claim: str, sentence: str) -> ScopeClash | None:
    """How the scope of ``claim`` differs from that of ``sentence`` (the source's
    sentence on its subject), or None when it does not.

    Only the sentence's restrictions in a clause on the claim's words count ("phone
    support is offered on weekdays only" of a sentence about chat and phone support);
    a restriction whose words the claim says too is the claim's own.
    """
    claim_terms = terms_of(claim)
    # a part of the year or week the claim names is its own scope ("open daily between
    # April and September"); "on weekdays" for "Monday to Friday" the dates compare
    found = restrictions(claim, relative=False)
    scoped_in_time = any(r.kind == "period" for r in found)
    mine = [r for r in found if r.kind != "period"]
    claim_numbers = _numbers(claim)
    theirs = [r for r in restrictions(sentence)
              if (r.terms - claim_terms or _numbers(r.text) - claim_numbers)
              and _on_claim(sentence, r, claim_terms)]
    if not mine:
        wide = universal(claim)
        if wide is None:
            return beyond_only(claim, sentence)
        if not theirs:
            return None
        # a part of the year or week bounds only a statement about time
        theirs = [r for r in theirs if r.kind != "period"
                  or (_ALWAYS.search(claim) and not scoped_in_time)]
        if not theirs:
            return None
        periods = [r for r in theirs if r.kind == "period"]
        # of "Seasonal, late March to late October", the range names the season
        chosen = max(periods, key=lambda r: len(r.terms), default=None) or next(
            (r for r in theirs if r.kind == "exclusive"), theirs[0])
        outcome: Literal["contradicted", "partly"] = (
            "partly" if chosen.kind == "conditional" else "contradicted")
        return ScopeClash(outcome, _around(claim, wide), _clause_of(sentence, chosen))
    sentence_terms = terms_of(_week_words(sentence))
    restated = restated_conditions(claim, sentence)
    for restriction in mine:
        if restriction.kind == "conditional" and _UNSET.search(restriction.text):
            # "if you don't set a quality" speaks of the default, which the sentence
            # beside may name ("The default is 85"): the values decide
            continue
        if restriction.kind == "conditional" and reader_framing(restriction.text):
            continue  # "if you ride regularly": the reader's situation, no bound on it
        unsaid = terms_of(_week_words(restriction.text)) - terms_of(
            " ".join(_TRAILING_MARKERS)) - sentence_terms
        if len(unsaid) * 2 < len(restriction.terms) + 1 and len(unsaid) < 2:
            continue  # the source states it (in its own words, at most one differs)
        if restriction.kind == "conditional" and restriction.terms <= restated:
            continue  # the sentence's own condition, in other words
        other = next((r for r in theirs if r.kind == restriction.kind), None)
        if other is not None:
            return ScopeClash("contradicted", restriction.text, _clause_of(sentence, other))
        return ScopeClash("partly", restriction.text, "")
    return None


def restated_conditions(claim: str, sentence: str) -> frozenset[str]:
    """The words of the claim's conditions that ``sentence`` states a condition of its
    own on, sharing one of their words: the claim's condition in other words ("When the
    fire alarm sounds" against "In case of fire, students leave ...")."""
    theirs = [r.terms for r in restrictions(sentence) if r.kind == "conditional"]
    return frozenset(t for r in restrictions(claim, relative=False)
                     if r.kind == "conditional" and any(r.terms & other for other in theirs)
                     for t in r.terms)


# Between the items of a list: "Windows and macOS as well as on Linux", "cats, dogs or
# rabbits".
_LIST_JOIN = (r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|as\s+well\s+as|plus|along\s+with|"
              r"together\s+with)\s+)(?:(?:on|in|for|at|to|with|by)\s+)?")
_ITEM = r"[A-Za-z][\w.+#-]*"


def beyond_only(claim: str, sentence: str) -> ScopeClash | None:
    """A claim listing things ("on Windows and macOS as well as on Linux") against a
    sentence restricting what both say to one of them with "only" ("Supported on Linux
    only"): the source excludes the others, so the claim is contradicted, the note
    naming the source's clause. Only an "only" after one or two words, what it
    restricts, and a list whose other items the restriction does not name."""
    for restriction in restrictions(sentence, relative=False):
        if restriction.kind != "exclusive" or not restriction.text.lower().endswith("only") \
                or len(restriction.terms) > 2 or not restriction.terms <= terms_of(claim):
            continue
        for word in re.finditer(_ITEM, claim):
            if not terms_of(word.group(0)) or not terms_of(word.group(0)) <= restriction.terms:
                continue
            left = re.search(rf"(?:{_ITEM}{_LIST_JOIN})+$", claim[:word.start()])
            right = re.match(rf"(?:{_LIST_JOIN}{_ITEM})+", claim[word.end():])
            listed = (left.group(0) if left else "") + word.group(0) + (
                right.group(0) if right else "")
            items = [i for i in re.findall(_ITEM, listed) if terms_of(i)]
            others = [i for i in items if not terms_of(i) <= restriction.terms
                      and i.lower() not in ("and", "or", "plus", "well", "along", "together")]
            if len(items) >= 2 and others:
                return ScopeClash("contradicted", listed.strip().rstrip(".,;:!?"),
                                  _clause_of(sentence, restriction))
    return None


_PRONOUN_OPENING = re.compile(r"^\W*(?:it|they|this|these)\b", re.IGNORECASE)


def period_beside(claim: str, sentence: str) -> ScopeClash | None:
    """A claim saying something holds at all times ("can be bought on any day of the
    week") against ``sentence``, next to its source's sentence and speaking of the same
    subject by a pronoun ("It costs 6 pounds and is available Monday to Friday"), that
    states it for a part of the week or year only: contradicted, the note naming that
    clause. The pronoun says none of the claim's words, so the sentence is no subject
    of the claim's by its words. Or ``sentence`` restricting to one item with "only"
    what the claim says of a list (:func:`beyond_only`: "Supported on Linux only"
    against "on Windows and macOS as well as on Linux"), which says the one word of
    the claim's it restricts; else None."""
    if universal(claim) is None and (beyond := beyond_only(claim, sentence)) is not None:
        return beyond
    if _PRONOUN_OPENING.match(sentence) is None or always(claim) is None:
        return None
    if any(r.kind == "period" for r in restrictions(claim, relative=False)):
        return None
    periods = [r for r in restrictions(sentence) if r.kind == "period"]
    if not periods:
        return None
    chosen = max(periods, key=lambda r: len(r.terms))
    return ScopeClash("contradicted", always(claim) or "",
                      _clause_of(sentence, chosen))


def _numbers(text: str) -> set[str]:
    """The numbers of ``text``, in figures or words: a restriction may be one alone
    ("one device only" against "any number of devices")."""
    return {word.lower() for word in _AMOUNT.findall(text)}


def _on_claim(sentence: str, restriction: Restriction, claim_terms: frozenset[str]) -> bool:
    """Whether the clause holding ``restriction`` (or the one before it, when the
    restriction opens its own) says one of the claim's words."""
    # (a table's row is about the thing its first cell names: the whole row is the clause)
    clause = sentence if sentence.lstrip().startswith("|") else _clause_of(sentence, restriction)
    # or the restriction says two of the claim's words itself ("only one carriage on
    # each train has room for a wheelchair" of "Every carriage can take a wheelchair")
    return bool((terms_of(clause) - restriction.terms) & claim_terms) \
        or len(restriction.terms & claim_terms) >= 2


def _clause_of(sentence: str, restriction: Restriction) -> str:
    """The clause of ``sentence`` holding ``restriction``, with the clause before when
    the restriction opens its own ("Jewellery is not allowed, apart from studs")."""
    at = sentence.find(restriction.text)
    if at < 0:
        return restriction.text
    pieces: list[tuple[int, int]] = []
    at_piece = 0
    for stop in [*(m.start() for m in _BREAK.finditer(sentence)), len(sentence)]:
        if sentence[at_piece:stop].strip():
            pieces.append((at_piece, stop))
        at_piece = stop + 1
    for index, (start, end) in enumerate(pieces):
        if start <= at < end:
            if not sentence[start:at].strip() and index:
                start = pieces[index - 1][0]
            return sentence[start:end].strip()
    return restriction.text


def _around(claim: str, word: str) -> str:
    """The claim's universal word with the words after it in its clause ("any
    replica", "every day")."""
    at = claim.find(word)
    end = _CLAUSE_END.search(claim, at + len(word))
    piece = claim[at:end.start() if end else len(claim)].strip()
    words = piece.split()
    return " ".join(words[:4]).rstrip(".")


# No limit on how often or how many: "as often as they like", "any number of times",
# "unlimited" ...
_UNLIMITED = re.compile(
    r"\b(?:as (?:often|many times|much|many) as (?:they|you|he|she|we|one|it|needed|"
    r"necessary|required|wanted|desired)(?: (?:like|likes|want|wants|wish|wishes|"
    r"need|needs|please|pleases))?|any number of(?: times)?|an unlimited number of|"
    r"unlimited|without (?:any )?limit|no limit|limitless)\b", re.IGNORECASE)
# ... against a source's number of times: "once", "twice", "up to three times", "a
# maximum of two".
_TIMES = re.compile(
    r"\b(?:(?:only |just |up to |at most |no more than )?(?:once|twice|thrice)|"
    r"(?:only |up to |at most |no more than )?(?:\d+|one|two|three|four|five|six|seven|"
    r"eight|nine|ten) times|(?:a|the) maximum of \w+|(?:a|the) limit of \w+)\b",
    re.IGNORECASE)


def limit_clash(claim: str, sentence: str) -> ScopeClash | None:
    """A claim saying there is no limit ("can retake the test as often as they like",
    "unlimited devices") against a source's clause on the claim's words giving one
    ("may retake the test once", "up to three times"): contradicted, the note naming
    both; else None."""
    mine = _UNLIMITED.search(claim)
    if mine is None or _UNLIMITED.search(sentence):
        return None
    wanted = terms_of(claim[:mine.start()] + " " + claim[mine.end():])
    for piece in _CLAUSE_END.split(sentence):
        theirs = _TIMES.search(piece)
        if theirs is not None and terms_of(piece) & wanted:
            return ScopeClash("contradicted", mine.group(0), theirs.group(0))
    return None


# "since the day it opened", "ever since it was founded", "from the start", "from day
# one", "has always been": a statement the claim says held from the beginning.
_FROM_START = re.compile(
    r"\b(?:(?:ever\s+)?since\s+(?:the\s+day\s+|the\s+year\s+)?(?:it|they|he|she|we|"
    r"the\s+\w+)\s+(?:was\s+|were\s+|first\s+)?(?:opened|founded|started|began|launched|"
    r"set\s+up|established|created|opened\s+its\s+doors)|since\s+(?:its|their)\s+"
    r"(?:founding|foundation|opening|launch|start|beginning)|since\s+the\s+(?:start|"
    r"beginning|outset)|from\s+(?:the\s+(?:start|beginning|outset|very\s+beginning)|"
    r"day\s+one|the\s+first\s+day)|(?:has|have|had)\s+always)\b", re.IGNORECASE)
# A source's clause saying when something began after the beginning: "since 2016", "moved
# to a former print works in 2019", "switched to ... in 2021".
_LATER = re.compile(
    r"\b(?i:since)\s+(?:(?:early|late|mid-?)\s*)?(?:[A-Z][a-z]+\s+)?\d{4}\b|"
    r"\b(?:moved|relocated|switched|changed|converted|became|introduced|added|took\s+over|"
    r"expanded|transferred)\b[^.;]*?\bin\s+(?:[A-Z][a-z]+\s+)?\d{4}\b")


def from_start(text: str) -> str | None:
    """The words of ``text`` saying something held from the beginning ("since the day
    it opened", "from the start"), or None."""
    match = _FROM_START.search(text)
    return match.group(0) if match else None


def start_clash(claim: str, sentence: str) -> ScopeClash | None:
    """A claim saying something held from the beginning ("has worked from a former print
    works since the day it opened") against a source's sentence on the claim's words
    dating its start later ("began in a converted garage and moved to a former print
    works in 2019", "Since 2016 the trust has also run a carriage works"): contradicted,
    the note quoting the source's sentence (what was so before, and when it changed).
    None otherwise: a start the source does not date is only not stated."""
    start = from_start(claim)
    if start is None:
        return None
    later = _LATER.search(sentence)
    if later is None:
        return None
    wanted = terms_of(claim[:claim.find(start)] + " " + claim[claim.find(start) + len(start):])
    # "has always" names no beginning: the later start must be of more of the claim
    # than its subject ("moved to Quay Road in 2015" of "has always been on Quay Road",
    # not of "has always offered free flu jabs")
    if len(terms_of(sentence) & wanted) < (2 if "always" in start.lower() else 1):
        return None
    return ScopeClash("contradicted", start, sentence.strip().rstrip("."))


_WEEKDAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
# A claim saying something happens every week: "every Sunday", "each Saturday", "on
# Sundays", "weekly" ...
_WEEKLY = re.compile(rf"\b(?:(?:every|each)\s+{_WEEKDAY}|on\s+{_WEEKDAY}s|every\s+week|"
                     r"each\s+week|weekly)\b", re.IGNORECASE)
# ... against a source's clause saying it happens on one day of each month: "on the
# first Saturday of each month", "the last Sunday of every month", "once a month".
_MONTHLY = re.compile(rf"\b(?:the\s+)?(?:first|second|third|fourth|last|final)\s+{_WEEKDAY}"
                      r"\s+(?:of|in)\s+(?:each|every|the)\s+month\b|\bonce\s+a\s+month\b|"
                      r"\bmonthly\b", re.IGNORECASE)
# A claim saying someone does something without others: "runs it on its own",
# "manages the reserve alone", "single-handedly" ...
_SOLE = re.compile(r"\b(?:on\s+(?:its|their|his|her)\s+own|by\s+(?:itself|themselves|"
                   r"himself|herself)|alone|single-handedly|independently|solely|"
                   r"without\s+(?:any\s+)?(?:help|partners?|outside\s+help))\b", re.IGNORECASE)
# ... against a source's clause naming a partner: "managed jointly with the Environment
# Agency", "together with", "in partnership with".
_SHARED = re.compile(r"\b(?:jointly|together\s+with|in\s+partnership\s+with|"
                     r"in\s+collaboration\s+with|in\s+conjunction\s+with|with\s+the\s+help\s+of|"
                     r"co-(?:owned|run|managed|funded|founded|organised|organized)|"
                     r"shared\s+with)\b", re.IGNORECASE)


# A claim saying someone private owns or runs it: "privately owned", "run by a private
# company", "in private hands" ...
_PRIVATE = re.compile(r"\bprivately[\s-](?:owned|run|held|operated)\b|\b(?:owned|run|"
                      r"operated)\s+by\s+(?:a\s+)?private\b|\bin\s+private\s+hands\b|"
                      r"\bprivate(?:ly)?\s+(?:company|firm|owner|business)\b", re.IGNORECASE)
# ... against a source's public or community owner: "owned by Tessford District
# Council", "run by a charity", "council-owned".
_PUBLIC = re.compile(r"\b(?:owned|run|operated)\s+by\s+(?:the\s+|an?\s+|its\s+)?"
                     r"(?:[A-Z][\w-]*\s+){0,3}(?:[Cc]ouncil|[Gg]overnment|[Ss]tate|"
                     r"[Mm]unicipality|[Cc]harity|[Tt]rust|[Cc]o-?operative|[Cc]ommunity)\b|"
                     r"\b(?:publicly|council|state|community)[\s-](?:owned|run)\b")


def rhythm_clash(claim: str, sentence: str) -> ScopeClash | None:
    """A claim saying something happens every week ("The repair café runs every
    Sunday") against the source's clause on the claim's words saying it happens once a
    month ("on the last Sunday of each month"), or a claim saying someone does
    something on their own ("The Trust manages the reserve on its own") against a
    clause naming a partner ("managed jointly with the Environment Agency"), or a
    claim saying it is privately owned against a public or community owner ("owned by
    Tessford District Council", "run by a charity"):
    contradicted, the note naming the source's clause; else None. Every value and word
    of such a claim may match its source, so only these words tell it wrong."""
    for mine, theirs in ((_WEEKLY, _MONTHLY), (_SOLE, _SHARED), (_PRIVATE, _PUBLIC)):
        said = mine.search(claim)
        if said is None or mine.search(sentence) is not None:
            continue
        wanted = terms_of(claim[:said.start()] + " " + claim[said.end():])
        if not terms_of(sentence) & wanted:
            continue  # ("its repair café, which mends ... on the last Sunday of each
            # month": the clause says the claim's words through "which")
        for piece in _BREAK.split(sentence):
            if theirs.search(piece) is not None:
                return ScopeClash("contradicted", said.group(0), piece.strip())
    return None
