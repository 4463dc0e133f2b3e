"""deepcite.evaluation.summary: summary.json figures from hand-built results.

Every expected value is counted by hand in the test's comment.
"""

from __future__ import annotations

from typing import Any

import pytest

from deepcite.evaluation.bench_schema import QuestionResult
from deepcite.evaluation.summary import (
    COST_FIELDS,
    citation_figures,
    cost_figures,
    grade_figures,
    mean_of,
    summarise,
)


def make_result(qid: str, **fields: Any) -> QuestionResult:
    """A QuestionResult with sensible defaults; ``fields`` override them."""
    values: dict[str, Any] = {"id": qid, "index": 0, "question": f"Question {qid}?",
                              "gold": ["gold"], "answer": "**gold** [1]"}
    values.update(fields)
    return QuestionResult.model_validate(values)


def graded(correct: int, incorrect: int, not_attempted: int,
           unjudged: int = 0) -> list[QuestionResult]:
    grades = (["correct"] * correct + ["incorrect"] * incorrect
              + ["not_attempted"] * not_attempted + [None] * unjudged)
    return [make_result(f"q{i}", grade=g) for i, g in enumerate(grades)]


# --- grades --------------------------------------------------------------------------


def test_grade_shares_and_simpleqa_f_score() -> None:
    figures = grade_figures(graded(6, 2, 2))
    assert figures["judged"] == 10
    assert figures["correct"] == pytest.approx(0.6)
    assert figures["incorrect"] == pytest.approx(0.2)
    assert figures["not_attempted"] == pytest.approx(0.2)
    assert figures["accuracy_given_attempted"] == pytest.approx(0.75)
    assert figures["f_score"] == pytest.approx(2 * 0.6 * 0.75 / 1.35)


def test_unjudged_questions_are_left_out_of_grade_shares() -> None:
    # judge errors (grade None) do not count: 1 correct of 2 judged
    figures = grade_figures(graded(1, 1, 0, unjudged=3))
    assert figures["judged"] == 2
    assert figures["correct"] == pytest.approx(0.5)
    assert figures["accuracy_given_attempted"] == pytest.approx(0.5)
    assert figures["f_score"] == pytest.approx(0.5)


def test_nothing_attempted_or_nothing_correct_scores_zero() -> None:
    none_attempted = grade_figures(graded(0, 0, 3))
    assert none_attempted["not_attempted"] == 1.0
    assert none_attempted["accuracy_given_attempted"] == 0.0
    assert none_attempted["f_score"] == 0.0
    all_wrong = grade_figures(graded(0, 2, 0))
    assert all_wrong["accuracy_given_attempted"] == 0.0
    assert all_wrong["f_score"] == 0.0
    all_right = grade_figures(graded(4, 0, 0))
    assert (all_right["correct"], all_right["f_score"]) == (1.0, 1.0)


def test_no_judged_results_give_none_figures() -> None:
    expected = {"judged": 0, "correct": None, "incorrect": None, "not_attempted": None,
                "accuracy_given_attempted": None, "f_score": None}
    assert grade_figures(graded(0, 0, 0, unjudged=3)) == expected
    assert grade_figures([]) == expected


# --- citations -------------------------------------------------------------------------


def test_citation_shares_over_all_outcomes_and_removed() -> None:
    results = [
        make_result("a", supported=3, partial=1, valid_citation=True,
                    fabricated_citations=1),
        make_result("b", unsupported=2, removed=1, unsupported_citations=2),
        make_result("c", supported=1, removed=2, valid_citation=True,
                    fabricated_citations=2),
        make_result("d"),
    ]
    figures = citation_figures(results)
    # supported 4, partial 1, unsupported 2, removed 3 -> 10
    assert figures["citations_total"] == 10
    assert figures["supported_share"] == pytest.approx(0.4)
    assert figures["partial_share"] == pytest.approx(0.1)
    assert figures["unsupported_share"] == pytest.approx(0.2)
    assert figures["removed_share"] == pytest.approx(0.3)
    assert figures["valid_citation_share"] == pytest.approx(0.5)  # 2 of 4 questions
    assert figures["fabricated_citations"] == 3
    assert figures["unsupported_citations"] == 2


def test_no_citations_give_none_shares() -> None:
    figures = citation_figures([make_result("a"), make_result("b")])
    assert figures["citations_total"] == 0
    for key in ("supported_share", "partial_share", "unsupported_share", "removed_share"):
        assert figures[key] is None
    assert figures["valid_citation_share"] == 0.0
    assert citation_figures([])["valid_citation_share"] is None


# --- cost ------------------------------------------------------------------------------


