"""What a claim can still be when no sentence states its subject in its words.

A claim whose words find no sentence is mostly ``not_found``; but a source may deny,
forbid or bound what it says in other words ("Dogs are not allowed" against "You can
bring your dog"), split it into cases, give another release, end what it says goes on,
name another licence, deny a table row, give hours against "around the clock", or
place it by one of its distinctive values. Each of those rules looks at the sentences
ranked for the claim; the first that decides gives the verdict. Kept apart from
:mod:`deepcite.factcheck.judge`, whose work starts where a sentence is found.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.factcheck.anchors import anchored
from deepcite.factcheck.cases import split_outright
from deepcite.factcheck.continued import ended_outright
from deepcite.factcheck.hours import all_hours, hours_among
from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.licences import other_licence
from deepcite.factcheck.outright import (
    contradicted_nearly,
    denied_outright,
    forbidden_outright,
    limited_beside,
    scoped_outright,
)
from deepcite.factcheck.passages import Pool, Sentence
from deepcite.factcheck.releases import released
from deepcite.factcheck.restrictions import universal
from deepcite.factcheck.rows import denied_row
from deepcite.factcheck.switch_cells import switched_row
from deepcite.factcheck.value import Value

__all__ = ["hours_outright", "of_every", "unfound"]


def unfound(text: str, claim_terms: frozenset[str], values: Sequence[Value],
            scored: Sequence[tuple[float, Sentence]], pool: Pool,
            known: frozenset[str] | set[str], cosine: dict[int, float]) -> Judgement:
    """The verdict on a claim no sentence of ``scored`` (ranked for it, closest first)
    states by its words: the first rule that decides, else ``not_found``."""
    by_words = sorted(scored, key=lambda pair: (-pair[0], len(pair[1].text)))
    return denied_outright(text, claim_terms, by_words, known) \
        or forbidden_outright(text, claim_terms, by_words) \
        or scoped_outright(text, claim_terms, by_words) \
        or split_outright(text, claim_terms, by_words, pool) \
        or limited_beside(text, claim_terms, by_words, pool) \
        or contradicted_nearly(text, claim_terms, scored, cosine) \
        or released(text, claim_terms, pool) \
        or ended_outright(text, pool) \
        or other_licence(text, pool) \
        or denied_row(text, claim_terms, pool) \
        or switched_row(text, claim_terms, pool) \
        or hours_outright(text, claim_terms, scored, pool) \
        or anchored(text, values, scored) \
        or Judgement("not_found", by_words[0][0])


def hours_outright(text: str, claim_terms: frozenset[str],
                    ranked: Sequence[tuple[float, Sentence]], pool: Pool) -> Judgement | None:
    """"Open around the clock" against hours a sentence ranked next for the claim
    gives (:func:`~deepcite.factcheck.hours.hours_among`), the claim's subject said
    too loosely for any sentence to state it."""
    among = hours_among(text, claim_terms, ranked, of_every(text), pool)
    if among is None:
        return None
    sentence, (draft, source) = among
    score = next(score for score, s in ranked if s is sentence)
    return Judgement("contradicted", score, (quote_of_sentence(sentence),),
                     (Conflict(draft, source, 0),))


def of_every(text: str) -> bool:
    """Whether the claim speaks of every one of its subject, its hours aside ("every
    station ... around the clock"; "around the clock" alone says every hour only)."""
    wide = all_hours(text)
    return universal(text.replace(wide, " ") if wide else text) is not None
