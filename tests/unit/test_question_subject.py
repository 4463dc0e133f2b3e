"""The question's subject decides what is about it: a source sharing the question's
common words but not its subject leads no answer and feeds no follow-up."""

from __future__ import annotations

from typing import Any

import pytest

from deepcite.citations.grounded import grounded_answer, rank_sentences
from deepcite.citations.question_match import subject_terms, terms_of
from deepcite.research import Researcher
from deepcite.research.questions import expansion_terms
from deepcite.types import Source
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "Where are axolotls found in large numbers?"
ABOUT = [
    "Axolotls live in the lake complex of Xochimilco. Axolotls are found in canals "
    "there, and axolotls breed in spring.",
    "In shallow canals where axolotls gather in large numbers, they eat worms and "
    "insect larvae; axolotls hide in the weeds by day.",
    "Axolotls keep their gills as adults. Axolotls regrow lost limbs within weeks.",
]
# Shares "found", "large" and "numbers" with the question, not its subject.
DISTRACTOR = ("Large prime numbers are found today with computers, and the largest known "
              "prime has millions of digits.")


def _source(number: int, title: str, text: str) -> Source:
    url = f"https://notes.example/{number}"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text,
                  engine="memory")


def _sources() -> list[Source]:
    return [_source(1, "Primes", DISTRACTOR),
            *(_source(n, f"Axolotl {n}", text) for n, text in enumerate(ABOUT, start=2))]


def test_the_subject_is_the_term_half_the_sources_hold_that_they_say_most() -> None:
    docs = [terms_of(text) for text in [DISTRACTOR, *ABOUT]]
    wanted = {"axolotl", "found", "larg", "number"}
    assert subject_terms(wanted, docs) == {"axolotl"}
    # "found" is in two of the four as well, but said once each: not the subject
    assert subject_terms({"axolotl", "found"}, docs) == {"axolotl"}
    assert subject_terms({"found", "gill"}, docs) == {"found"}  # the best there is
    # held by more documents, said less often: a common verb, not the subject
    directives = [terms_of(t) for t in (
        "Directives create rights. A directive binds each member state; the directive "
        "sets a deadline.", "The 1994 directive on works councils; that directive "
        "applies to large firms.", "Studios created new shows.", "Rocks are created by "
        "heat.")]
    assert subject_terms({"directiv", "creat"}, directives) == {"directiv"}
    assert subject_terms(wanted, docs[:1]) == frozenset()  # one document agrees on nothing
    assert subject_terms({"gills"}, docs) == frozenset()  # held by fewer than half


@pytest.mark.parametrize("order", ["distractor first", "distractor last"])
def test_a_source_without_the_subject_gives_no_sentence(order: str) -> None:
    sources = _sources() if order == "distractor first" else _sources()[::-1]
    ranked = rank_sentences(QUESTION, sources)
    assert ranked and all("prime" not in s.text.lower() for s in ranked)
    answer = grounded_answer(QUESTION, sources)
    assert answer is not None
    assert "large numbers" in answer.text and "prime" not in answer.text.lower()


def test_without_a_shared_subject_every_source_still_counts() -> None:
    sources = [_source(1, "Primes", DISTRACTOR),
               _source(2, "Sieve", "Large numbers were found to be prime by sieving.")]
    assert any("prime" in s.text.lower() for s in rank_sentences(QUESTION, sources))


def test_feedback_terms_come_from_sources_about_the_subject() -> None:
    found = [passage(s.title, s.snippet) for s in _sources()]
    terms = expansion_terms(QUESTION, found)
    assert terms and not {"prime", "computers", "digits", "millions"} & set(terms)


def test_followup_results_that_do_not_name_the_subject_are_left_out(
        make_settings: Any) -> None:
    passages = [
        *(passage(f"Axolotl {n}", text) for n, text in enumerate(ABOUT, start=1)),
        passage("Primes", DISTRACTOR),
        # shares only the follow-up's added word with it: found by the follow-up alone
        passage("Mersenne", "Mersenne primes: canals of data weed out composites."),
    ]
    model = ScriptedChatModel(script={"questions": [""],
                                      "followups": ["axolotls found large numbers canals"],
                                      "synthesis": ["Axolotls gather in canals [1]."]})
    result = Researcher(make_settings(iterations=2, query_planning="model"), model,
                        [MemoryEngine(passages)]).run(QUESTION)
    assert "canals" in result.questions_by_iteration[2][0]
    assert not [s for s in result.sources if s.title == "Mersenne"]
    assert [s for s in result.sources if s.title.startswith("Axolotl")]


CLIMB = ("Who was the first known climber to reach the summit and return?")
CLIMB_SOURCES = [
    _source(1, "Summit", "The first known climbs to the summit and return date from this "
            "time. The most famous climber of the period was Tenzing Norgay, whose account "
            "of the route astounded his readers. Porters carried tents and oxygen."),
    _source(2, "Routes", "Routes to the summit were mapped in the 1950s by surveyors."),
]


def test_the_answer_after_a_lead_that_restates_the_question_is_quoted() -> None:
    answer = grounded_answer(CLIMB, CLIMB_SOURCES)
    assert answer is not None
    text = answer.text
    assert "Tenzing Norgay" in text.split("\n\n")[0]  # the short answer names him
    lead, after = text.index("first known climbs"), text.index("most famous climber")
    assert lead < after  # in the source's order, right after the lead
    assert "Porters" not in text


def test_a_lead_that_holds_the_answer_gets_no_neighbour() -> None:
    sources = [_source(1, "Summit", "Tenzing Norgay was the first known climber to reach "
                       "the summit and return. Porters carried tents and oxygen for him.")]
    answer = grounded_answer(CLIMB, sources)
    assert answer is not None and "Porters" not in answer.text


@pytest.mark.parametrize(("plural", "single"), [
    ("committees", "committee"), ("employees", "employee"), ("fees", "fee"),
    ("boxes", "box"), ("classes", "class"), ("uses", "use"), ("ties", "tie"),
    ("processes", "process"), ("stories", "story"), ("engines", "engine"),
])
def test_a_plural_meets_its_singular(plural: str, single: str) -> None:
    from deepcite.citations.question_match import term

    assert term(plural) == term(single)
    assert term(plural.capitalize()) == term(single)



def test_a_name_with_diacritics_is_one_word_the_question_and_its_source_share() -> None:
    # The other sentences share every other word of the question: only the name tells
    # them apart, and split into ASCII fragments ("G", "r") it told nothing.
    assert terms_of("Gür Khan, Temüjin, São Tomé") == ["gür", "khan", "temüjin", "são",
                                                           "tomé"]
    question = "What does the title Gür Khan mean?"
    sources = [
        _source(1, "Titles", "The title Great Khan was held by the Yuan emperors, who "
                             "used it to mean the ruler of all Mongols."),
        _source(2, "Names", "Jamukha took the title Gür Khan, which means universal "
                            "ruler."),
        _source(3, "Khans", "The title of khan was held by many rulers of the steppe."),
    ]
    ranked = rank_sentences(question, sources)
    assert ranked and ranked[0].source.number == 2
