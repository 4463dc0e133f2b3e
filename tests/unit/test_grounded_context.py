"""Grounded answers read a sentence with the one it points back to, keep the sentence that
says it all, meet irregular verbs, and let a sentence very close in meaning in even when
its source is outside the sources' majority subject."""

from __future__ import annotations

import pytest

from deepcite.citations.candidates import candidate_sentences, refers_back
from deepcite.citations.grounded import grounded_answer, rank_sentences
from deepcite.citations.question_match import dense_similarity, terms_of
from deepcite.citations.verify import verify
from deepcite.collections.index.embeddings import default_model_path
from deepcite.text.stem import term
from tests.unit.test_grounded import source

ISLAND = [
    source(1, "Economy", "The economy of Tristan Island is small and run by one "
           "cooperative. It depends almost entirely on the export of rock lobster, "
           "caught in the cold waters around the island."),
    source(2, "Geography", "Tristan Island lies in the South Atlantic. The island has "
           "one settlement and a harbour built in 1967."),
    source(3, "Climate", "The climate of the island is mild and wet, with strong winds "
           "in winter."),
]


def test_a_sentence_that_points_back_carries_the_words_it_points_to() -> None:
    found = candidate_sentences(ISLAND[:1])
    assert [bool(s.context) for s in found] == [False, True]
    assert "economy" in found[1].about and "economy" not in found[1].terms
    assert refers_back("This theory is called the Ockham rule.", terms_of("A theory."))
    assert refers_back("The wars ended with the edict.", terms_of("The Wars of Religion."))
    assert not refers_back("The harbour was built in 1967.", terms_of("A settlement."))
    assert not refers_back("It rained.", [])  # the first sentence points nowhere
    assert not refers_back("The 東京 office opened.", terms_of("An office."))  # no crash


@pytest.mark.parametrize("question", [
    "What does the economy of Tristan Island depend on?",
    "What export is the island's economy dependent on?",
])
def test_the_answer_said_after_a_pointer_is_found(question: str) -> None:
    answer = grounded_answer(question, ISLAND)
    assert answer is not None
    assert "rock lobster" in answer.text
    assert verify(answer.text, ISLAND).unsupported == 0


def test_a_sentence_holding_a_chosen_one_takes_its_place() -> None:
    sources = [
        source(1, "Deaths", "Ada Lovelace died on 27 November 1852."),
        source(2, "Life", "On 27 November 1852, at the age of 36, Ada Lovelace died in "
               "London of uterine cancer."),
        source(3, "Work", "Ada Lovelace wrote the first published algorithm for the "
               "Analytical Engine."),
    ]
    answer = grounded_answer("How old was Ada Lovelace when she died?", sources)
    assert answer is not None
    assert "age of 36" in answer.text
    assert "Ada Lovelace died on 27 November 1852" not in answer.text  # said within it


def test_irregular_past_forms_meet_the_question_verb() -> None:
    assert term("became") == term("become") and term("won") == term("win")
    assert term("led") == term("lead") and term("built") == term("build")
    assert term("found") != term("find")  # "found" a city: a word of its own
    sources = [source(1, "College", "The college opened in 1851 with forty students. "
                      "The college became coeducational in 1969 after a long debate."),
               source(2, "Programs", "The undergraduate program has twelve majors, and "
                      "every program ends with a thesis.")]
    ranked = rank_sentences("When did the college become coeducational?", sources)
    assert ranked and "1969" in ranked[0].text


@pytest.mark.skipif(default_model_path() is None,
                    reason="the embeddings extra is not installed")
def test_a_sentence_close_in_meaning_is_kept_outside_the_majority_subject() -> None:
    # Most sources are about museum pieces; one is about Norse art: "piece" is the
    # majority's word, not the question's subject.
    sources = [
        source(1, "Museum A", "The museum's finest piece is a lacquer chest. Each piece "
               "in the hall is lit from above, and the pieces rotate every year."),
        source(2, "Museum B", "A piece of armour and a piece of silk open the tour; the "
               "collection holds ten thousand pieces of art."),
        source(3, "Museum C", "The gift shop sells a piece of art each week. Pieces by "
               "local makers are sold there."),
        source(4, "Norse art", "By far the most famous work of Norse art is the Oseberg "
               "ship, a burial ship carved with animal ornament."),
    ]
    question = "What is Norse art's most well known piece?"
    ranked = rank_sentences(question, sources, similarity=dense_similarity)
    assert any("Oseberg" in s.text for s in ranked[:2])
    words_only = rank_sentences(question, sources)
    assert not any("Oseberg" in s.text for s in words_only)  # the filter without meaning


def test_a_lead_opening_with_this_comes_with_what_this_is() -> None:
    sources = [
        source(1, "Courts", "The Judicature Act of 1871 abolished the old assizes. This "
               "created new courts known as circuit benches, one for each county."),
        source(2, "Benches", "Circuit benches sit four times a year in the county town."),
    ]
    answer = grounded_answer("What created the courts known as circuit benches?", sources)
    assert answer is not None
    text = answer.text
    assert "Judicature Act of 1871" in text
    assert text.index("Judicature Act") < text.index("This created new courts")
    assert verify(text, sources).unsupported == 0


def test_the_sentence_continuing_the_lead_comes_with_it() -> None:
    sources = [
        source(1, "Reservoirs", "The upper reservoir of Vell is joined to the lower "
               "reservoir by a tunnel. This lets the town keep winter floods for summer "
               "fields."),
        source(2, "Upper", "The upper reservoir of Vell is 40 metres deep and the tunnel "
               "mouth lies at its foot."),
        source(3, "Lower", "The lower reservoir of Vell feeds the mill, and a tunnel "
               "drains the lower reservoir in spring."),
        source(4, "Roads", "A second tunnel at Vell carries the road past the upper "
               "reservoir."),
    ]
    question = "What does the tunnel between the upper and lower reservoirs of Vell do?"
    answer = grounded_answer(question, sources)
    assert answer is not None
    text = answer.text
    assert text.startswith("The upper reservoir of Vell is joined")
    assert "keep winter floods" in text
    assert text.index("is joined to") < text.index("This lets the town")


def test_an_antecedent_chosen_further_down_moves_before_the_lead() -> None:
    sources = [
        source(1, "Reservoirs", "The upper reservoir of Vell is linked to the lower "
               "reservoir by a tunnel. This lets the town keep winter floods for summer "
               "fields. Both reservoirs were enlarged in 1960, and the upper reservoir "
               "and the lower reservoir now hold twice as much."),
        source(2, "Town", "Vell has a market and two schools; the reservoir road leads "
               "north to the dam."),
    ]
    answer = grounded_answer("What does linking the two reservoirs of Vell let the town "
                             "do?", sources)
    assert answer is not None
    text = answer.text
    assert text.startswith("The upper reservoir of Vell is linked")
    assert text.count("The upper reservoir of Vell is linked") == 1
    assert text.index("is linked to") < text.index("This lets the town")


def test_the_short_answer_comes_from_the_lead_before_the_sentence_it_points_to() -> None:
    sources = [
        source(1, "Chapels", "By 1870 the town of Orsk had 12,000 people. This led to the "
               "building of many chapels of worship in all parts of Orsk. Most of them "
               "were destroyed in the great fire of 1911."),
        source(2, "Orsk", "Orsk lies on the Ural river and has a railway station."),
    ]
    answer = grounded_answer("When were most of the chapels of worship in Orsk destroyed?",
                             sources)
    assert answer is not None
    assert answer.text.startswith("**1911** [1]")
