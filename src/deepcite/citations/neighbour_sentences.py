"""The sentences next to the lead that complete it: the one before that a pronoun points
back to, the one after that holds the answer or carries on the point.

Kept apart from choosing (:mod:`deepcite.citations.sentence_choice`) because these
sentences are never chosen on their merits: they share few of the question's words, and
are quoted for what the lead sentence lacks without them. "He also describes the
distillation of sea-water" needs the sentence that names him; "The first recorded
travels by Europeans to China date from this time." is followed by the one that names
Marco Polo; "To register a station, run ``station add``." by what the tool then does.
Only the lead's own source is read, and only sentences that may be quoted at all
(:func:`~deepcite.citations.sentence_ranking.admissible`).
"""

from __future__ import annotations

from dataclasses import replace

from deepcite.citations import answer_type as types
from deepcite.citations.candidates import Sentence, candidate_sentences, opens_with_pointer
from deepcite.citations.intent import Intent, gives, question_intent
from deepcite.citations.sentence_choice import MAX_CHARS, MAX_SENTENCES, similar
from deepcite.citations.sentence_ranking import admissible
from deepcite.text.stopwords import STOPWORDS


def follows(sentence: Sentence, before: Sentence) -> bool:
    """Whether ``sentence`` comes right after ``before`` in the same source."""
    return sentence.rank == before.rank and sentence.position == before.position + 1


def _neighbour(sentence: Sentence, offset: int) -> Sentence | None:
    """The quotable sentence ``offset`` places from ``sentence`` in its source (-1: the
    one before, +1: the one after), with the same search rank; ``None`` if there is none."""
    return next((replace(s, rank=sentence.rank) for s in candidate_sentences([sentence.source])
                 if s.position == sentence.position + offset and admissible(s)), None)


def with_answer_after(question: str, kind: str, chosen: list[Sentence],
                      limit: int = MAX_SENTENCES) -> list[Sentence]:
    """``chosen`` with the sentence after the lead put second, when the lead holds no
    answer of the kind asked for and that next sentence does.

    The sentence that best matches a question often restates it ("The first recorded
    travels by Europeans to China date from this time.") and the answer follows ("The
    most famous traveller of the period was Marco Polo ..."): the next sentence shares
    few of the question's words, so it would never be chosen on its own.
    """
    lead = chosen[0]
    if types.holds(kind, lead.text, question):
        return chosen
    after = _neighbour(lead, +1)
    if after is None or not types.holds(kind, after.text, question):
        return chosen
    return _second(chosen, after, limit)


def with_continuation(chosen: list[Sentence], limit: int = MAX_SENTENCES
                      ) -> list[Sentence]:
    """``chosen`` with the sentence after the lead put second, when it opens by pointing
    back to the lead ("This allows ...", "It ...").

    The sentence that best matches a question often sets the scene ("The Mini boxes
    connect to the main box over Wi-Fi.") and the next one, pointing back to it, says
    what the question asks ("This allows all boxes in a household to share
    recordings."). For a factual question :func:`with_answer_after` does this by the
    kind of answer the next sentence holds.
    """
    lead = chosen[0]
    after = _neighbour(lead, +1)
    if after is None or after.context != lead.terms or not opens_with_pointer(after.text):
        return chosen
    return _second(chosen, after, limit)


def with_same_point(question: str, chosen: list[Sentence], limit: int = MAX_SENTENCES,
                    max_chars: int = MAX_CHARS) -> list[Sentence]:
    """``chosen`` with the sentence after the lead put second, when it is in the lead's
    passage and carries on its point: it names what the lead names, or, for a why
    question whose lead only names the behaviour, it gives the reason.

    An instruction is often half the answer: "To register a station, run ``station
    add``." is followed by "Tidewell then contacts the station and stores its serial
    number."; "Stations buffer readings for ten minutes." by "This is done to save
    battery power". The next sentence shares few of the question's words, so it is
    never chosen on its own. Only the lead's own paragraph or list item is looked at: a
    neighbour across a heading or a blank line makes another point.
    """
    lead = chosen[0]
    after = _neighbour(lead, +1)
    if after is None or lead.passage < 0 or after.passage != lead.passage:
        return chosen
    intent = question_intent(question)
    shared = {t for t in lead.terms if t not in STOPWORDS} & set(after.terms)
    reason = intent is Intent.REASON and gives(intent, after.text) and not gives(
        intent, lead.text)
    if not (shared or reason or opens_with_pointer(after.text)):
        return chosen
    # one over the limit: the continuation is part of the lead, not a sentence of its own
    grown = _second(chosen, after, limit + 1)
    while len(grown) > 2 and sum(len(s.text) for s in grown) > max_chars:
        grown.pop()
    return grown


def _second(chosen: list[Sentence], after: Sentence, limit: int) -> list[Sentence]:
    """``chosen`` with ``after``, the sentence following the lead, put second; as it is
    when that sentence, or one like it, is already chosen."""
    lead = chosen[0]
    if any(follows(s, lead) or similar(s, after) for s in chosen):
        return chosen
    return [lead, after, *chosen[1:]][:limit]


def with_antecedent(chosen: list[Sentence], limit: int = MAX_SENTENCES
                    ) -> list[Sentence]:
    """``chosen`` with the sentence before the lead put first, when the lead opens with a
    pronoun or demonstrative that points back to it.

    "He also describes the distillation of sea-water for drinking" answers "Who wrote
    about the distillation of drinking water?" only with the sentence before it, which
    names him; quoted alone it names no one, and a reader cannot tell who "he" is. So
    for "This created new orders ...": what "this" is, is the answer to "What created
    them?". ("The tower was completed in 1889" after "Construction of the tower began"
    reads well alone: a noun that points back needs no antecedent quoted.)
    """
    lead = chosen[0]
    if lead.position == 0 or not lead.context or not opens_with_pointer(lead.text):
        return chosen
    before = _neighbour(lead, -1)
    if before is None or before.terms != lead.context:
        return chosen
    rest = [s for s in chosen if not (s.rank == lead.rank and s.position == before.position)]
    return [before, *rest][:limit]  # first, when it was chosen further down


__all__ = [
    "follows",
    "with_answer_after",
    "with_antecedent",
    "with_continuation",
    "with_same_point",
]
