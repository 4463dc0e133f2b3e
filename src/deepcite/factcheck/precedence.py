"""Which of two things comes first: a claim's precedence ("flags beat environment
variables", "checks the variable first and only falls back to the file") against the
order its source gives ("resolved in this order, highest first: 1. command-line flags
2. environment variables ...", "precedence: the flag, then the variable", "flags
override both files").

Documentation states an order as a list or a chain, rarely in the claim's words, so the
words alone find "partly" or nothing; and the same two things in the other order share
every word with the claim. The order decides: the claim's first thing ranked after its
second in the source's order contradicts it (the note gives the source's order), ranked
before it supports it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deepcite.factcheck.judgement import FOUND, Conflict, Judgement, Quote, quote_of_sentence
from deepcite.factcheck.passages import Pool, Sentence
from deepcite.factcheck.terms import terms_of

__all__ = ["Order", "claim_order", "judge_order", "source_orders"]

_PRONOUN = frozenset({"it", "them", "this", "that", "these", "those", "one"})

# "A takes precedence over B", "A has priority" (B left to the sentence before)
_TAKES = re.compile(r"(?P<a>[^,;:.]+?)\s+(?:always\s+)?(?:tak(?:e|es)|ha(?:s|ve))\s+"
                    r"(?:precedence|priority)(?:\s+over\s+(?P<b>[^,;:.]+))?", re.IGNORECASE)
# "A beats B", "A wins over B", "A overrides B"
_BEATS = re.compile(r"(?P<a>[^,;:.]+?)\s+(?:always\s+)?(?:win(?:s)?\s+(?:over|against)|"
                    r"beat(?:s)?|override(?:s)?|trump(?:s)?|overrule(?:s)?|outrank(?:s)?)\s+"
                    r"(?P<b>[^,;:.]+)", re.IGNORECASE)
# "checks A first and only falls back to B", "tries A first, then B"
_FIRST = re.compile(r"\b(?:check|read|use|tr(?:y|ie)|look(?:s)?\s+at|consult|prefer)s?\s+"
                    r"(?P<a>[^,;:.]+?)\s+first\b,?\s*(?:and\s+)?(?:only\s+)?(?:then\s+)?"
                    r"(?:(?:falls?|goes|go)\s+back\s+(?:on|to)\s+)?"
                    r"(?P<b>[^,;:.]+?)(?=\s+(?:if|when|unless|only)\b|[,;:.]|$)",
                    re.IGNORECASE)
# where "A, then B" or a numbered list is an order: the words saying so
_ORDER_WORDS = re.compile(r"\b(?:order|precedence|priority|resolv\w*|looked\s+up|"
                          r"checked|tried|first)\b", re.IGNORECASE)
_LOWEST_FIRST = re.compile(r"\blowest\s+(?:priority\s+)?first\b", re.IGNORECASE)
_NUMBERED = re.compile(r"^[ \t]*(?P<n>\d{1,2})[.)][ \t]+(?P<item>[^\n]+)$", re.MULTILINE)
_THEN = re.compile(r",?\s+then\s+", re.IGNORECASE)
# a bound's tail the claim adds to a thing: "B if that's not set"
_TAIL = re.compile(r"\s+(?:if|when|unless|only)\b.*$", re.IGNORECASE)


@dataclass(frozen=True)
class Order:
    """Things a source ranks, first (the one that wins) first, and where it says so:
    passage ``passage`` at ``start``..``end``."""

    items: tuple[str, ...]
    passage: int
    start: int
    end: int


def claim_order(text: str) -> tuple[str, str | None] | None:
    """The thing the claim ranks first and the one it ranks after it (None where the
    claim leaves it out: "flags take precedence"), or None where it states no order."""
    for pattern in (_FIRST, _TAKES, _BEATS):
        match = pattern.search(text)
        if match is None:
            continue
        first = match.group("a")
        after = match.group("b")
        if after is not None:
            after = _TAIL.sub("", after).strip() or None
        if not terms_of(first) or (after is not None and not terms_of(after)):
            continue
        return first.strip(), after
    return None


def source_orders(texts: Sequence[str]) -> list[Order]:
    """The orders the passages state: numbered lists under a line saying they are an
    order, "A, then B" chains in a sentence saying so, and "A overrides B"."""
    orders: list[Order] = []
    for number, text in enumerate(texts):
        orders += _numbered(number, text)
        for sentence in re.finditer(r"[^.\n;]+(?:\n(?![ \t]*\n)[^.\n;]+)*", text):
            said = sentence.group(0)
            if _ORDER_WORDS.search(said) and _THEN.search(said):
                tail = said.split(":", 1)[-1]
                items = tuple(i.strip(" `*-") for i in _THEN.split(tail) if i.strip())
                if len(items) >= 2:
                    orders.append(Order(items, number, sentence.start(), sentence.end()))
            for match in _BEATS.finditer(said):
                pair = (match.group("a").split(" and ")[-1].strip(),
                        match.group("b").strip())
                if not _pronoun(pair[1]) and not _pronoun(pair[0]):
                    orders.append(Order(pair, number, sentence.start() + match.start(),
                                        sentence.start() + match.end()))
    return orders


def _numbered(number: int, text: str) -> list[Order]:
    """Numbered lists whose line before says they are an order (highest first unless
    it says "lowest first")."""
    orders: list[Order] = []
    run: list[re.Match[str]] = []
    for match in [*_NUMBERED.finditer(text), None]:
        if match is not None and run and int(match.group("n")) == int(run[-1].group("n")) + 1:
            run.append(match)
            continue
        if len(run) >= 2:
            before = text[:run[0].start()].rstrip().rsplit("\n", 1)[-1]
            if _ORDER_WORDS.search(before):
                items = tuple(m.group("item").strip(" `*") for m in run)
                if _LOWEST_FIRST.search(before):
                    items = items[::-1]
                orders.append(Order(items, number, run[0].start(), run[-1].end()))
        run = [match] if match is not None and match.group("n") == "1" else []
    return orders


def _pronoun(phrase: str) -> bool:
    words = phrase.lower().split()
    return not words or words[0] in _PRONOUN


def _rank(phrase: str, items: Sequence[str]) -> int | None:
    """The item ``phrase`` names: the one sharing most of its words, if one does."""
    wanted = terms_of(phrase)
    shares = [len(wanted & terms_of(item)) for item in items]
    best = max(shares, default=0)
    if not best or shares.count(best) > 1:
        return None
    return shares.index(best)


def judge_order(text: str, pool: Pool) -> Judgement | None:
    """The verdict on a claim stating an order, from the first order of the passages
    naming both its things (the first ranked first where the claim names one only);
    None where the claim states none or no passage orders its things."""
    claimed = claim_order(text)
    if claimed is None:
        return None
    first, after = claimed
    for order in source_orders(pool.texts):
        mine = _rank(first, order.items)
        theirs = _rank(after, order.items) if after is not None else None
        if mine is None or (after is not None and (theirs is None or theirs == mine)):
            continue
        if after is None and len(order.items) != 2:
            continue
        quotes = _quotes(pool, order)
        if not quotes:
            continue
        ahead = mine < theirs if theirs is not None else mine == 0
        if ahead:
            return Judgement("supported", FOUND, quotes,
                             stated=tuple(x for x in (first, after) if x is not None))
        source = ", then ".join(order.items)
        draft = f"{first} before {after}" if after is not None else f"{first} first"
        return Judgement("contradicted", FOUND, quotes, (Conflict(draft, source, 0),))
    return None


def _quotes(pool: Pool, order: Order) -> tuple[Quote, ...]:
    """The passage's sentences where it states the order."""
    found: list[Sentence] = [s for s in pool.by_passage.get(order.passage, ())
                             if s.start < order.end and order.start < s.end]
    return tuple(quote_of_sentence(s) for s in found[:3])
