"""Follow-up queries stay on the question: key terms kept, no off-topic feedback terms,
and follow-up results that moved away from the question are not kept."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from deepcite.llm import ChatClient
from deepcite.research import Researcher
from deepcite.research.drift import DriftCheck
from deepcite.research.questions import QuestionGenerator, expansion_terms, prf_queries
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

GEO_QUESTION = "Which mountain range forms the border between Norway and Sweden?"
GEO_FOUND = [
    passage("Scandinavian Mountains", "The Scandinavian Mountains, or Scandes, form the "
            "border between Norway and Sweden. The Scandes run through the peninsula; "
            "the Kjølen ridge of the Scandes marks the border."),
    passage("Kjølen", "Kjølen is the part of the Scandes along the border of Norway and "
            "Sweden; glaciers carved the Scandes into fjords on the Norway side."),
    # A distractor: one sentence on the question's subject, the rest on another topic.
    passage("Union of 1905", "Norway and Sweden formed the border of their union in 1905. Herring "
            "catches were then salted for export. Herring barrels filled the harbours, "
            "and the herring trade paid for new fishing fleets; herring prices fell."),
    passage("Fjords", "Fjords are long inlets carved by glaciers."),
]

CODE_QUESTION = "How do I close a database connection when I am done with it?"
CODE_FOUND = [
    passage("Connections", "Close a database connection with its close method when you "
            "are done, or use the connection as a context manager:\n"
            "    async with pool.acquire() as conn:\n"
            "        await conn.__aenter__()\n"
            "The manager calls :py:meth:`__aexit__` and closes the connection; a closed "
            "connection returns its socket to the pool."),
    passage("Pools", "A connection pool keeps open database connections; "
            "``pool.release(conn)`` returns one. Closing the pool closes every "
            "connection, and &lt;close&gt; is logged."),
    passage("Cursors", "A cursor runs queries over a database connection."),
]


def _client(**replies: str) -> ChatClient:
    model = ScriptedChatModel(script={k: [v] for k, v in replies.items()})
    return ChatClient(model, context_size=2048, max_tokens=400)


def test_geography_feedback_ignores_the_distractors_other_topic() -> None:
    terms = expansion_terms(GEO_QUESTION, GEO_FOUND)
    assert {"scandes", "ridge"} <= set(terms[:6])
    assert not {"herring", "barrels", "export", "fleets", "prices"} & set(terms)
    for query in prf_queries(GEO_QUESTION, GEO_FOUND, [GEO_QUESTION], 2):
        assert "herring" not in query
        assert {"norway", "sweden", "border"} <= set(query.split())


def test_programming_feedback_takes_no_api_identifiers_or_markup() -> None:
    terms = expansion_terms(CODE_QUESTION, CODE_FOUND)
    noise = {"aenter", "aexit", "acquire", "conn", "await", "async", "py", "meth", "lt",
             "gt", "release"}
    assert not noise & set(terms)
    assert {"manager", "context"} <= set(terms[:6])  # prose of the answer is still used


def test_a_question_naming_code_keeps_the_identifiers_of_its_results() -> None:
    question = "What does __aexit__ do when a database connection is closed?"
    assert "aenter" in expansion_terms(question, CODE_FOUND)


def test_model_followups_missing_the_questions_names_get_them_added() -> None:
    chat = _client(followups="herring trade history\nScandes border Norway Sweden glaciers")
    generator = QuestionGenerator(chat)
    queries = generator.followups(GEO_QUESTION, GEO_FOUND, [GEO_QUESTION], 2)
    assert not generator.derived
    assert queries[0].endswith("herring trade history")
    assert {"norway", "sweden"} <= set(queries[0].split())  # the names it lacked
    assert queries[1].endswith("Scandes border Norway Sweden glaciers")  # its own words


def test_a_followup_too_long_to_carry_the_key_terms_is_dropped() -> None:
    chat = _client(followups="herring " + "trade " * 31 + "\nScandes glaciers Norway Sweden")
    queries = QuestionGenerator(chat).followups(GEO_QUESTION, GEO_FOUND, [GEO_QUESTION], 2)
    assert len(queries) == 1 and "herring" not in queries[0]


def test_drift_check_drops_results_far_from_the_question() -> None:
    check = DriftCheck(GEO_QUESTION)
    check.start(GEO_FOUND[:2])
    assert not check.drifted(GEO_FOUND[:2])
    off = [passage("Herring", "Herring barrels filled the harbours of the fishing towns."),
           passage("Fleets", "Fishing fleets sailed for herring in the spring.")]
    assert check.drifted(off)
    assert not DriftCheck(GEO_QUESTION).drifted(off)  # no yardstick yet: nothing dropped


class _Encoder:
    """Embeds by keyword: texts about mountains point one way, others another."""

    model_id = "fake"
    fingerprint = "fake"
    dim = 2

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> Any:
        rows = [[1.0, 0.0] if any(w in t.lower() for w in ("mountain", "range", "scandes"))
                else [0.0, 1.0] for t in texts]
        return np.array(rows, dtype=np.float32)


def test_embeddings_let_a_paraphrase_stay_that_key_terms_miss() -> None:
    paraphrase = [passage("Peaks", "That chain of Scandes peaks divides the two kingdoms."),
                  passage("North", "The Scandes peaks are highest in the far north.")]
    by_terms = DriftCheck(GEO_QUESTION)
    by_terms.start(GEO_FOUND[:2])
    with_meaning = DriftCheck(GEO_QUESTION, _Encoder())
    with_meaning.start(GEO_FOUND[:2])
    assert by_terms.drifted(paraphrase) and not with_meaning.drifted(paraphrase)


def test_a_run_does_not_keep_the_results_of_a_drifting_followup(
        make_settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    passages = [*GEO_FOUND, *(passage(f"Herring {n}", f"Herring trade history, part {n}: "
                                      "fishing towns salted herring in barrels.")
                              for n in range(1, 6))]
    model = ScriptedChatModel(script={"questions": [""],
                                      "followups": ["herring trade history fishing barrels"],
                                      "synthesis": ["The Scandes [1]."]})
    engine = MemoryEngine(passages)
    with caplog.at_level(logging.INFO, logger="deepcite.research.iterative_search"):
        result = Researcher(make_settings(iterations=2, query_planning="model"), model,
                            [engine]).run(GEO_QUESTION)
    assert len(result.questions_by_iteration[2]) == 1
    assert "herring" in result.questions_by_iteration[2][0]  # it was searched ...
    assert not [s for s in result.sources if s.title.startswith("Herring")]  # ... not kept
    assert "moved away from the question" in caplog.text
