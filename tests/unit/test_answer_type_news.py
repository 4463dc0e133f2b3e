"""Short answers of the kinds local news and posts write (issue 45): measures in words
or as adjectives, dates without a year, the names of schools and roads, what a thing is
called - each found in the sentence, none taken from another kind."""

from __future__ import annotations

import pytest

from deepcite.citations.answer_type import answer_type, candidates, pick


@pytest.mark.parametrize(("question", "sentence", "expected"), [
    ("How deep will the piles go?",
     "Engineers drove steel piles nine metres into the creek bed.", "nine metres"),
    ("How long will the lane be?",
     "The 1.8-kilometre lane will run from the station to the park.", "1.8-kilometre"),
    ("How far is the detour?",
     "Children had to take a two-mile detour by bus.", "two-mile"),
])
def test_a_measure_written_in_words_or_as_an_adjective_answers(
        question: str, sentence: str, expected: str) -> None:
    assert answer_type(question) == "amount"
    assert pick("amount", sentence, question) == expected


@pytest.mark.parametrize(("question", "sentence", "expected"), [
    ("When did the footbridge reopen?",
     "The footbridge reopened on Saturday after eleven months of repairs.", "Saturday"),
    ("On what date is the public meeting?",
     "A public meeting will be held at the Corn Exchange on 14 May.", "14 May"),
    ("When is work expected to start?",
     "Work on the lane is expected to start in September.", "September"),
    ("When did the poster run the race?",
     "Did my first half marathon yesterday and loved it.", "yesterday"),
])
def test_a_date_without_a_year_answers_when(question: str, sentence: str,
                                            expected: str) -> None:
    assert answer_type(question) == "date"
    assert pick("date", sentence, question) == expected


def test_a_full_date_still_comes_before_a_weekday() -> None:
    sentence = "The bridge, closed on a Monday, reopened on 3 March 2021."
    assert candidates("date", sentence, "When did the bridge reopen?") == ["3 March 2021"]


@pytest.mark.parametrize(("question", "sentence", "expected"), [
    ("Which school did the children have to reach?",
     "Children from Eastfield had to reach Harlow Primary School by bus.",
     "Harlow Primary School"),
    ("Along which road will the lane be built?",
     "The Dunmore council voted to build a lane along Station Road.", "Station Road"),
    ("Which business pledged the money?",
     "A local bakery chain, Hollis & Sons, has pledged the money.", "Hollis & Sons"),
    ("What was the robot nicknamed?",
     "Their robot, nicknamed Gus, stacked more crates than any other.", "Gus"),
])
def test_the_name_of_a_school_road_business_or_nickname_answers(
        question: str, sentence: str, expected: str) -> None:
    assert answer_type(question) == "name"
    assert pick("name", sentence, question) == expected


def test_a_count_is_of_the_noun_before_the_next_number() -> None:
    sentence = "My longest training run was 11 miles two weeks before."
    assert "11 miles two weeks" not in candidates(
        "count", sentence, "How many weeks did the poster train?")


def test_what_a_thing_is_called_is_only_the_name_given_after_called() -> None:
    sentence = "At Harlow Park the mixture is called a slurry by the crews."
    assert candidates("name", sentence, "What is the mixture called?") == []
