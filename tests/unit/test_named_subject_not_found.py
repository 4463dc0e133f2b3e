"""A question names what it is about: a sentence from another thing's page, or one that
holds the subject and common words but not what is asked of it, is no answer (issue 45,
honest "not found")."""

from __future__ import annotations

import pytest

from deepcite.citations.grounded import grounded_answer
from deepcite.citations.question_match import Similarity, grammatical_subject, named_subject
from deepcite.types import Source
from tests.unit.conftest import ModulePage


@pytest.fixture
def pages(module_page: ModulePage) -> list[Source]:
    """Two modules' reference pages: ribbonfold says hyphenation, tallymark says counting."""
    return [
        module_page(1, "ribbonfold", "Text folding utilities",
                    "The fold function wraps a paragraph so that every line fits the given width. "
                    "Hyphenation dictionaries are loaded from the ribbonfold data folder."),
        module_page(2, "tallymark", "Counting helpers for data",
                    "This module provides functions for counting and summarising items of data. "
                    "The order that tallymark keeps is the order items were first seen."),
    ]


@pytest.mark.parametrize(("question", "subject"), [
    ("Does tallymark support hyphenation dictionaries?", {"tallymark"}),
    ("How does ribbonfold wrap a line?", {"ribbonfold"}),
    ("Can the tallymark module count words?", {"tallymark"}),
    ("How do I count items with tallymark?", set()),  # the asker is the subject
    ("What is the purpose of tallymark?", set()),  # what is asked, not what about
    ("Where should a value go in the list?", set()),  # a common noun names nothing
])
def test_the_grammatical_subject_is_a_name_after_the_auxiliary(
        question: str, subject: set[str]) -> None:
    assert set(grammatical_subject(question)) == subject


def test_a_thing_named_by_its_kind_is_the_subject_without_an_auxiliary() -> None:
    assert named_subject("How do I compute the spread of my data with the tallymark module?") \
        == {"tallymark"}
    assert named_subject("How do I write a small function without a name?") == frozenset()


@pytest.mark.parametrize("question", [
    # ribbonfold's page says hyphenation; the question asks it of tallymark
    "Does tallymark support hyphenation dictionaries?",
    # tallymark's introduction holds "data" and "module", not the kurtosis asked
    "How do I compute the kurtosis of my data with the tallymark module?",
    # "kurtosis" is said by no page; "data" alone is not what is asked of tallymark
    "Can tallymark estimate the kurtosis of its data?",
])
def test_a_sentence_without_the_subject_or_the_aspect_is_not_found(
        question: str, pages: list[Source], close_in_meaning: Similarity) -> None:
    assert grounded_answer(question, pages, similarity=close_in_meaning) is None


@pytest.mark.parametrize(("question", "expected"), [
    ("Does ribbonfold support hyphenation dictionaries?", "Hyphenation dictionaries are"),
    # "keeps", right after the subject, is its verb: no aspect word the pages must say
    ("What is the order that tallymark keeps?", "The order that tallymark keeps"),
    ("How do I count items of data with the tallymark module?", "counting and summarising"),
])
def test_the_same_pages_still_answer_what_they_say(
        question: str, expected: str, pages: list[Source],
        close_in_meaning: Similarity) -> None:
    answer = grounded_answer(question, pages, similarity=close_in_meaning)
    assert answer is not None and expected in answer.text, question
