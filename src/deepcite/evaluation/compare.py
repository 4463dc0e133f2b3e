"""``deepcite bench compare``: is one configuration really better than another?

Benchmark samples are small (tens to hundreds of questions), so a few points of
accuracy can be noise. Runs are compared on the questions both answered, paired by
question id, and each metric's mean difference gets a paired bootstrap interval over
questions: the difference counts as beyond noise only when the interval excludes zero.
The bootstrap is pure Python with a seeded :class:`random.Random`, so the same folders
always give the same report.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from deepcite.errors import InputError
from deepcite.evaluation.bench_schema import QuestionResult
from deepcite.evaluation.metrics import percentile
from deepcite.evaluation.report import NONE, Run, escape, load_runs

Extractor = Callable[[QuestionResult], float | None]


def _flag(value: bool | None) -> float | None:
    return None if value is None else float(value)


#: Per-question values compared, by name; ``None`` where a question has none.
METRICS: dict[str, Extractor] = {
    "correct": lambda r: None if r.grade is None else float(r.grade == "correct"),
    "em": lambda r: r.em,
    "f1": lambda r: r.f1,
    "contains_gold": lambda r: float(r.contains_gold),
    "citation_hit": lambda r: _flag(r.citation_hit),
    "recall_at_5": lambda r: _flag(r.recall_at_5),
    "valid_citation": lambda r: float(r.valid_citation),
    "refused": lambda r: float(r.refused),
    "fabricated_citations": lambda r: float(r.fabricated_citations),
    "model_calls": lambda r: float(r.model_calls),
    "tokens": lambda r: float(r.tokens),
    "seconds": lambda r: r.seconds,
}
#: Costs: lower is better.
COST_METRICS = frozenset({"model_calls", "tokens", "seconds"})
#: Lower is better, though not a cost.
LOWER_IS_BETTER = COST_METRICS | {"fabricated_citations"}
#: Neither direction is better: refusing is right on unanswerable questions only.
NEUTRAL_METRICS = frozenset({"refused"})
#: Shown as percentages, differences as percentage points.
SHARE_METRICS = frozenset({"correct", "em", "f1", "contains_gold", "citation_hit",
                           "recall_at_5", "valid_citation", "refused"})
TITLES = {"correct": "Correct (judge)", "em": "EM", "f1": "F1", "contains_gold": "Contains gold",
          "citation_hit": "Citation hit", "recall_at_5": "Recall@5",
          "valid_citation": "Valid citation", "refused": "Refused",
          "fabricated_citations": "Fabricated citations/q", "model_calls": "Model calls/q",
          "tokens": "Tokens/q", "seconds": "Seconds/q"}


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, resamples: int = 2000,
                     seed: int = 0, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean of ``b - a`` over pairs (by position) and its percentile bootstrap interval.

    Questions are resampled with replacement ``resamples`` times; the interval is the
    central ``confidence`` share of the resampled mean differences.
    """
    if len(a) != len(b):
        raise ValueError(f"paired_bootstrap needs pairs: {len(a)} values against {len(b)}")
    if not 0 < confidence < 1 or resamples < 1:
        raise ValueError("paired_bootstrap needs 0 < confidence < 1 and resamples >= 1")
    if not a:
        return 0.0, 0.0, 0.0
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    mean = statistics.fmean(diffs)
    if min(diffs) == max(diffs):  # every resample has the same mean
        return mean, mean, mean
    rng, n = random.Random(seed), len(diffs)
    means = [sum(rng.choices(diffs, k=n)) / n for _ in range(resamples)]
    tail = 100 * (1 - confidence) / 2
    return mean, percentile(means, tail), percentile(means, 100 - tail)


@dataclass
class Difference:
    """One metric of one run against the baseline, over the questions both have."""

    metric: str
    baseline: float | None
    other: float | None
    diff: float | None
    low: float | None
    high: float | None
    #: Pairs used: questions in both runs where the metric has a value in both.
    questions: int
    #: The interval excludes zero (never with fewer than two pairs).
    significant: bool


@dataclass
class Comparison:
    """The baseline (first run) against every other run."""

    baseline: Run
    others: list[Run]
    #: Label of the other run -> its differences, in metric order.
    rows: dict[str, list[Difference]]
    #: Label of the other run -> questions both runs answered.
    common: dict[str, int]


