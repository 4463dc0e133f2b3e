"""Forum posts and comments (issue 45): sentences in lower case, posts that end without a
full stop, questions that call the writer "the poster" - each still answered from the
post's own sentences."""

from __future__ import annotations

import pytest

from deepcite.citations.candidates import candidate_sentences
from deepcite.citations.grounded import grounded_answer
from deepcite.citations.markers import cited_numbers
from deepcite.citations.question_match import weigh
from deepcite.text.sentences import split_sentences
from deepcite.types import Source


def post(number: int, title: str, text: str) -> Source:
    url = f"https://forum.example/{number}"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text,
                  engine="memory")


@pytest.mark.parametrize(("text", "expected"), [
    ("got a new bike in april and had 6 flats since. always the back wheel. i ride daily.",
     ["got a new bike in april and had 6 flats since.", "always the back wheel.",
      "i ride daily."]),
    ("havent had a flat since 2019. theyre heavy but worth it",
     ["havent had a flat since 2019.", "theyre heavy but worth it"]),
    ("thanks everyone!! went to the club night like u said",
     ["thanks everyone!!", "went to the club night like u said"]),
])
def test_informal_sentences_opening_in_lower_case_are_split(text: str,
                                                            expected: list[str]) -> None:
    assert split_sentences(text) == expected


@pytest.mark.parametrize("text", [
    "The fund was set up in Jan. and closed in March.",  # a capitalised abbreviation
    "Some metals, e.g. copper, conduct well.",
    "It was fine... until the chain snapped.",  # an ellipsis is no end
    "Prices rose (see p. twelve) last year.",
])
def test_a_lower_case_word_after_an_abbreviation_stays_in_its_sentence(text: str) -> None:
    assert split_sentences(text) == [text]


def test_the_last_sentence_of_a_post_without_a_full_stop_is_quotable() -> None:
    found = [s.text for s in candidate_sentences([post(
        1, "Flat tyres", "Last year I found a tiny bit of glass stuck in my tyre. "
        "Took tweezers to get it out lol")])]
    assert "Took tweezers to get it out lol" in found


def test_a_lone_line_without_a_full_stop_is_still_no_sentence() -> None:
    found = candidate_sentences([post(1, "Menu", "Home page of the cycling club forum")])
    assert found == []


def test_the_poster_is_no_word_the_post_must_hold() -> None:
    pool = [["ride", "work", "day"], ["flat", "since", "april"]]
    assert "poster" not in weigh("How many flats has the poster had?", pool).weight
    film = [["poster", "film", "print"], ["flat", "since", "april"]]
    assert "poster" in weigh("Who designed the film poster?", film).weight


def test_a_forum_thread_answers_questions_about_the_poster() -> None:
    sources = [
        post(1, "Thread: flat tyres", "ok so i'm losing my mind here. got a new hybrid bike "
             "in april and i've had like 6 flats since. always the back wheel."),
        post(2, "Thread: flat tyres reply", "sounds like a pinch flat tbh. i had the same "
             "thing with my old Raleigh. pumped it to 65 psi and never had another one."),
        post(3, "Thread: first half marathon", "Did my first half marathon yesterday!!! "
             "Legs are absolutely wrecked today lol"),
    ]
    cited = grounded_answer("How many flats has the poster had?", sources)
    assert cited is not None
    assert "6 flats" in cited.text and 1 in cited_numbers(cited.text)


def test_a_short_follow_on_answers_with_the_sentence_before_it() -> None:
    sources = [
        post(1, "Thread: flat tyres", "ok so i'm losing my mind here. got a new hybrid bike "
             "in april and i've had like 6 flats since. always the back wheel. i ride to "
             "work every day on a gravel canal path."),
        post(2, "Thread: first telescope", "My daughter is turning 10 next month. Budget is "
             "about 200 bucks for a telescope."),
        post(3, "Thread: first half marathon", "Did my first half marathon yesterday!!! "
             "Legs are absolutely wrecked today lol"),
    ]
    cited = grounded_answer("Which wheel keeps going flat?", sources)
    assert cited is not None and "always the back wheel [1]" in cited.text
