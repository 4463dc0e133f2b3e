"""Questions paraphrase the sentence that answers them: a close meaning outranks repeated
words, inflections meet, and a sentence dense with facts is still prose."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from deepcite.citations.attribution import looks_like_prose
from deepcite.citations.grounded import grounded_answer, rank_sentences
from deepcite.citations.question_match import Similarity
from deepcite.text.stem import term
from deepcite.types import Source

QUESTION = "Where did the abbot become angry at the destruction of church property?"
REPEATS = "The abbot wrote that church property must be kept from destruction and theft."
PARAPHRASE = "During a tour of Umbria, the abbot was enraged at the burning of convents."


def _source(number: int, title: str, text: str) -> Source:
    url = f"https://notes.example/{number}"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text,
                  engine="memory")


SOURCES = [_source(1, "Letters", REPEATS), _source(2, "Travels", PARAPHRASE)]


def _cosines(close: float, rest: float = 0.1) -> Similarity:
    """A scripted sentence encoder: ``close`` for the paraphrase, ``rest`` for the rest."""
    def similarity(question: str, texts: Sequence[str]) -> list[float]:
        return [close if text == PARAPHRASE else rest for text in texts]
    return similarity


def test_a_sentence_close_in_meaning_leads_over_one_that_repeats_the_words() -> None:
    ranked = rank_sentences(QUESTION, SOURCES, similarity=_cosines(0.8))
    assert [s.text for s in ranked][:1] == [PARAPHRASE]
    answer = grounded_answer(QUESTION, SOURCES, similarity=_cosines(0.8))
    assert answer is not None and answer.text.startswith("During a tour of Umbria")


def test_without_meaning_or_with_a_loose_one_the_words_decide() -> None:
    # (the sentence that repeats the words is not far in meaning either: a meaning far
    # from the question's vetoes a few shared words, question_match.DENSE_VETO)
    for similarity in (None, _cosines(0.5, rest=0.45)):
        ranked = rank_sentences(QUESTION, SOURCES, similarity=similarity)
        assert [s.text for s in ranked] == [REPEATS]


@pytest.mark.parametrize(("inflected", "plain"), [
    ("transmitting", "transmit"), ("stopped", "stop"), ("running", "run"),
    ("planned", "plan"), ("called", "call"), ("passed", "pass")])
def test_a_doubled_consonant_before_an_ending_meets_its_word(inflected: str,
                                                             plain: str) -> None:
    assert term(inflected) == term(plain)


def test_theme_is_not_the_word_them() -> None:
    assert term("theme") == term("themes") != term("them")


@pytest.mark.parametrize("sentence", [
    "The official record high for Fresno is 115 °F (46.1 °C), set on July 8, 1905, "
    "while the record low is 17 °F (−8 °C), set on January 6, 1913.",
    "Börte had three more sons, Chagatai (1187—1241), Ögedei (1189—1241), and Tolui "
    "(1190–1232).",
    "The fund paid £250,000 per year, 12% more than in 1998.",
])
def test_a_sentence_dense_with_facts_is_prose(sentence: str) -> None:
    assert looks_like_prose(sentence)


@pytest.mark.parametrize("line", [
    "x = foo(bar) + baz[1]", "client.get(url, timeout=5)", "for item in items: total += 1"])
def test_code_is_still_not_prose(line: str) -> None:
    assert not looks_like_prose(line)


def test_the_sentence_with_the_measure_answers_a_how_hot_question() -> None:
    source = _source(1, "Fresno climate", "Fresno has hot, dry summers. The official "
                     "record high temperature for Fresno is 115 °F (46.1 °C), set on "
                     "July 8, 1905, while the official record low is 17 °F (−8 °C).")
    answer = grounded_answer("What is the record high temperature for Fresno?", [source],
                             similarity=None)
    assert answer is not None
    assert "115 °F (46.1 °C)" in answer.text.split("\n\n")[-1].split("[1]")[0]
