"""A sentence that names the question's words in passing, in a document about
something else, does not lead over the documents titled by the question's subject.

The logging manual's "sub-areas 'read CSV files'" holds every word of "How do I read a
CSV file?" and led the demo's answer above the csv manual. When most of the sources'
documents are titled by a word of the question, a source titled by none weighs less
(``sentence_ranking.OFF_TITLE``); it is not removed, so it still answers when the
titled documents do not.
"""

from __future__ import annotations

import pytest

from deepcite.citations import sentence_ranking
from deepcite.citations.grounded import grounded_answer, rank_sentences
from deepcite.types import Source


def _source(number: int, title: str, text: str) -> Source:
    url = f"file:///docs/{number}.txt"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text[:80],
                  engine="collection", full_text=text)


KILN = [
    _source(1, "glaze - mixing and firing glazes",
            "Glazes are mixed from a dry powder and water. Sift the glaze twice before "
            "dipping so that no lumps reach the pot."),
    _source(2, "alarms - the kiln controller's alarms",
            "Alarm groups can be nested (for example a group for firing might hold the "
            "sub-groups mix glaze batches, fire bisque and cool slowly). Each group has "
            "its own sound."),
    _source(3, "glaze - recipes",
            "A glaze batch for stoneware fires at cone six. Stir it in a bucket with a "
            "paint stirrer on a drill."),
]


def test_a_passing_mention_in_an_off_subject_document_does_not_lead() -> None:
    ranked = rank_sentences("How do I mix a glaze batch?", KILN)
    assert ranked and ranked[0].source.number in {1, 3}, [s.text for s in ranked]
    answer = grounded_answer("How do I mix a glaze batch?", KILN)
    assert answer is not None and not answer.text.startswith("Alarm groups")


def test_the_off_subject_document_still_answers_when_it_alone_does() -> None:
    question = "How are alarm groups nested?"
    answer = grounded_answer(question, KILN)
    assert answer is not None and answer.text.startswith("Alarm groups can be nested")


def test_titles_that_name_nothing_of_the_question_change_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pages = [_source(n, f"Page {n}", s.full_text or "") for n, s in enumerate(KILN, 1)]
    question = "How do I mix a glaze batch?"
    ranked = [s.text for s in rank_sentences(question, pages)]
    monkeypatch.setattr(sentence_ranking, "OFF_TITLE", 1.0)
    assert ranked and [s.text for s in rank_sentences(question, pages)] == ranked
