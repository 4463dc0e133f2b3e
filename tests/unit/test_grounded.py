"""Grounded answers: the sources' own best sentences, each cited, the model only helping."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from deepcite.citations.answer_mode import model_parameters, use_grounded
from deepcite.citations.grounded import (
    anchor_terms,
    grounded_answer,
    rank_sentences,
)
from deepcite.citations.markers import cited_numbers
from deepcite.citations.verify import verify
from deepcite.errors import ModelError
from deepcite.llm import ChatClient, LlamaCppChatModel
from deepcite.types import Source
from tests.fakes import ScriptedChatModel


def source(number: int, title: str, text: str) -> Source:
    url = f"https://docs.example/{number}"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text,
                  engine="memory")


SOURCES = [
    source(1, "Eiffel Tower", "The Eiffel Tower is a wrought-iron lattice tower in Paris. "
           "It is named after the engineer Gustave Eiffel, whose company designed and "
           "built the tower."),
    source(2, "History", "Construction of the tower began in January 1887. The tower was "
           "completed on 31 March 1889 as the entrance arch to the World's Fair. It was the "
           "tallest structure in the world until 1930."),
    source(3, "Visitors", "Nearly 7 million people visit the Eiffel Tower every year. "
           "Tickets for the tower can be bought online [99]."),
]


def client(replies: dict[str, list[Any]]) -> tuple[ChatClient, ScriptedChatModel]:
    model = ScriptedChatModel(script=replies)
    return ChatClient(model, context_size=2048, max_tokens=400), model


def sentences_with_markers(text: str) -> list[tuple[str, list[int]]]:
    """Each ``sentence [n].`` of a grounded answer body, with its numbers."""
    found = re.findall(r"([^\]]+?)\s((?:\[\d+\])+)[.!?]", text)
    return [(s.strip(" *\n"), [int(n) for n in re.findall(r"\d+", m)]) for s, m in found]


def test_ranking_puts_the_answering_sentence_first() -> None:
    ranked = rank_sentences("Who designed and built the Eiffel Tower?", SOURCES)
    assert ranked[0].text.startswith("It is named after the engineer Gustave Eiffel")
    assert ranked[0].source.number == 1
    assert all(a.score >= b.score for a, b in pairwise(ranked))


def test_each_sentence_carries_the_number_of_the_source_it_was_copied_from() -> None:
    answer = grounded_answer("What is the Eiffel Tower and when was it completed?", SOURCES)
    assert answer is not None and not answer.model_called
    pairs = sentences_with_markers(answer.text.split("\n\n")[-1])
    assert len(pairs) >= 2
    for sentence, numbers in pairs:
        assert len(numbers) == 1
        cited = next(s for s in SOURCES if s.number == numbers[0])
        assert sentence in cited.text  # verbatim, and from the cited source only
        assert all(sentence not in s.text for s in SOURCES if s.number != numbers[0])
    checked = verify(answer.text, SOURCES)
    assert checked.unsupported == 0 and checked.partial == 0 and checked.supported >= 2
    assert checked.text == answer.text


def test_a_when_question_leads_with_the_date() -> None:
    answer = grounded_answer("When was the Eiffel Tower completed?", SOURCES)
    assert answer is not None
    first, _, rest = answer.text.partition("\n\n")
    assert first == "**31 March 1889** [2]"
    assert rest.startswith("The tower was completed on 31 March 1889")
    assert verify(answer.text, SOURCES).unsupported == 0


@pytest.mark.parametrize(("question", "short"), [
    ("How many people visit the Eiffel Tower every year?", "**7 million people** [3]"),
    ("In what year did construction of the tower begin?", "**January 1887** [2]"),
])
def test_short_factual_questions_get_the_short_answer_first(question: str,
                                                             short: str) -> None:
    answer = grounded_answer(question, SOURCES)
    assert answer is not None
    assert answer.text.split("\n\n")[0] == short
    assert len(answer.text.split("\n\n")) == 2  # then the supporting sentences


def test_a_name_is_cited_only_where_it_is_written_in_full() -> None:
    docs = [source(1, "Signing", "The charter was signed by Guido van Rossum in 1991."),
            source(2, "Names", "The charter of the Rossum foundation was signed in a hall.")]
    answer = grounded_answer("Who signed the charter?", docs)
    assert answer is not None and answer.text.startswith("**Guido van Rossum** [1]\n\n")
    assert verify(answer.text, docs).unsupported == 0


def test_open_questions_get_no_short_answer_line() -> None:
    answer = grounded_answer("What is the Eiffel Tower made of?", SOURCES)
    assert answer is not None and "\n\n" not in answer.text and "**" not in answer.text
    assert answer.text.startswith("The Eiffel Tower is a wrought-iron lattice tower in Paris [1].")


def test_nothing_relevant_gives_none_so_the_caller_falls_back() -> None:
    assert grounded_answer("How do I bake sourdough bread?", SOURCES) is None
    assert grounded_answer("When was the tower completed?", []) is None
    model_client, model = client({"grounded": ["Bread is baked at 230 C [1]."]})
    assert grounded_answer("How do I bake sourdough bread?", SOURCES, model_client) is None
    assert model.calls == []  # nothing to ground on: the model is not asked


def test_sources_missing_the_questions_names_give_no_answer() -> None:
    """A question about something the sources never name is not answered from a
    sentence that merely shares a verb with it ("built", "visit")."""
    for question in ("Which company built the Sydney Opera House?",
                     "How many people visit the Louvre Museum every year?",
                     "What was built in 1066?"):
        assert rank_sentences(question, SOURCES) == []
        assert grounded_answer(question, SOURCES) is None


def test_a_question_naming_what_the_sources_name_is_still_answered() -> None:
    answer = grounded_answer("How many people visit the Eiffel Tower every year?", SOURCES)
    assert answer is not None and "7 million" in answer.text
    # Half the names suffice: the sources need not repeat every name the question has.
    answer = grounded_answer("When did construction of the Eiffel Tower in France begin?",
                             SOURCES)
    assert answer is not None and "1887" in answer.text


def test_anchor_terms_are_the_questions_names_and_numbers() -> None:
    assert anchor_terms("Who received the IEEE Frank Rosenblatt Award in 2010?") == {
        "ieee", "frank", "rosenblatt", "award", "2010"}
    assert anchor_terms("How do I parse command line arguments?") == set()


def test_a_name_with_accents_is_an_anchor_and_is_found_where_it_is_written() -> None:
    mosque = source(1, "Mosque", "The Süleymaniye Mosque was damaged in the great fire of "
                    "1660 and restored by the architect Mimar Sinan's successors.")
    assert rank_sentences("What year was the Süleymaniye damaged in the great fire?",
                          [mosque])
    assert rank_sentences("What year was the Süleymaniye damaged in the great fire?",
                          SOURCES) == []


def test_an_unsupported_model_lead_is_dropped() -> None:
    model_client, model = client({"grounded": [
        "The Eiffel Tower is made of solid gold and was built in 1650 [1]."]})
    answer = grounded_answer("What is the Eiffel Tower made of?", SOURCES, model_client)
    assert answer is not None and answer.model_called and model.purposes() == ["grounded"]
    assert "gold" not in answer.text and "1650" not in answer.text
    assert "model lead dropped (unsupported)" in answer.notes
    assert verify(answer.text, SOURCES).unsupported == 0


def test_a_model_lead_found_in_a_source_is_kept_and_cited() -> None:
    model_client, _ = client({"grounded": [
        "Construction of the tower began in January 1887, and the tower was completed on "
        "31 March 1889."]})
    answer = grounded_answer("What is the Eiffel Tower, and how did its construction go?",
                             SOURCES, model_client)
    assert answer is not None and "model lead kept (supported)" in answer.notes
    assert answer.text.startswith(
        "Construction of the tower began in January 1887, and the tower was completed on "
        "31 March 1889 [2]. ")
    assert verify(answer.text, SOURCES).unsupported == 0


def test_a_lead_recombining_source_words_is_dropped() -> None:
    model_client, _ = client({"grounded": [
        "Gustave Eiffel's company built the wrought-iron tower in Paris."]})  # no span
    answer = grounded_answer("What is the Eiffel Tower made of?", SOURCES, model_client)
    assert answer is not None and "model lead dropped (unsupported)" in answer.notes
    assert answer.text.startswith("The Eiffel Tower is a wrought-iron lattice tower")


def test_a_lead_that_repeats_a_sentence_puts_that_sentence_first() -> None:
    model_client, _ = client({"grounded": [
        "3. It is named after the engineer Gustave Eiffel, whose company built the tower."]})
    answer = grounded_answer("What is the Eiffel Tower made of?", SOURCES, model_client,
                             max_sentences=2)
    assert answer is not None and "model chose a sentence" in answer.notes
    assert answer.text == (  # the model's pick replaced the weakest of the two chosen
        "It is named after the engineer Gustave Eiffel, whose company designed and built "
        "the tower [1]. The Eiffel Tower is a wrought-iron lattice tower in Paris [1].")


def test_the_models_short_answer_counts_only_when_the_sources_have_it() -> None:
    made_up, _ = client({"grounded": ["1925"]})
    answer = grounded_answer("When was the Eiffel Tower completed?", SOURCES, made_up)
    assert answer is not None and answer.text.startswith("**31 March 1889** [2]")
    found, _ = client({"grounded": ["The answer is 1889."]})
    answer = grounded_answer("When was the Eiffel Tower completed?", SOURCES, found)
    assert answer is not None and answer.text.startswith("**1889** [2]")
    assert "short answer: model" in answer.notes


def test_a_failed_model_call_leaves_the_grounded_answer() -> None:
    def fail(_: str) -> str:
        raise ModelError("server gone")

    broken, _ = client({"grounded": [fail]})
    answer = grounded_answer("What is the Eiffel Tower made of?", SOURCES, broken)
    assert answer is not None and "model call failed" in answer.notes
    assert answer.text.startswith("The Eiffel Tower is a wrought-iron lattice tower")


def test_source_brackets_never_become_citations() -> None:
    answer = grounded_answer("Where can tickets for the tower be bought?", SOURCES)
    assert answer is not None
    assert answer.text == "Tickets for the tower can be bought online \\[99\\] [3]."
    assert cited_numbers(answer.text) == [3]
    assert verify(answer.text, SOURCES).supported == 1


def test_headings_and_underlines_are_not_answer_sentences() -> None:
    doc = source(1, "Paris", "Paris landmarks\n===============\n\nThe Louvre is the "
                 "world's most visited museum and a landmark of Paris.")
    answer = grounded_answer("Which landmark of Paris is the most visited museum?", [doc])
    assert answer is not None
    assert answer.text == "The Louvre is the world's most visited museum and a landmark of " \
        "Paris [1]."


# ------------------------------------------------------------------ choosing the path


@pytest.mark.parametrize(("name", "expected"), [
    ("SmolLM2-135M-Instruct.Q4_1.gguf", 135e6), ("qwen2.5:0.5b", 0.5e9),
    ("llama3.1:8b", 8e9), ("gpt-4o-mini", None), ("claude-3-5-haiku", None),
])
def test_model_parameters_are_read_from_names(name: str, expected: float | None) -> None:
    assert model_parameters(name) == expected


def test_use_grounded_follows_the_setting_and_the_model_size(make_settings: Any) -> None:
    def served(**llm: Any) -> bool:
        fake = ChatClient(ScriptedChatModel(), context_size=8192, max_tokens=400)
        return use_grounded(make_settings(llm=llm), fake)

    assert served(model="qwen2.5:0.5b") is True
    assert served(model="llama3.1:8b") is False
    assert served(model="gpt-4o-mini") is False  # size unknown, not local: abstractive
    assert use_grounded(make_settings(), None) is True
    assert use_grounded(make_settings(citations={"answer_mode": "abstractive"}), None) is False
    big = ChatClient(ScriptedChatModel(), context_size=8192, max_tokens=400)
    assert use_grounded(make_settings(citations={"answer_mode": "grounded"}, llm={
        "model": "llama3.1:70b"}), big) is True


def test_use_grounded_treats_small_context_local_models_as_small(make_settings: Any,
                                                                  tmp_path: Path) -> None:
    def local(file: str, context: int) -> bool:
        model = LlamaCppChatModel(model_path=tmp_path / file, n_ctx=context)
        return use_grounded(make_settings(), ChatClient(model, context_size=context,
                                                        max_tokens=400))

    assert local("SmolLM2-135M-Instruct.Q4_1.gguf", 8192) is True  # size known: small
    assert local("mistral-7b-instruct.Q4_K_M.gguf", 2048) is False  # size known: large
    assert local("custom.gguf", 2048) is True  # unknown size, small context
    assert local("custom.gguf", 8192) is False


def test_quotes_are_shown_without_markup_and_still_verify() -> None:
    docs = [source(1, "Lists", "Use ``list.append`` to add one item; see "
                   ":py:meth:`list.extend` for adding many items at once. "
                   "In the prompt, type &gt;&gt;&gt; followed by the list expression to see "
                   "the items you added.")]
    answer = grounded_answer("How do I add an item to a list with append?", docs)
    assert answer is not None
    assert "Use list.append to add one item" in answer.text
    assert "``" not in answer.text and ":py:meth:" not in answer.text
    report = verify(answer.text, docs)
    assert report.supported == report.markers_checked > 0


def test_a_lead_that_points_back_with_a_pronoun_comes_with_the_sentence_it_points_to() -> None:
    sources = [
        source(1, "Arabic medicine", "Ibn Wahshiyya wrote a treatise on farming in the "
               "tenth century. He also describes the distillation of sea-water for "
               "drinking, boiled in copper stills."),
        source(2, "Water", "Sea-water is salty, and drinking it makes thirst worse."),
    ]
    answer = grounded_answer("Who wrote about the distillation of drinking water from sea "
                             "water?", sources)
    assert answer is not None
    text = answer.text
    # "He" alone names no one: the sentence before it, which does, is quoted first
    assert "Ibn Wahshiyya wrote a treatise" in text
    assert text.index("Ibn Wahshiyya") < text.index("He also describes")
    assert verify(text, sources).unsupported == 0
