"""The short answer a factual question gets first ("**7 million** [3]"), taken only from
the quoted sentences.

Kept apart because it is the one place a model's proposal may become a fact shown in
bold: a proposal counts only when it is, or names, a candidate of the kind the question
asks for (count, amount, date, person, place ...: :mod:`deepcite.citations.answer_type`)
found in the lead sentence, and it is cited where the sources write it in full.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.citations import answer_type as types
from deepcite.citations.candidates import Sentence
from deepcite.citations.neighbour_sentences import follows
from deepcite.citations.table_cells import asked_cells
from deepcite.text.words import contains_words


def short_answer(question: str, kind: str, chosen: Sequence[Sentence],
                 proposed: str) -> tuple[str, list[int], str] | None:
    """The short answer of the lead sentence, the sources citing it, how it was chosen.

    Only a candidate of the kind the question asks for
    (:mod:`deepcite.citations.answer_type`) found in the lead sentence qualifies: the
    model's proposal when it is, or names, one of them; otherwise the lead sentence's
    best. A lead sentence without one gives no short answer: the cited sentence still
    answers, and a year is no answer to "how many".
    """
    if not chosen:
        return None
    lead = chosen[0]
    # a table row: from the cells of the column the question names ("S3", "周末")
    cells = asked_cells(question, lead.text, lead.columns) if lead.columns else None
    answer = types.pick(kind, cells, question, proposed) if cells else None
    if answer is None:
        answer = types.pick(kind, lead.text, question, proposed)
    if answer is None and len(chosen) > 1 and follows(chosen[1], lead):
        answer = types.pick(kind, chosen[1].text, question, proposed)
    if answer is None or not _short_enough(question, answer):
        return None
    # "约8小时": the page says the value is about that, and so does the answer
    answer = next((word + answer for word in _ABOUT_WORDS
                   if any(word + answer in s.text for s in chosen[:2])), answer)
    how = ("model" if (proposed and _contains(proposed, answer)) or _contains(answer, proposed)
           else "lead sentence")
    # Cited where it is written in full: "Countries" alone also occurs in other sentences.
    numbers = list(dict.fromkeys(s.source.number for s in chosen if _contains(s.text, answer)))
    return answer, numbers, how


#: Words before a number that say it is approximate ("约8小时", "大约3天").
_ABOUT_WORDS = ("大约", "约", "約", "およそ", "약 ", "약")


def _short_enough(question: str, answer: str | None) -> bool:
    """A short answer is a few words and not the question's own subject."""
    return answer is not None and len(answer.split()) <= 8 and not _contains(question, answer)


_contains = contains_words  # whole-word containment, one home: deepcite.text.words


__all__ = ["short_answer"]
