"""Contradictions found outright: a sentence that denies, bans or limits what a claim
says, when the judge's best sentence does not (it may say fewer of the claim's words
than the sentence that states the claim's subject).

Split from :mod:`deepcite.factcheck.judge`, which calls these after its own rules: each
returns a :class:`~deepcite.factcheck.judgement.Judgement` quoting the sentence, or None.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.factcheck.clauses import quantified_elsewhere
from deepcite.factcheck.conflicts import denial_of
from deepcite.factcheck.judgement import (
    DENIAL_CANDIDATES,
    DENIAL_EXTRA,
    DENIAL_FLOOR,
    MEANING_FOUND,
    NEARLY_CLOSE,
    NEARLY_FOUND,
    Conflict,
    Judgement,
    quote_of_sentence,
)
from deepcite.factcheck.names import name_groups
from deepcite.factcheck.negation import denied
from deepcite.factcheck.other_words import forbidden
from deepcite.factcheck.passages import Pool, Sentence
from deepcite.factcheck.restrictions import (
    ScopeClash,
    always,
    beyond_only,
    limit_clash,
    rhythm_clash,
    scope_clash,
    universal,
)
from deepcite.factcheck.terms import terms_of

__all__ = ["contradicted_nearly", "denied_outright", "denied_terms", "forbidden_outright",
           "limited", "limited_beside", "scoped_outright"]


def denied_outright(text: str, claim_terms: frozenset[str],
                     scored: Sequence[tuple[float, Sentence]],
                     known: frozenset[str] | set[str]) -> Judgement | None:
    """A short sentence made only of the claim's words that denies it ("There are no
    snakes on Veldra" against "Veldra has a population of venomous snakes"): said in
    fewer words than the claim, it scores too low to be its subject, yet contradicts
    it. A negation (either side's) governing one of the words both say lets the
    sentence say a few more words of its own ("Tours must be booked in advance" against
    "Tours can be joined without booking")."""
    claim_denies = denied_terms(text)  # the same for every sentence
    for score, sentence in scored[:DENIAL_CANDIDATES]:
        if score < DENIAL_FLOOR:
            break
        # its own words beyond the claim's may only be names (the subject the claim
        # calls "the app") and one more ("no minimum term")
        extra = sentence.terms - claim_terms
        names = frozenset(t for a, b in name_groups(sentence.text, known)
                          for t in terms_of(sentence.text[a:b]))
        shared = sentence.terms & claim_terms
        # a negation governing one of the claim's own words says more than its length
        # ("the lido does not accept cash" against "You can pay in cash")
        governs = bool((claim_denies | denied_terms(sentence.text)) & shared)
        if len(shared) >= 2 and len(extra - names) <= (DENIAL_EXTRA if governs else 1):
            denial = denial_of(text, sentence.text, shared)
            if denial is not None:
                quote = quote_of_sentence(sentence)
                return Judgement("contradicted", score, (quote,),
                                 (Conflict(denial[0], denial[1], 0),))
    return None


def contradicted_nearly(text: str, claim_terms: frozenset[str],
                         scored: Sequence[tuple[float, Sentence]],
                         cosine: dict[int, float]) -> Judgement | None:
    """A sentence nearly on the claim's subject - its share of the claim's words and its
    closeness in meaning short of :data:`MEANING_FOUND` by less than
    :data:`NEARLY_FOUND` - that denies the claim or limits what the claim says of all
    ("There is no Linux version" against "runs on Windows, macOS, Linux ...", "Pupils
    may wear any jewellery" against "Jewellery is not allowed, apart from studs"): a
    short claim contradicted in other words says few of the sentence's, yet the
    sentence contradicts it. Only with a sentence encoder."""
    if not cosine:
        return None
    for score, sentence in scored[:DENIAL_CANDIDATES]:
        closeness = cosine.get(id(sentence), 0.0)
        if score + closeness < MEANING_FOUND - NEARLY_FOUND or score < DENIAL_FLOOR \
                or closeness < NEARLY_CLOSE:
            continue
        shared = claim_terms & sentence.terms
        found = (denial_of(text, sentence.text, shared) if shared else None) \
            or forbidden(text, sentence.text, claim_terms)
        clash = limit_clash(text, sentence.text) or scope_clash(text, sentence.text)
        if found is None and clash is not None and clash.outcome == "contradicted" \
                and not quantified_elsewhere(text, sentence.text, sentence.terms):
            found = (clash.draft, clash.source)
        if found is not None:
            return Judgement("contradicted", score, (quote_of_sentence(sentence),),
                             (Conflict(found[0], found[1], 0),))
    return None


def forbidden_outright(text: str, claim_terms: frozenset[str],
                        scored: Sequence[tuple[float, Sentence]]) -> Judgement | None:
    """A sentence forbidding what the claim allows ("Dogs are not allowed anywhere on
    the reserve" against "Well-behaved dogs are welcome on a lead"): the ban says few of
    the claim's words, so it scores too low to be its subject, yet contradicts it."""
    for score, sentence in scored[:DENIAL_CANDIDATES]:
        if score < DENIAL_FLOOR:
            break
        pair = forbidden(text, sentence.text, claim_terms)
        if pair is not None:
            return Judgement("contradicted", score, (quote_of_sentence(sentence),),
                             (Conflict(pair[0], pair[1], 0),))
    return None


def limited(claim: str, sentence: str,
            claim_terms: frozenset[str] | None = None) -> ScopeClash | None:
    """A contradicting clash of the claim's scope with ``sentence`` (an exclusive
    restriction against the claim's "every", a monthly day against its weekly one), or
    None: a condition the neighbour states leaves the claim as it was. With
    ``claim_terms``: only where the words before the restriction - what it limits - say
    one of them ("Environment variables are read only when no flag is set" limits the
    variables, not what the claim says of flags)."""
    if claim_terms is not None:
        cut = _RESTRICTING.search(sentence)
        if cut is not None and not terms_of(sentence[:cut.start()]) & claim_terms:
            return None
    clash = scope_clash(claim, sentence) or rhythm_clash(claim, sentence)
    return clash if clash is not None and clash.outcome == "contradicted" else None


_RESTRICTING = re.compile(r"\b(?:only|except|unless|solely|exclusively)\b", re.IGNORECASE)


def denied_terms(text: str) -> set[str]:
    """The terms of the words a negation in ``text`` governs (:func:`denied`)."""
    return {t for words in denied(text) for t in terms_of(words)}


def scoped_outright(text: str, claim_terms: frozenset[str],
                     scored: Sequence[tuple[float, Sentence]]) -> Judgement | None:
    """A sentence saying the claim's words for a part of the year or week only, where
    the claim says they hold always ("It is open all year" against "The lido is open
    from May to September"): said of a pronoun's subject in few words, it scores too low
    to be the claim's subject, yet contradicts it."""
    for score, sentence in scored[:DENIAL_CANDIDATES]:
        # "Guided walks run every Sunday morning" against "Guided walks leave ... on
        # the first Sunday of each month": two of the claim's words and a monthly day
        if score >= DENIAL_FLOOR and len(claim_terms & sentence.terms) >= 2:
            rhythm = rhythm_clash(text, sentence.text)
            if rhythm is not None:
                return Judgement("contradicted", score, (quote_of_sentence(sentence),),
                                 (Conflict(rhythm.draft, rhythm.source, 0),))
    wide = always(text)
    if wide is None:
        return None
    rest = claim_terms - terms_of(wide)
    if not rest:
        return None
    for score, sentence in scored[:DENIAL_CANDIDATES]:
        # every word of the claim but its "always" is the floor here (the words of
        # "all year round" weigh against a sentence that says them otherwise)
        if rest <= sentence.terms:
            clash = scope_clash(text, sentence.text)
            if clash is not None and clash.outcome == "contradicted":
                return Judgement("contradicted", score, (quote_of_sentence(sentence),),
                                 (Conflict(clash.draft, clash.source, 0),))
    return None


def limited_beside(text: str, claim_terms: frozenset[str],
                    scored: Sequence[tuple[float, Sentence]], pool: Pool) -> Judgement | None:
    """A sentence next to one saying two of the claim's words that restricts what the
    claim lists to one item ("`--gpu` - do the resizing on the graphics card. Supported
    on Linux only" against "speeds up resizing on Windows and macOS as well as on
    Linux"): the claim, worded apart from its source, is not its subject by words, yet
    the restriction contradicts it."""
    for score, sentence in scored[:DENIAL_CANDIDATES]:
        if score < DENIAL_FLOOR or len(claim_terms & sentence.terms) < 2:
            continue
        for other in pool.by_passage[sentence.passage]:
            if abs(other.index - sentence.index) == 1 and universal(text) is None:
                clash = beyond_only(text, other.text)
                if clash is not None:
                    return Judgement("contradicted", score, (quote_of_sentence(other),),
                                     (Conflict(clash.draft, clash.source, 0),))
    return None
