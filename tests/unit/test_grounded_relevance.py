"""Grounded answers answer the whole question: one shared common word lets no sentence in,
an uncovered question is "not found", and the short answer is of the kind asked for."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from deepcite.citations.grounded import grounded_answer, rank_sentences
from deepcite.citations.question_match import Similarity, dense_similarity, key_phrase
from deepcite.collections.index.embeddings import default_model_path
from deepcite.types import Source

DENSE = pytest.param(dense_similarity, id="embeddings", marks=pytest.mark.skipif(
    default_model_path() is None, reason="the embeddings extra is not installed"))
SIMILARITIES = [pytest.param(None, id="words"), DENSE]


def source(number: int, title: str, text: str) -> Source:
    url = f"https://notes.example/{number}"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text,
                  engine="memory")


TOOLS = [
    source(1, "Labels", "Create a new label from the toolbar menu. Labels can be renamed "
           "at any time from the same menu."),
    source(2, "Backups", "To make a backup of the database, run the dump command with the "
           "output file as its argument. The dump holds every table of the database."),
    source(3, "Files", "Configure the logger before opening any file. Each file opened "
           "later is then logged with its size."),
]
FERRIES = [
    source(1, "Timetable", "The last ferry leaves the harbour at nine in the evening. "
           "Ferries run every hour in summer."),
    source(2, "Harbour", "The harbour was built in 1871 and widened in the 1920s. It "
           "shelters 40 fishing boats in winter."),
]


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_a_sentence_sharing_one_common_word_is_not_quoted(
        similarity: Similarity | None) -> None:
    answer = grounded_answer("How do I create a backup of the database?", TOOLS,
                             similarity=similarity)
    assert answer is not None
    assert answer.text.startswith("To make a backup of the database")
    assert "label" not in answer.text.lower()


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_a_question_the_sources_do_not_cover_is_not_found(
        similarity: Similarity | None) -> None:
    for question in ("How do I configure a proxy server?",
                     "How long do ceramic brake discs last?"):
        assert rank_sentences(question, TOOLS + FERRIES, similarity=similarity) == []
        assert grounded_answer(question, TOOLS + FERRIES, similarity=similarity) is None


def test_the_key_phrase_is_the_named_thing_or_the_longest_run_of_content_words() -> None:
    assert key_phrase("When did the Royal Mint move to Llantrisant?") == "Royal Mint"
    assert key_phrase("How do I configure a proxy server?") == "proxy server"
    assert key_phrase("Where is the ceramic brake disc of the car made?") == "ceramic brake disc"


def test_a_how_many_answer_is_a_count_never_a_year() -> None:
    answer = grounded_answer("How many fishing boats does the harbour shelter?", FERRIES,
                             similarity=None)
    assert answer is not None
    assert answer.text.startswith("**40 fishing boats** [2]")


def test_no_short_answer_when_the_lead_sentence_has_none_of_the_kind() -> None:
    harbour = [source(1, "Harbour", "The harbour was built in 1871 to shelter the fishing "
                      "boats of the bay.")]
    answer = grounded_answer("How many fishing boats does the harbour shelter?", harbour,
                             similarity=None)
    assert answer is not None
    assert "**" not in answer.text  # "1871" is a year, not a count
    assert answer.text.startswith("The harbour was built in 1871")


def test_a_when_answer_is_the_period_in_the_lead_sentence() -> None:
    answer = grounded_answer("When was the harbour widened?", FERRIES, similarity=None)
    assert answer is not None
    assert answer.text.startswith("**the 1920s** [2]")


def close_in_meaning(question: str, texts: Sequence[str]) -> list[float]:
    """An encoder that finds every sentence close to the question (as e5 finds a
    module's introduction close to any question naming the module)."""
    return [0.62] * len(texts)


def test_a_made_up_feature_of_a_documented_thing_is_not_found() -> None:
    question = "How do I stream the database backup to a hologram projector?"
    assert grounded_answer(question, TOOLS, similarity=close_in_meaning) is None


def test_an_answerable_paraphrase_still_answers_with_meaning_scored() -> None:
    answer = grounded_answer("How can I back up the database with a dump?", TOOLS,
                             similarity=close_in_meaning)
    assert answer is not None and "dump command" in answer.text


ACCOUNTS = [
    source(1, "Accounts", "The login page of an account asks for its e-mail address and "
           "password. After three failed attempts the account is locked for an hour."),
    source(2, "Setup", "The setup wizard creates the first administrator account."),
    source(3, "Storage", "A backup of the archive is written every night to the second "
           "disk."),
]


@pytest.mark.parametrize("similarity", SIMILARITIES)
@pytest.mark.parametrize(("question", "expected"), [
    ("How do I log in to my account?", "The login page"),
    ("How do I set up the first administrator account?", "The setup wizard"),
    ("How often do I back up the archive?", "A backup of the archive"),
])
def test_a_word_the_question_splits_and_the_sources_join_still_answers(
        similarity: Similarity | None, question: str, expected: str) -> None:
    """"back up" asked, "backup" written: the split word is not a term the sources
    never hold, so it does not veto the sentence that answers."""
    answer = grounded_answer(question, ACCOUNTS, similarity=similarity)
    assert answer is not None and answer.text.startswith(expected), question


def test_a_made_up_word_next_to_a_joined_one_is_still_not_found() -> None:
    question = "How do I back up the archive to a hologram projector?"
    assert grounded_answer(question, ACCOUNTS, similarity=close_in_meaning) is None
