"""Honest "not found" for how/what/which questions that ask a named thing for something
no source says (issue 45).

- A question that is not yes/no ("How do I make quillbox wrap words by *syllable*?",
  "What is the *TTL* of ...") names its subject or the page of its object; a word it
  asks that no candidate sentence holds is something the sources never say of it, and
  a sentence about the rest of the question is no answer. Its action verb, said in the
  asker's words, is no such word.
- A name with a number ("HTTP/3", "version 8", "SHA-4") that no source holds with its
  number is another thing than the one the sources speak of ("HTTP/1.1", "versions 1
  through 5").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from deepcite.citations.grounded import grounded_answer
from deepcite.citations.numbered_names import numbered_names, unnamed
from deepcite.citations.question_match import terms_of
from deepcite.types import Source
from tests.unit.conftest import ModulePage

Encoder = Callable[[str, Sequence[str]], list[float]]


@pytest.fixture
def pages(module_page: ModulePage) -> list[Source]:
    """quillwrap speaks of hyphens, width and indentation; ferrynet of HTTP/1.1 and
    identifier versions 1 through 5."""
    page = module_page
    return [
        page(1, "quillwrap", "Wrap and fill paragraphs",
             "Allow breaking hyphenated words when break_on_hyphens is true. "
             "The width argument sets the maximum length of wrapped lines. "
             "Wrapped lines keep their indentation when the indent argument is given."),
        page(2, "ferrynet", "HTTP protocol client",
             "The client speaks HTTP/1.1 to the server and keeps the connection open. "
             "The default port is 80 for plain connections and 443 for TLS. "
             "Each identifier carries a version number from 1 through 5."),
    ]


@pytest.mark.parametrize("question", [
    # quillwrap's page speaks of hyphens and width, never of syllables
    "How do I make quillwrap hyphenate words by syllable?",
    # it keeps indentation, and never says with what
    "How do I keep wrapped lines indented in quillwrap with tabs?",
    # the page speaks of HTTP/1.1 only
    "What is the default port that ferrynet uses for HTTP/3?",
    # versions 1 through 5, not version 8
    "How do I make a version 8 identifier with ferrynet?",
])
def test_what_the_sources_never_say_of_the_named_thing_is_not_found(
        question: str, pages: list[Source], close_in_meaning: Encoder) -> None:
    assert grounded_answer(question, pages, similarity=close_in_meaning) is None


@pytest.mark.parametrize(("question", "expected"), [
    # the action "set" is the asker's word: the page says "sets" another way round
    ("How do I choose the width of lines with quillwrap?", "width argument"),
    ("How do I make quillwrap hyphenate words?", "hyphenated words"),
    ("What is the default port that ferrynet uses for HTTP/1.1?", "default port is 80"),
    ("Which version numbers can a ferrynet identifier carry?", "version number"),
])
def test_what_they_say_of_it_is_still_answered(
        question: str, expected: str, pages: list[Source], close_in_meaning: Encoder) -> None:
    answer = grounded_answer(question, pages, similarity=close_in_meaning)
    assert answer is not None
    assert expected in answer.text


@pytest.mark.parametrize(("question", "expected"), [
    ("What is the default port for HTTP/3?", [("http", "3")]),
    ("How do I make a version 8 UUID?", [("version", "8")]),
    ("Does hashlib support SHA-4 hashes?", [("sha", "4")]),
    ("What changed in Python 3.11?", [("python", "3.11")]),
    ("Who commanded Apollo 11?", [("apollo", "11")]),
    # counts, units, years and orderings name nothing
    ("How do I run 8 workers?", []),
    ("Is the default timeout 30 seconds?", []),
    ("What does level 9 compression do?", []),
    ("Which team won in June 2011?", []),
    ("What are the top 10 modules?", []),
])
def test_names_with_a_number(question: str, expected: list[tuple[str, str]]) -> None:
    assert numbered_names(question) == expected


def test_a_numbered_name_is_held_only_with_its_number_beside_it() -> None:
    texts = [terms_of("The client speaks HTTP/1.1; the port is 3.")]
    assert unnamed("Does it speak HTTP/3?", texts) == ["http 3"]
    assert unnamed("Does it speak HTTP/1.1?", texts) == []
    assert unnamed("Does it speak HTTP/1?", texts) == []
    assert unnamed("Does it speak HTTP/3?", [terms_of("HTTP3 is spoken too.")]) == []


@pytest.fixture
def heaps(module_page: ModulePage) -> list[Source]:
    """quillheap's page, whose NAME line is close to any question about it, and a
    socket page that says "timeout"."""
    page = module_page
    return [
        page(1, "quillheap", "Heap queue helpers",
             "Push an item onto the heap, keeping the heap invariant. "
             "Pop the smallest item off the heap."),
        page(2, "ferrysock", "Low-level networking interface",
             "Set a timeout on blocking socket operations. "
             "The timeout is given in seconds as a float."),
    ]


def very_close(question: str, texts: list[str]) -> list[float]:
    """An encoder that finds the page's NAME line as close as a paraphrase, as e5 finds
    it to any question about its subject, and the rest fairly close."""
    return [0.75 if text.startswith("quillheap -") else 0.5 for text in texts]


def test_a_page_name_line_does_not_answer_what_no_page_of_the_subject_says(
        heaps: list[Source]) -> None:
    # "timeout" is said by the socket page only; quillheap's NAME line only says what
    # quillheap is, however close its meaning
    question = "How do I add a timeout to quillheap.push?"
    assert grounded_answer(question, heaps, similarity=very_close) is None


def test_a_page_name_line_still_says_what_its_subject_is(heaps: list[Source]) -> None:
    answer = grounded_answer("What is the purpose of the quillheap module?", heaps,
                             similarity=very_close)
    assert answer is not None and "Heap queue helpers" in answer.text


def test_a_cjk_yes_no_question_about_a_word_no_source_holds_is_not_found(
        module_page: ModulePage) -> None:
    """"支持蒸蛋糕吗" asks about steaming cakes, which no page says; the product's
    description is close in meaning to any question about it, and is no answer."""
    cooker = module_page(1, "青禾 M3", "电饭煲使用说明",
                         "青禾 M3 是一台家用智能电饭煲，内胆容量为3升。精煮模式需要40分钟。")

    def close(question: str, texts: list[str]) -> list[float]:
        return [0.8] * len(texts)

    assert grounded_answer("青禾 M3 支持蒸蛋糕吗？", [cooker], similarity=close) is None
    answer = grounded_answer("青禾 M3 的精煮模式需要多久？", [cooker], similarity=close)
    assert answer is not None and "40分钟" in answer.text


def test_a_light_verb_no_source_says_is_no_word_the_answer_must_hold(
        heaps: list[Source]) -> None:
    # "take off" is said "pop ... off"; a verb of little meaning of its own, absent from
    # every candidate, weighed as the rarest word and vetoed the sentence that answers
    def fairly_close(question: str, texts: list[str]) -> list[float]:
        return [0.5] * len(texts)

    answer = grounded_answer("What does quillheap take off the heap?", heaps,
                             similarity=fairly_close)
    assert answer is not None and "smallest item" in answer.text
    # the real word a question asks, which no page says, still makes it "not found"
    assert grounded_answer("What does quillheap take off the tree?", heaps,
                           similarity=fairly_close) is None
