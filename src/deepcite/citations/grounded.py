"""Grounded answers: built from the sources' own sentences, for models too small to write one.

A 135M model asked to write a cited answer usually writes something else: a code fence
opener, the question back, a sentence with no ``[n]``. Its answers then fall back to
quoted passages, which is honest but not an answer. This module answers without
trusting the model for any fact, in steps that each have a module of their own:

1. **Candidates.** Every prose sentence of every source, verbatim, with the words of
   the sentence it points back to (:mod:`deepcite.citations.candidates`).
2. **Ranking.** Each sentence scored against the whole question, by its words, the
   kind of answer or intent it gives and, with the embeddings extra, its meaning
   (:mod:`deepcite.citations.sentence_ranking`). When none is relevant there is no
   grounded answer (``None``) and the caller says nothing answers it.
3. **Choice.** The best few sentences within a budget, each said once, near-duplicates
   dropped (the one that says it all kept: :mod:`deepcite.citations.sentence_choice`),
   with the sentence next to the lead that completes it - the one a pronoun points
   back to, the one after that holds the answer or carries on the point
   (:mod:`deepcite.citations.neighbour_sentences`).
4. **Short answer first.** For factual questions (count, amount, share, age, date or
   period, person, place, name, score) a candidate of that kind from the lead sentence
   leads the answer, cited (:mod:`deepcite.citations.short_answer`).
5. **The model helps, never decides facts.** One optional call proposes the short
   answer or a one-line lead; only what the sources hold of it is used
   (:mod:`deepcite.citations.model_lead`).
6. **The text.** Each sentence followed by the ``[n]`` of the source it was copied
   from, so every citation is true by construction
   (:mod:`deepcite.citations.answer_assembly`).

This module is the public entry: :func:`grounded_answer` puts the steps together, and
the names other modules use (:func:`rank_sentences`, :func:`anchor_terms`,
:func:`select` ...) are re-exported here. :func:`~deepcite.citations.answer_mode.use_grounded`
decides when this path replaces the abstractive one.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.citations import answer_type as types
from deepcite.citations.answer_assembly import assemble, fenced
from deepcite.citations.avoid import NOTHING, Avoid
from deepcite.citations.candidates import Sentence, candidate_sentences
from deepcite.citations.cited_answer import CitedAnswer, Completer
from deepcite.citations.described_models import with_model_named
from deepcite.citations.intent import Intent, question_intent
from deepcite.citations.model_lead import (
    LEAD_TOKENS,
    MODEL_SENTENCES,
    ask,
    first_line,
    take_lead,
)
from deepcite.citations.neighbour_sentences import (
    with_answer_after,
    with_antecedent,
    with_continuation,
    with_same_point,
)
from deepcite.citations.question_match import Similarity
from deepcite.citations.sentence_choice import (
    MAX_CHARS,
    MAX_SENTENCES,
    NEAR_DUPLICATE,
    RELATIVE_FLOOR,
    once_each,
    select,
)
from deepcite.citations.sentence_ranking import (
    CONTEXT_WEIGHT,
    CUE_BOOST,
    FACTUAL_KINDS,
    INTENT_BOOST,
    MEANING_WEIGHT,
    MIN_COVERAGE,
    anchor_terms,
    off_topic,
    rank_sentences,
)
from deepcite.citations.short_answer import short_answer
from deepcite.types import Source


def grounded_answer(question: str, sources: Sequence[Source],
                    client: Completer | None = None, *, max_sentences: int = MAX_SENTENCES,
                    max_chars: int = MAX_CHARS, avoid: Avoid = NOTHING,
                    similarity: Similarity | None = None
                    ) -> CitedAnswer | None:
    """An answer made of the sources' best sentences, each cited; see the module docs.

    ``None`` when no sentence of ``sources`` is relevant to ``question``: the caller
    then falls back to quoted passages (or the "no sources" answer). ``client`` is
    optional; with it, one call (purpose ``grounded``) proposes a short answer or a
    lead sentence, and only what the sources support of it is used. A sentence found in
    ``avoid`` (what a report or an earlier turn already says) is not quoted again - a
    follow-up's softly: one whose answer the earlier turn already quoted gets it again
    rather than "not found" (:class:`~deepcite.citations.avoid.Avoid`).
    ``similarity`` scores meaning (see :func:`rank_sentences`).
    """
    # "最便宜的那一款" is the model of the lowest price in the sources' table
    question = with_model_named(question, [s.full_text or s.snippet for s in sources])
    ranked = rank_sentences(question, sources, similarity=similarity)
    ranked = avoid.fresh(ranked)
    ranked = once_each(ranked)  # a sentence two sources repeat is quoted once
    chosen = select(ranked, max_sentences=max_sentences, max_chars=max_chars)
    if not chosen:
        return None
    kind = types.answer_type(question)
    factual = kind in FACTUAL_KINDS
    chosen = (with_answer_after(question, kind, chosen, max_sentences) if factual
              else with_same_point(question, with_continuation(chosen, max_sentences),
                                   max_sentences, max_chars))
    ranked_first = chosen  # the short answer is looked for here before the antecedent
    chosen = with_antecedent(chosen, max_sentences)
    notes = ["grounded", kind]
    reply: str | None = None
    shown = select(ranked, max_sentences=MODEL_SENTENCES, max_chars=2 * max_chars)
    if client is not None:
        reply = ask(client, question, shown, factual=factual)
        if reply is None:
            notes.append("model call failed")
    lead: str | None = None
    if reply is not None and not factual:
        lead, chosen, what = take_lead(reply, question, chosen, shown)
        notes.append(what)
    short: tuple[str, list[int]] | None = None
    if factual:
        proposed = first_line(reply or "")
        found = short_answer(question, kind, ranked_first, proposed)
        if found is None and chosen is not ranked_first:  # "He ...": who "he" is
            found = short_answer(question, kind, chosen, proposed)
        if found is not None:
            answer, numbers, how = found
            short = (answer, numbers)
            notes.append(f"short answer: {how}")
    howto = question_intent(question) is Intent.HOWTO and not factual
    text, example = assemble(chosen, lead=lead, short=short, example=howto)
    if example:
        notes.append("example")
    return CitedAnswer(text=text, model_called=client is not None, notes=notes)


__all__ = [
    "CONTEXT_WEIGHT",
    "CUE_BOOST",
    "FACTUAL_KINDS",
    "INTENT_BOOST",
    "LEAD_TOKENS",
    "MAX_CHARS",
    "MAX_SENTENCES",
    "MEANING_WEIGHT",
    "MIN_COVERAGE",
    "MODEL_SENTENCES",
    "NEAR_DUPLICATE",
    "RELATIVE_FLOOR",
    "Sentence",
    "anchor_terms",
    "candidate_sentences",
    "fenced",
    "grounded_answer",
    "off_topic",
    "rank_sentences",
    "select",
]
