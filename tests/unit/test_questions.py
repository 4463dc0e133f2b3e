"""Query generation that works whatever the model writes: pseudo-relevance feedback."""

from __future__ import annotations

from deepcite.llm import ChatClient
from deepcite.research.questions import (
    QuestionGenerator,
    expansion_terms,
    keywords,
    prf_queries,
)
from tests.fakes import ScriptedChatModel, passage

QUESTION = "How can I read and write JSON files?"
FOUND = [
    passage("json", "Read JSON from a file with json.load and write it with json.dump; "
            "json.load deserializes a document, json.dump serializes an object."),
    passage("json.tool", "json.tool reads a JSON file and writes it back pretty-printed; "
            "like json.load it deserializes the document first."),
    passage("io", "Files are opened with open(); the io module provides the file objects "
            "that read and write bytes."),
    passage("csv", "The csv module reads and writes tabular files; a reader object "
            "iterates over the rows."),
    passage("logging", "The logging module records events; handlers write records to a "
            "file or a stream."),
    passage("tempfile", "The tempfile module creates temporary files and folders."),
]


def client(**replies: str) -> tuple[ChatClient, ScriptedChatModel]:
    model = ScriptedChatModel(script={k: [v] for k, v in replies.items()})
    return ChatClient(model, context_size=2048, max_tokens=400), model


def test_keywords_are_the_questions_content_words_in_order() -> None:
    assert keywords(QUESTION) == ["read", "write", "json", "files"]


def test_expansion_terms_come_from_the_results_that_match_the_question() -> None:
    terms = expansion_terms(QUESTION, FOUND)
    assert {"load", "dump", "deserializes"} <= set(terms[:6])
    assert not {"read", "reads", "json", "file", "files", "write"} & set(terms)  # its own
    assert not {"logging", "handlers", "tempfile", "csv"} & set(terms[:6])  # weak matches


def test_prf_queries_are_the_keywords_plus_distinct_expansions() -> None:
    queries = prf_queries(QUESTION, FOUND, [QUESTION], 2)
    assert len(queries) == 2 and queries[0] != queries[1]
    for query in queries:
        assert query.startswith("read write json files ")
        assert len(query.split()) == 4 + 3
    assert prf_queries(QUESTION, [], [QUESTION], 2) == []  # nothing to learn from
    assert prf_queries("How?", FOUND, [], 2) == []  # no content words


def test_unusable_model_followups_fall_back_to_derived_queries() -> None:
    chat, model = client(followups="Write search queries:\n" + QUESTION)
    generator = QuestionGenerator(chat)
    queries = generator.followups(QUESTION, FOUND, [QUESTION], 2)
    assert model.purposes() == ["followups"]
    assert generator.derived and queries == prf_queries(QUESTION, FOUND, [QUESTION], 2)


def test_usable_model_followups_are_kept() -> None:
    chat, _ = client(followups="json.dump indent option\njson.load object hooks")
    generator = QuestionGenerator(chat)
    assert generator.followups(QUESTION, FOUND, [QUESTION], 2) == [
        "json.dump indent option", "json.load object hooks"]
    assert not generator.derived and generator.uses_model


def test_without_a_model_no_call_is_made() -> None:
    chat, model = client(questions="json tutorial", followups="json tips")
    generator = QuestionGenerator(chat, model_queries=False)
    assert generator.initial(QUESTION, 3) == []  # the caller searches the question
    assert generator.followups(QUESTION, FOUND, [QUESTION], 2) == prf_queries(
        QUESTION, FOUND, [QUESTION], 2)
    assert model.calls == [] and generator.derived and not generator.uses_model
    assert QuestionGenerator(None).followups(QUESTION, FOUND, [QUESTION], 1) != []


def test_derived_queries_skip_what_was_already_asked() -> None:
    first = prf_queries(QUESTION, FOUND, [QUESTION], 1)
    again = prf_queries(QUESTION, FOUND, [QUESTION, *first], 1)
    assert again and again != first
