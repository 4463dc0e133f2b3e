"""The forced and precision handlers, follow-ups, and choosing handlers by name."""

from __future__ import annotations

import pytest

from deepcite.citations import SourceNumbering, cited_numbers
from deepcite.citations.answer import finalise_reply
from deepcite.citations.handlers import (
    HANDLERS,
    NO_SOURCES_ANSWER,
    ForcedCitationHandler,
    PrecisionCitationHandler,
    StandardCitationHandler,
    get_handler,
)
from deepcite.citations.handlers.forced import FORCED_PREFIX, NO_SOURCES_MARK
from deepcite.citations.handlers.precision import extract_candidates, question_type
from deepcite.llm import ChatClient
from deepcite.types import Source
from tests.fakes import ScriptedChatModel, passage


def _client(model: ScriptedChatModel) -> ChatClient:
    return ChatClient(model, context_size=4096, max_tokens=256)


def _sources(*texts: str) -> list[Source]:
    return SourceNumbering().add_many([passage(f"Doc {i}", t) for i, t in enumerate(texts)])


def _all_cited_exist(text: str, numbers: set[int]) -> bool:
    return set(cited_numbers(text)) <= numbers


PYTHON = _sources(
    "Python was created by Guido van Rossum and first released in 1991.",
    "Van Rossum led the language until 2018. Rossum named it after Monty Python.",
    "The Python Software Foundation manages the language today.",
)


@pytest.mark.parametrize("handler", [StandardCitationHandler, PrecisionCitationHandler])
def test_no_sources_means_no_model_call(handler: type[StandardCitationHandler]) -> None:
    model = ScriptedChatModel(default="Invented answer [1].")
    answer = handler(_client(model)).answer("Who wrote X?", [])
    assert answer.text == NO_SOURCES_ANSWER and not answer.model_called
    assert model.calls == []


def test_follow_up_without_new_sources_calls_the_model_and_keeps_earlier_citations() -> None:
    earlier = "Python was created by Guido van Rossum [3]. It appeared in 1991 [4]."
    model = ScriptedChatModel(script={"synthesis": [
        "It was first released by Guido van Rossum in 1991 [3][4], not 1989 [9]."]})
    answer = StandardCitationHandler(_client(model)).answer(
        "When was it released?", [], prior_knowledge=earlier)
    assert answer.model_called and model.purposes() == ["synthesis"]
    assert earlier in model.calls[0][1]
    assert set(cited_numbers(answer.text)) == {3, 4}
    assert answer.removed_markers == 1


def test_finalise_reply_accepts_extra_numbers_and_is_unchanged_without() -> None:
    sources = _sources("The argparse module parses command line arguments.")
    reply = "Use the argparse module for command line arguments [1][7]."
    plain = finalise_reply("parse args", reply, sources)
    extra = finalise_reply("parse args", reply, sources, extra_numbers=[7])
    assert cited_numbers(plain.text) == [1] and plain.removed_markers == 1
    assert cited_numbers(extra.text) == [1, 7] and extra.removed_markers == 0


def test_forced_marks_its_answer_and_cites_sources() -> None:
    model = ScriptedChatModel(script={"forced": ["Guido van Rossum created it [1][8]."]})
    answer = ForcedCitationHandler(_client(model)).answer("Who created Python?", PYTHON)
    assert answer.text.startswith(FORCED_PREFIX)
    assert model.purposes() == ["forced"]
    assert cited_numbers(answer.text) == [1] and answer.removed_markers == 1


def test_forced_answers_without_sources_and_without_markers() -> None:
    model = ScriptedChatModel(script={"forced": ["Probably Ada Lovelace [1] 【2】 [3-4]."]})
    answer = ForcedCitationHandler(_client(model)).answer("Who wrote the first program?", [])
    assert answer.model_called and model.purposes() == ["forced"]
    assert answer.text.startswith(FORCED_PREFIX) and answer.text.endswith(NO_SOURCES_MARK)
    assert "Ada Lovelace" in answer.text
    assert cited_numbers(answer.text) == [] and "[" not in answer.text


