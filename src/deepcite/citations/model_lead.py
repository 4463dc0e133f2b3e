"""The one optional model call of a grounded answer, and what of its reply may be used.

Kept apart because it is the only part of a grounded answer that reads what a model
wrote, and it must never let the model decide a fact. The model is shown the best
sentences, numbered (:func:`ask`), and asked for a short answer (factual questions:
what survives of it is decided by :mod:`deepcite.citations.short_answer`) or a one-line
lead. A lead (:func:`take_lead`) is used only when a selected source holds it as an
exact or fuzzy span (:class:`deepcite.citations.support.SourceIndex`, names and numbers
included), then cited; a lead that repeats a sentence the model was shown is its choice
of the best one, which then comes first. Anything else the model wrote is dropped, and a
failed call leaves the answer standing on the sources alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.citations.answer_assembly import cite
from deepcite.citations.candidates import MIN_WORDS, Sentence, word_count
from deepcite.citations.cited_answer import Completer
from deepcite.citations.markers import clean_markers
from deepcite.citations.question_match import terms_of
from deepcite.citations.sentence_choice import similar
from deepcite.citations.support import SourceIndex
from deepcite.citations.text import neutralise_html
from deepcite.errors import ModelError
from deepcite.security.fencing import UNTRUSTED_NOTICE
from deepcite.security.terminal import one_line
from deepcite.text.cjk import has_cjk
from deepcite.text.cjk_terms import cjk_terms
from deepcite.text.words import content_words

MODEL_SENTENCES = 5  # how many of the best sentences the model is shown
LEAD_TOKENS = 60
_LEAD_SYSTEM = (
    "You answer questions from numbered sentences. Write one short sentence that answers "
    "the question, using only what the sentences say. " + UNTRUSTED_NOTICE
)
_SHORT_SYSTEM = (
    "You answer questions from numbered sentences. Reply with the short answer only (a "
    "name, date, number or place) copied from the sentences: no sentence, no "
    "explanation. " + UNTRUSTED_NOTICE
)


def ask(client: Completer, question: str, shown: Sequence[Sentence], *, factual: bool
        ) -> str | None:
    """The model's reply (purpose ``grounded``) to ``question`` over the ``shown``
    sentences: a short answer when ``factual``, else a lead; ``None`` when the call
    failed."""
    system = _SHORT_SYSTEM if factual else _LEAD_SYSTEM
    try:
        return client.complete("grounded", system, _numbered(question, shown),
                               max_tokens=LEAD_TOKENS, enough=first_line_written)
    except ModelError:
        return None  # the answer stands on the sources alone


def _numbered(question: str, sentences: Sequence[Sentence]) -> str:
    lines = [f"{i}. {one_line(s.text)}" for i, s in enumerate(sentences, 1)]
    return "Sentences:\n" + "\n".join(lines) + f"\n\nQuestion: {question}"


def first_line_written(reply_so_far: str) -> bool:
    """Whether a reply being written already holds its :func:`first_line`, complete: all
    of the reply that is read, so the model may stop there."""
    written, newline, _ = reply_so_far.rpartition("\n")
    return bool(newline) and bool(first_line(written))


def first_line(reply: str) -> str:
    """The first line of prose of ``reply``, without markers, a list number or an
    "Answer:" label: what the model proposes."""
    text, _ = clean_markers(reply, ())
    line = next((ln for ln in text.splitlines() if ln.strip() and "```" not in ln), "")
    line = re.sub(r"^\s*(?:\d+[.)]\s*)?(?:(?:the )?(?:short )?answer(?: is)?\s*[:\-]?\s*)?",
                  "", line, flags=re.IGNORECASE)
    return " ".join(line.split()).strip(" *\"'`.,;:")


def _supporting(claim: str, chosen: Sequence[Sentence]) -> int | None:
    """The number of a chosen sentence's source holding ``claim`` as a span.

    Exact or fuzzy spans only: word overlap would accept a small model's recombination
    of a source's words ("the engine is reduced") that the source never says.
    """
    best: tuple[int, float, int] | None = None
    rank = {"exact": 2, "fuzzy": 1}
    for number, source in {s.source.number: s.source for s in chosen}.items():
        evidence = SourceIndex(source.text).check(claim)
        if evidence.outcome != "supported" or evidence.method not in rank:
            continue
        key = (rank[evidence.method], evidence.score, -number)
        if best is None or key > best:
            best = key
    return -best[2] if best is not None else None


def take_lead(reply: str, question: str, chosen: list[Sentence],
              shown: Sequence[Sentence]) -> tuple[str | None, list[Sentence], str]:
    """Apply the model's lead: (lead text with its marker or None, order, what happened).

    A lead that repeats one of the sentences the model was shown is its choice of the
    best one, which then comes first; any other lead must be supported by a chosen
    sentence's source, or it is dropped.
    """
    line = first_line(reply)
    context = question + " " + " ".join(s.text for s in shown)
    if not MIN_WORDS <= word_count(line) <= 60 or not _meaningful(line) & _meaningful(
            context) or _restates(line, question):
        return None, chosen, "model lead unusable"
    probe = Sentence(chosen[0].source, 0, 0, line, terms_of(line))
    picked = next((s for s in shown if similar(probe, s, inside=False, threshold=0.8)),
                  None)
    if picked is not None:
        rest = [s for s in chosen if (s.source.number, s.position) != (
            picked.source.number, picked.position)]
        if len(rest) == len(chosen):  # a sentence not chosen: it replaces the weakest
            rest = rest[:-1]
        return None, [picked, *rest], "model chose a sentence"
    number = _supporting(line, chosen)
    if number is None:
        return None, chosen, "model lead dropped (unsupported)"
    return cite(neutralise_html(line), number), chosen, "model lead kept (supported)"


def _restates(line: str, question: str) -> bool:
    """Whether a CJK ``line`` says nothing but the question's own terms ("灯塔的写入缓冲区"
    for "灯塔的写入缓冲区是怎么工作的？"): a phrase of the question, no answer to it.
    (CJK only: an English lead of four words or more was always judged by its words.)"""
    if not has_cjk(line):
        return False
    said = set(terms_of(line))
    return not said - set(terms_of(question))


def _meaningful(text: str) -> set[str]:
    """The words of ``text`` that carry meaning: its content words and CJK term pairs."""
    return content_words(text) | set(cjk_terms(text)) if has_cjk(text) else content_words(
        text)


__all__ = ["LEAD_TOKENS", "MODEL_SENTENCES", "ask", "first_line", "take_lead"]
