"""The passages an answer falls back on, or is flagged with, are the ones on the question.

When a model's reply is unusable or cites nothing, the answer quotes passages for the
reader to check. They used to be the first three sources in search order, each by its
best word overlap: a source on another subject came first while the one that answered
sat further down, and a document's title and underline ran into the quote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import deepcite.research.citation_step as citation_step
from deepcite.citations.answer import FALLBACK_INTRO, evidence_list, finalise_reply
from deepcite.citations.attribution import attribute
from deepcite.citations.markers import cited_numbers
from deepcite.citations.supported_first import BELOW_NOTE
from deepcite.research import Researcher
from deepcite.types import Source
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

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


# -- the passages come from the whole sources, by meaning --------------------------------

_FILLER = " ".join(f"Attila's court in the year {400 + i} saw feasts, tribute and envoys from "
                   "Rome described in detail." for i in range(12))
_ATTILA = ("Historians describe Attila as the ruler of the Huns from 434 until his death. "
           f"{_FILLER} Attila declared that he was the flail of God, sent to punish the "
           f"Romans. {_FILLER}")
_PARAPHRASE = "How did Attila describe himself?"


def _encoder(question: str, texts: Sequence[str], *, store: object = None) -> list[float]:
    """A sentence encoder that knows "the flail of God" is how Attila described himself."""
    return [0.95 if "flail" in text else 0.05 for text in texts]


def _attila_run(make_settings: Any, monkeypatch: pytest.MonkeyPatch, reply: str) -> str:
    """The answer to the paraphrased question when the model, shown a short excerpt of a
    long source chosen by the question's words, replies ``reply``."""
    monkeypatch.setattr(citation_step, "dense_similarity", _encoder)
    monkeypatch.setattr(citation_step, "meaning_available", lambda: True)
    settings = make_settings(**{"iterations": 1, "citations.evidence_chars": 400,
                                "citations.answer_mode": "abstractive"})
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [reply]})
    engine = MemoryEngine([passage("Attila", _ATTILA)])
    return Researcher(settings, model, [engine]).run(_PARAPHRASE).answer


def test_an_uncited_reply_is_checked_against_the_whole_source_by_meaning(
        make_settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The model saw only the excerpt on "describe"; the sentence that answers sits far
    # from it in the source, in other words than the question's.
    answer = _attila_run(make_settings, monkeypatch,
                         "He ruled a large empire in Europe and fought many wars.")
    # ... the source's sentence found by meaning leads; the unbacked reply only follows
    assert answer.startswith("Attila declared that he was the flail of God, sent to punish "
                             "the Romans [1].")
    lead, flag, below = answer.partition(BELOW_NOTE)
    assert flag and "He ruled a large empire" in below and "He ruled" not in lead


def test_an_unusable_reply_gives_way_to_the_whole_sources_best_sentence_by_meaning(
        make_settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = _attila_run(make_settings, monkeypatch, "")
    assert answer.startswith(FALLBACK_INTRO)
    assert "Attila declared that he was the flail of God, sent to punish the Romans [1]." \
        in answer
    assert cited_numbers(answer) == [1]


def test_a_quoted_passages_title_is_not_cited_again() -> None:
    # The title repeats the document's heading, so attribution used to find it in the
    # source: "... [1] (Super Bowl 50, paragraph 44) [1]".
    gaga = ("Super Bowl 50, paragraph 44\n===========================\nSix-time Grammy "
            "winner and Academy Award nominee Lady Gaga performed the national anthem.")
    sources = _sources([gaga, *OFF])
    quoted = evidence_list("How many Grammys has Lady Gaga won?", sources)
    checked = attribute(quoted, sources)
    assert checked.text == quoted and checked.added == []
    assert "[1] (Super Bowl 50, paragraph 44)\n" in f"{checked.text}\n"


def test_a_title_ending_in_its_own_brackets_is_not_cited_again() -> None:
    """A title such as "functools - Tools (Python standard library module
    documentation)" ends in a bracket of its own: quoted after a passage it must still
    be known as the title, not cited as a sentence of the source ("... [2] (functools
    - ... documentation)) [1]" in a not-found answer of several chunks of one document)."""
    title = "zebra - Tools for striped caches (Zebra library module documentation)"
    chunks = [f"{title}\n{'=' * len(title)}\nThe zebra cache keeps entries for {n} seconds "
              f"unless a caller asks for part {n} of the flush."
              for n in (30, 60, 90)]
    sources = [Source(number=i, title=title, url=f"file:///docs/zebra-{i}.txt",
                      canonical_url=f"file:///docs/zebra-{i}.txt", snippet=text,
                      engine="collection") for i, text in enumerate(chunks, start=1)]
    quoted = evidence_list("Wie lange hält der Zebra-Cache Einträge?", sources)
    checked = attribute(quoted, sources)
    assert checked.text == quoted and checked.added == []
    assert all(line.endswith(f"({title})") for line in quoted.splitlines())


@pytest.mark.parametrize("reply", [
    "The sources cited in the answer are:\n\n1.: The source of the reference is a list of "
    "references that provide information about fossils found in Kenya.",
    "The source cited is from a book titled \"Kenya, paragraph 7\" [4].",
    "The sources mentioned earlier are not only accurate but also give a comprehensive "
    "overview of the excavations [4].",
])
def test_a_reply_describing_the_sources_gives_way_to_the_passages(reply: str) -> None:
    sources = _sources([*OFF, ANSWER])
    answer = finalise_reply(QUESTION, reply, sources)
    assert answer.fallback == "reply describes the sources instead of answering"
    assert answer.text.startswith(FALLBACK_INTRO) and "Richard Leakey" in answer.text


@pytest.mark.parametrize("reply", [
    "The sources say Richard Leakey and Kamoya Kimeu discovered it in 1984 [4].",
    "The source of the find was Lake Turkana, where Kamoya Kimeu dug in 1984 [4].",
])
def test_an_answer_that_starts_with_the_word_source_is_still_an_answer(reply: str) -> None:
    answer = finalise_reply(QUESTION, reply, _sources([*OFF, ANSWER]))
    assert answer.fallback is None and answer.text.startswith(reply[:20])