def test_forced_is_not_the_default() -> None:
    assert isinstance(get_handler("", _client(ScriptedChatModel())), StandardCitationHandler)


@pytest.mark.parametrize(("question", "kind"), [
    ("Who wrote Python?", "full_name"), ("What is the full name of the author?", "full_name"),
    ("In what year was it founded?", "date"), ("When did it open?", "date"),
    ("How many moons does Mars have?", "number"), ("What is the population of Oslo?", "number"),
    ("Where was she born?", "place"), ("Which country hosted it?", "place"),
    ("What was the score of the final?", "score"), ("What colour is it?", "other"),
])
def test_question_types(question: str, kind: str) -> None:
    assert question_type(question) == kind


def test_names_group_by_last_word_and_prefer_the_longest_form() -> None:
    counts = extract_candidates("full_name", "Who wrote Python?", PYTHON)
    assert counts.most_common(1)[0] == ("Guido van Rossum", 3)
    assert "Monty Python" not in counts


def _precision(reply: str, question: str, sources: list[Source]) -> tuple[str, ScriptedChatModel]:
    model = ScriptedChatModel(script={"precision": [reply]})
    answer = PrecisionCitationHandler(_client(model)).answer(question, sources)
    assert model.purposes() == ["precision"]
    assert _all_cited_exist(answer.text, {s.number for s in sources})
    assert "\n" not in answer.text
    return answer.text, model


def test_precision_widens_the_model_name_to_the_full_name() -> None:
    text, _ = _precision("Rossum", "Who wrote Python?", PYTHON)
    assert text == "Guido van Rossum [1][2]"


def test_precision_picks_a_year() -> None:
    sources = _sources("The bridge opened in 1932 after six years of work.",
                       "Traffic first crossed the bridge in 1932.", "It was repainted in 2001.")
    text, _ = _precision("I think 1930.", "In what year did the bridge open?", sources)
    assert text == "1932 [1][2]"


def test_precision_picks_a_number_with_its_unit() -> None:
    sources = _sources("In 2020 the town had 12,400 inhabitants.",
                       "Census 2020: 12,400 inhabitants live in the town.")
    text, _ = _precision("", "What is the population of the town?", sources)
    assert text == "12,400 inhabitants [1][2]"


def test_precision_picks_a_score() -> None:
    sources = _sources("The final ended 3-1 after extra time.",
                       "A 3\u20131 win gave them the cup; the semi-final ended 2-2.")
    text, _ = _precision("3-1", "What was the score of the final?", sources)
    assert text == "3-1 [1][2]"


def test_precision_replaces_an_unsupported_model_answer() -> None:
    text, _ = _precision("Linus Torvalds", "Who wrote Python?", PYTHON)
    assert text == "Guido van Rossum [1][2]"


def test_precision_keeps_a_supported_model_answer_and_strips_its_markers() -> None:
    sources = _sources("The treaty was signed in Lisbon in 2007.",
                       "Leaders met at Lisbon to sign it.")
    text, _ = _precision("Lisbon [5].", "Which city hosted the signing?", sources)
    assert text == "Lisbon [1][2]"


def test_precision_without_any_support_says_so_with_cited_passages() -> None:
    model = ScriptedChatModel(script={"precision": ["blue"]})
    answer = PrecisionCitationHandler(_client(model)).answer("What colour is it?", PYTHON)
    assert answer.fallback == "unsupported answer"
    assert "blue" in answer.text and set(cited_numbers(answer.text)) <= {1, 2, 3}


@pytest.mark.parametrize("name", ["forced", "FORCED", "Precision", "precision_", "standard"])
def test_registry_finds_handlers_by_any_spelling(name: str) -> None:
    warnings: list[str] = []
    handler = get_handler(name, _client(ScriptedChatModel()), warnings.append)
    assert handler.name == name.lower().strip("_") and warnings == []


def test_unknown_handler_falls_back_to_standard_naming_the_known_ones() -> None:
    warnings: list[str] = []
    handler = get_handler("fancy", _client(ScriptedChatModel()), warnings.append)
    assert isinstance(handler, StandardCitationHandler)
    assert all(name in warnings[0] for name in ["fancy", *HANDLERS])
