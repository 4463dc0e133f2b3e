"""The passages an answer falls back on, or is flagged with, are the ones on the question.

When a model's reply is unusable or cites nothing, the answer quotes passages for the
reader to check. They used to be the first three sources in search order, each by its
best word overlap: a source on another subject came first while the one that answered
sat further down, and a document's title and underline ran into the quote.
"""

from __future__ import annotations

from deepcite.citations.answer import FALLBACK_INTRO, evidence_list, finalise_reply
from deepcite.citations.markers import cited_numbers
from deepcite.types import Source

QUESTION = "Who helped discover the Turkana Boy?"
OFF = [
    "Kenya, paragraph 35\n===================\nKenya's capital is Nairobi, and its economy "
    "is the largest in East Africa, with tea and coffee exports.",
    "Broadcasting, paragraph 33\n==========================\nThe network boy band special "
    "helped ratings in the autumn of 1984.",
    "Kenya, paragraph 3\n==================\nKenya has a warm climate and hosts many safaris "
    "across the savannah every year.",
]
ANSWER = ("Kenya, paragraph 7\n==================\nDuring excavations at Lake Turkana in "
          "1984, paleoanthropologist Richard Leakey assisted by Kamoya Kimeu discovered the "
          "Turkana Boy, a 1.6-million-year-old fossil.")


def _sources(texts: list[str]) -> list[Source]:
    return [Source(number=i, title=text.split("\n")[0], url=f"file:///docs/{i}.txt",
                   canonical_url=f"file:///docs/{i}.txt", snippet=text, engine="collection")
            for i, text in enumerate(texts, start=1)]


def test_the_passage_that_answers_is_quoted_first_even_when_found_last() -> None:
    sources = _sources([*OFF, ANSWER])
    lines = evidence_list(QUESTION, sources).splitlines()
    assert len(lines) == 3
    assert "Richard Leakey assisted by Kamoya Kimeu" in lines[0]
    assert lines[0].endswith("[4] (Kenya, paragraph 7)")


def test_an_unusable_reply_falls_back_on_the_passage_that_answers() -> None:
    sources = _sources([*OFF, ANSWER])
    answer = finalise_reply(QUESTION, "", sources)
    assert answer.text.startswith(FALLBACK_INTRO)
    assert 4 in cited_numbers(answer.text)


def test_quotes_leave_out_the_documents_heading() -> None:
    sources = _sources([*OFF, ANSWER])
    text = evidence_list(QUESTION, sources)
    assert "=====" not in text
    assert "\u201cKenya, paragraph" not in text
    assert "\u201cDuring excavations at Lake Turkana" in text


def test_with_nothing_on_the_question_the_first_sources_are_still_shown() -> None:
    sources = _sources(OFF)
    lines = evidence_list("What is the boiling point of mercury?", sources).splitlines()
    assert [line.split("[")[1][0] for line in lines] == ["1", "2", "3"]


def test_a_reply_that_only_names_the_sources_gives_way_to_the_passages() -> None:
    sources = _sources([*OFF, ANSWER])
    listing = ("The sources cited in the answer are:\n\n1. Kenya, paragraph 35 [1]\n"
               "2. Kenya, paragraph 7 [4]\n3. Broadcasting, paragraph 33")
    answer = finalise_reply(QUESTION, listing, sources)
    assert answer.fallback == "reply only names the sources"
    assert "Richard Leakey" in answer.text


def test_a_short_answer_using_a_titles_words_is_still_an_answer() -> None:
    sources = _sources([*OFF, ANSWER])
    reply = "Richard Leakey and Kamoya Kimeu discovered it in Kenya [4]."
    answer = finalise_reply(QUESTION, reply, sources)
    assert answer.fallback is None
    assert answer.text.startswith("Richard Leakey and Kamoya Kimeu")


def test_evidence_sent_to_the_model_leaves_out_headings() -> None:
    from deepcite.citations.evidence import evidence_sources

    sources = _sources([*OFF, ANSWER])
    sent = evidence_sources(QUESTION, sources)
    assert sent and all("=====" not in source.text for source in sent)
    assert any(source.text.startswith("During excavations at Lake Turkana")
               for source in sent)
