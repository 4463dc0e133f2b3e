"""``summary.json``: the per-question results of one run, aggregated.

Shares are fractions in [0, 1] over the questions they apply to (``None`` when none
does: no judge, no gold passage, no unanswerable question); citation shares are over
all citations checked plus removed. Cost fields get ``mean``, ``p50``, ``p95`` and
``total``. The keys are documented in ``docs/benchmarks.md``; reports and comparisons
read them by name.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from deepcite.evaluation.bench_schema import QuestionResult
from deepcite.evaluation.metrics import percentile

#: Per-question cost fields, aggregated with percentiles.
COST_FIELDS = ("model_calls", "prompt_tokens", "completion_tokens", "tokens",
               "cached_tokens", "searches", "seconds")


def mean_of(values: Sequence[float]) -> float | None:
    """The mean, or ``None`` for no values."""
    return statistics.fmean(values) if values else None


def _share(results: Sequence[QuestionResult],
           test: Callable[[QuestionResult], bool | None]) -> float | None:
    values = [v for v in (test(r) for r in results) if v is not None]
    return mean_of([float(v) for v in values])


def grade_figures(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """SimpleQA's figures: correct/incorrect/not attempted shares, and its F-score.

    ``accuracy_given_attempted`` is correct over correct + incorrect; ``f_score`` the
    harmonic mean of that and ``correct`` (SimpleQA's single number).
    """
    graded = [r.grade for r in results if r.grade is not None]
    if not graded:
        return {"judged": 0, "correct": None, "incorrect": None, "not_attempted": None,
                "accuracy_given_attempted": None, "f_score": None}
    n = len(graded)
    correct = graded.count("correct") / n
    incorrect = graded.count("incorrect") / n
    attempted = correct + incorrect
    given = correct / attempted if attempted else 0.0
    f_score = 2 * correct * given / (correct + given) if correct + given else 0.0
    return {"judged": n, "correct": correct, "incorrect": incorrect,
            "not_attempted": graded.count("not_attempted") / n,
            "accuracy_given_attempted": given, "f_score": f_score}


def citation_figures(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """Outcome shares of all citations, and totals of fabricated/unsupported ones."""
    supported = sum(r.supported for r in results)
    partial = sum(r.partial for r in results)
    unsupported = sum(r.unsupported for r in results)
    removed = sum(r.removed for r in results)
    total = supported + partial + unsupported + removed
    share = (lambda n: n / total) if total else (lambda n: None)
    return {
        "citations_total": total,
        "supported_share": share(supported), "partial_share": share(partial),
        "unsupported_share": share(unsupported), "removed_share": share(removed),
        "valid_citation_share": _share(results, lambda r: r.valid_citation),
        "fabricated_citations": sum(r.fabricated_citations for r in results),
        "unsupported_citations": sum(r.unsupported_citations for r in results),
    }


def cost_figures(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """Mean, p50, p95 and total of every cost field."""
    figures: dict[str, Any] = {}
    for field in COST_FIELDS:
        values = [float(getattr(r, field)) for r in results]
        figures[field] = {"mean": mean_of(values) or 0.0, "p50": percentile(values, 50),
                          "p95": percentile(values, 95), "total": sum(values)}
    return figures


def summarise(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """Everything ``summary.json`` holds, from the per-question results."""
    unanswerable = [r for r in results if r.gold_in_collection is False]
    return {
        "questions": len(results),
        "errors": sum(r.error is not None for r in results),
        **grade_figures(results),
        "judge_errors": sum(r.judge_error is not None for r in results),
        "em": mean_of([r.em for r in results]),
        "f1": mean_of([r.f1 for r in results]),
        "contains_gold": _share(results, lambda r: r.contains_gold),
        "citation_hit": _share(results, lambda r: r.citation_hit),
        "recall_at_5": _share(results, lambda r: r.recall_at_5),
        "gold_passages": sum(r.recall_at_5 is not None for r in results),
        **citation_figures(results),
        "refused": _share(results, lambda r: r.refused),
        "short_answers": sum(r.wrong_type_lead is not None for r in results),
        "wrong_type_leads": sum(bool(r.wrong_type_lead) for r in results),
        "fallback": _share(results, lambda r: r.fallback),
        "unanswerable_questions": len(unanswerable),
        "honest_refusal_rate": mean_of([float(r.refused) for r in unanswerable]),
        "answerable_refused": _share([r for r in results if r.gold_in_collection],
                                     lambda r: r.refused),
        "cost": cost_figures(results),
    }