def test_cost_percentiles_totals_and_means() -> None:
    results = [make_result(f"q{s}", seconds=float(s), model_calls=s, tokens=100 * s,
                           prompt_tokens=80 * s, completion_tokens=20 * s, searches=1)
               for s in (1, 2, 3, 6)]
    cost = cost_figures(results)
    assert set(cost) == set(COST_FIELDS)
    # seconds 1, 2, 3, 6: mean 3, p50 2.5, p95 = 3 + 0.85 * 3 = 5.55, total 12
    assert cost["seconds"] == pytest.approx({"mean": 3.0, "p50": 2.5, "p95": 5.55,
                                             "total": 12.0})
    assert cost["tokens"] == pytest.approx({"mean": 300.0, "p50": 250.0, "p95": 555.0,
                                            "total": 1200.0})
    assert cost["searches"] == {"mean": 1.0, "p50": 1.0, "p95": 1.0, "total": 4.0}
    assert cost["model_calls"]["total"] == 12.0


def test_cost_of_nothing_is_zero() -> None:
    cost = cost_figures([])
    for field in COST_FIELDS:
        assert cost[field] == {"mean": 0.0, "p50": 0.0, "p95": 0.0, "total": 0.0}


# --- summarise -----------------------------------------------------------------------------


def known_results() -> list[QuestionResult]:
    return [
        make_result("q1", grade="correct", em=1.0, f1=1.0, contains_gold=True,
                    citation_hit=True, recall_at_5=True, supported=2, valid_citation=True,
                    gold_in_collection=True, seconds=1.0),
        make_result("q2", grade="incorrect", f1=0.5, contains_gold=True, citation_hit=False,
                    recall_at_5=False, unsupported=1, gold_in_collection=True, refused=True,
                    seconds=2.0),
        make_result("q3", judge_error="unusable judge reply: 'hm'", refused=True,
                    answer="No sources were found.", gold_in_collection=False, seconds=3.0),
        make_result("q4", grade="not_attempted", gold_in_collection=False, fallback=True,
                    seconds=4.0),
        make_result("q5", grade="correct", gold_in_collection=None, error="ModelError: x",
                    refused=True, seconds=5.0),
    ]


def test_summarise_known_results() -> None:
    summary = summarise(known_results())
    assert summary["questions"] == 5
    assert summary["errors"] == 1
    assert summary["judge_errors"] == 1
    # 4 judged: 2 correct, 1 incorrect, 1 not attempted
    assert summary["judged"] == 4
    assert summary["correct"] == pytest.approx(0.5)
    assert summary["accuracy_given_attempted"] == pytest.approx(2 / 3)
    assert summary["em"] == pytest.approx(0.2)
    assert summary["f1"] == pytest.approx(0.3)
    assert summary["contains_gold"] == pytest.approx(0.4)
    # only q1 and q2 have a gold passage
    assert summary["citation_hit"] == pytest.approx(0.5)
    assert summary["recall_at_5"] == pytest.approx(0.5)
    assert summary["gold_passages"] == 2
    assert summary["citations_total"] == 3
    assert summary["supported_share"] == pytest.approx(2 / 3)
    assert summary["refused"] == pytest.approx(0.6)
    assert summary["fallback"] == pytest.approx(0.2)
    assert summary["cost"]["seconds"]["p50"] == 3.0


def test_honest_refusal_rate_only_over_answers_not_in_the_collection() -> None:
    summary = summarise(known_results())
    # gold_in_collection False: q3 (refused) and q4 (answered) -> 1/2; q5 (None) and
    # the answerable q2 (refused) do not count
    assert summary["unanswerable_questions"] == 2
    assert summary["honest_refusal_rate"] == pytest.approx(0.5)
    # gold_in_collection True: q1 (answered), q2 (refused) -> 1/2
    assert summary["answerable_refused"] == pytest.approx(0.5)


def test_no_unanswerable_or_local_questions_give_none() -> None:
    results = [make_result("a", refused=True), make_result("b")]
    summary = summarise(results)
    assert summary["unanswerable_questions"] == 0
    assert summary["honest_refusal_rate"] is None
    assert summary["answerable_refused"] is None
    assert summary["refused"] == pytest.approx(0.5)
    assert summary["citation_hit"] is None
    assert summary["recall_at_5"] is None
    assert summary["gold_passages"] == 0


def test_summarise_nothing_does_not_crash() -> None:
    summary = summarise([])
    assert summary["questions"] == 0
    assert summary["errors"] == 0
    assert summary["judged"] == 0
    for key in ("correct", "f_score", "em", "f1", "contains_gold", "citation_hit",
                "recall_at_5", "supported_share", "valid_citation_share", "refused",
                "fallback", "honest_refusal_rate", "answerable_refused"):
        assert summary[key] is None, key
    assert summary["citations_total"] == 0
    assert summary["cost"]["seconds"] == {"mean": 0.0, "p50": 0.0, "p95": 0.0, "total": 0.0}


def test_summary_is_json_serialisable() -> None:
    import json

    for results in ([], known_results()):
        assert json.loads(json.dumps(summarise(results)))["questions"] == len(results)


def test_mean_of() -> None:
    assert mean_of([]) is None
    assert mean_of([1.0, 2.0]) == 1.5
