"""A question about a documented subject that asks for something its pages never say (its
license, who maintains it, a feature it lacks) is "not found", not answered with the
subject's introduction; a question its pages do answer, in other words, still is."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from deepcite.citations.grounded import grounded_answer
from deepcite.citations.question_match import Similarity, aspect_missed, terms_of, weigh
from deepcite.types import Source
from tests.unit.conftest import ModulePage


@pytest.fixture
def pages(module_page: ModulePage) -> list[Source]:
    """Two modules' reference pages: their functions, nothing on licenses or maintainers."""
    return [
        module_page(1, "ribbonfold", "Text folding utilities",
                    "When in doubt, consult the module reference at the location listed above. "
                    "The fold function wraps a paragraph so that every line fits the given width. "
                    "The fold function supports tabs, which are expanded to spaces first."),
        module_page(2, "quillsort", "Helpers for sorted lists",
                    "The insert function puts an item where the list stays sorted. "
                    "Equal items keep the order they were inserted in."),
    ]


@pytest.mark.parametrize("question", [
    "What is the license of the ribbonfold module?",
    "Who maintains the ribbonfold module?",
    "Does the quillsort module support a skip list backend?",
    "Does ribbonfold support hyphenation dictionaries?",
    "ribbonfold モジュールのライセンスは何ですか？",
])
def test_an_aspect_the_subject_pages_never_name_is_not_found(
        question: str, pages: list[Source], close_in_meaning: Similarity) -> None:
    assert grounded_answer(question, pages, similarity=close_in_meaning) is None


@pytest.mark.parametrize(("question", "expected"), [
    ("How can I wrap a paragraph so its lines fit a width with ribbonfold?",
     "The fold function wraps a paragraph"),
    ("Where does quillsort insert an item so the list stays sorted?",
     "The insert function puts an item"),
    ("What is the ribbonfold module used for?", "ribbonfold - Text folding utilities"),
    ("What is the purpose of the quillsort module?", "quillsort - Helpers for sorted lists"),
])
def test_a_question_the_pages_answer_in_other_words_is_answered(
        question: str, expected: str, pages: list[Source],
        close_in_meaning: Similarity) -> None:
    answer = grounded_answer(question, pages, similarity=close_in_meaning)
    assert answer is not None and expected in answer.text, question


def test_a_sentence_close_as_a_paraphrase_is_kept_without_the_aspect_word(
        module_page: ModulePage) -> None:
    """The aspect asked may be said in other words ("is licensed under" for "license"):
    a sentence whose meaning is as close as a paraphrase's is not vetoed."""
    pages = [module_page(1, "ribbonfold", "Text folding utilities",
                         "It is distributed under the terms of the Apache 2.0 terms of use.")]

    def very_close(question: str, texts: Sequence[str]) -> list[float]:
        return [0.8 if "Apache" in text else 0.3 for text in texts]

    answer = grounded_answer("What is the license of the ribbonfold module?", pages,
                             similarity=very_close)
    assert answer is not None and "Apache 2.0" in answer.text


def test_a_cjk_question_names_the_subject_kind_in_its_own_words_which_is_no_aspect(
        pages: list[Source]) -> None:
    """"모듈" (module) in "What is the quillsort module?" asked in Korean is a word no
    English title holds: it does not make the module's introduction miss the question."""
    intro = terms_of("quillsort - Helpers for sorted lists.")
    title = terms_of(pages[1].title)
    weights = weigh("quillsort 모듈은 무엇인가요?", [intro])
    assert not aspect_missed(weights, intro, title, 0.6)
    english = weigh("What is the license of the quillsort module?", [intro])
    assert aspect_missed(english, intro, title, 0.6)