def difference(metric: str, pairs: Sequence[tuple[QuestionResult, QuestionResult]], *,
               resamples: int = 2000, seed: int = 0) -> Difference:
    """Compare one metric over paired results (baseline, other)."""
    extract = METRICS[metric]
    values = [(x, y) for x, y in ((extract(p), extract(q)) for p, q in pairs)
              if x is not None and y is not None]
    if not values:
        return Difference(metric, None, None, None, None, None, 0, False)
    a, b = [x for x, _ in values], [y for _, y in values]
    diff, low, high = paired_bootstrap(a, b, resamples=resamples, seed=seed)
    significant = len(values) >= 2 and (low > 0 or high < 0)
    return Difference(metric, statistics.fmean(a), statistics.fmean(b), diff, low, high,
                      len(values), significant)


def compare_runs(folders: Sequence[Path], *, metrics: Sequence[str] | None = None,
                 resamples: int = 2000, seed: int = 0) -> Comparison:
    """Load the runs under ``folders``; the first is the baseline for all others."""
    names = list(metrics) if metrics is not None else list(METRICS)
    unknown = [name for name in names if name not in METRICS]
    if unknown:
        raise InputError(f"Unknown metric {unknown[0]!r} - choose from: {', '.join(METRICS)}")
    runs = load_runs(folders)
    if len(runs) < 2:
        raise InputError(f"bench compare needs two or more result folders (found {len(runs)})"
                         " - pass each run's folder, or one folder holding several runs")
    baseline, others = runs[0], runs[1:]
    rows: dict[str, list[Difference]] = {}
    common: dict[str, int] = {}
    for other in others:
        theirs = {r.id: r for r in other.results}
        pairs = [(r, theirs[r.id]) for r in baseline.results if r.id in theirs]
        common[other.label] = len(pairs)
        rows[other.label] = [difference(name, pairs, resamples=resamples, seed=seed)
                             for name in names]
    return Comparison(baseline=baseline, others=others, rows=rows, common=common)


def _number(metric: str, value: float | None) -> str:
    if value is None:
        return NONE
    if metric in SHARE_METRICS:
        return f"{100 * value:.1f}%"
    return f"{value:.1f}" if metric == "tokens" else f"{value:.2f}"


def _delta(metric: str, value: float | None) -> str:
    if value is None:
        return NONE
    if metric in SHARE_METRICS:
        return f"{100 * value:+.1f} pp"
    return f"{value:+.1f}" if metric == "tokens" else f"{value:+.2f}"


def verdict(row: Difference) -> str:
    """``yes, better``/``yes, worse`` (``higher``/``lower`` where neither is), or ``no``."""
    if row.diff is None:
        return NONE
    if not row.significant:
        return "no"
    if row.metric in NEUTRAL_METRICS:
        return "yes, higher" if row.diff > 0 else "yes, lower"
    better = row.diff < 0 if row.metric in LOWER_IS_BETTER else row.diff > 0
    return "yes, better" if better else "yes, worse"


def render_comparison(comparison: Comparison) -> str:
    """Markdown: per other run, a table of each metric against the baseline."""
    base = comparison.baseline
    lines = ["# deepcite bench comparison", "",
             f"Baseline: **{escape(base.label)}** ({len(base.results)} questions). "
             "Differences are other minus baseline over the questions both runs answered, "
             "with a 95% paired bootstrap interval over questions; a difference is beyond "
             "noise when its interval excludes zero.", ""]
    for other in comparison.others:
        common = comparison.common[other.label]
        lines += [f"## {escape(other.label)} vs. {escape(base.label)}", "",
                  f"{common} questions answered by both runs."]
        only_base, only_other = len(base.results) - common, len(other.results) - common
        if only_base or only_other:
            lines[-1] += (f" Not in both: {only_base} only in the baseline, {only_other} only "
                          f"in {escape(other.label)}; they are left out.")
        lines += ["", f"| Metric | {escape(base.label)} | {escape(other.label)} | Difference "
                  "| 95% interval | Beyond noise? |", "|---|---:|---:|---:|---:|---|"]
        for row in comparison.rows[other.label]:
            interval = (NONE if row.low is None or row.high is None else
                        f"{_delta(row.metric, row.low)} to {_delta(row.metric, row.high)}")
            lines.append(f"| {TITLES[row.metric]} | {_number(row.metric, row.baseline)} | "
                         f"{_number(row.metric, row.other)} | {_delta(row.metric, row.diff)} | "
                         f"{interval} | {verdict(row)} |")
        lines.append("")
    return "\n".join(lines)
