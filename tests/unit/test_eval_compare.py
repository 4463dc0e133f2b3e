"""deepcite.evaluation.compare: paired bootstrap, pairing by question id, the Markdown.

The bootstrap is checked on cases whose answer is known: identical runs, a clear win
over many questions, and a small noisy difference on few questions.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from deepcite.errors import InputError
from deepcite.evaluation.compare import (
    COST_METRICS,
    METRICS,
    compare_runs,
    paired_bootstrap,
    render_comparison,
)
from tests.unit.test_eval_report import make_config, make_result, write_run


def test_metric_extractors() -> None:
    judged = make_result("a", grade="not_attempted", citation_hit=True, tokens=7)
    unjudged = make_result("b")
    assert METRICS["correct"](judged) == 0.0
    assert METRICS["correct"](make_result("c", grade="correct")) == 1.0
    assert METRICS["correct"](unjudged) is None
    assert METRICS["citation_hit"](judged) == 1.0
    assert METRICS["citation_hit"](unjudged) is None
    assert METRICS["tokens"](judged) == 7.0
    assert set(COST_METRICS) == {"model_calls", "tokens", "seconds"}


def test_paired_bootstrap_identical_runs() -> None:
    values = [random.Random(1).random() for _ in range(30)]
    assert paired_bootstrap(values, values) == (0.0, 0.0, 0.0)
    assert paired_bootstrap([], []) == (0.0, 0.0, 0.0)


def test_paired_bootstrap_clear_win_on_60_questions() -> None:
    rng = random.Random(3)
    a = [float(rng.random() < 0.4) for _ in range(60)]
    b = [1.0 if x or rng.random() < 0.6 else 0.0 for x in a]  # b never loses a question
    mean, low, high = paired_bootstrap(a, b, seed=5)
    assert mean == pytest.approx(sum(b) / 60 - sum(a) / 60)
    assert 0 < low <= mean <= high
    assert paired_bootstrap(a, b, seed=5) == (mean, low, high)  # seeded: reproducible


def test_paired_bootstrap_noisy_small_difference() -> None:
    a = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    b = [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    mean, low, high = paired_bootstrap(a, b)
    assert mean == 0.0
    assert low < 0 < high


def test_paired_bootstrap_rejects_unpaired_values() -> None:
    with pytest.raises(ValueError):
        paired_bootstrap([1.0], [1.0, 2.0])


def _clear_win(tmp_path: Path) -> tuple[Path, Path]:
    """Baseline right on 20 of 60, other on 50 of 60 and slower; other order reversed."""
    base = [make_result(f"q{i}", grade="correct" if i < 20 else "incorrect",
                        f1=1.0 if i < 20 else 0.0, seconds=1.0 + i % 3)
            for i in range(60)]
    other = [make_result(f"q{i}", grade="correct" if i < 50 else "incorrect",
                         f1=1.0 if i < 50 else 0.0, seconds=5.0 + i % 3)
             for i in reversed(range(60))]
    return (write_run(tmp_path / "base", base, make_config("Base")),
            write_run(tmp_path / "other", other, make_config("Better")))


def test_compare_runs_clear_win_and_rendering(tmp_path: Path) -> None:
    base, other = _clear_win(tmp_path)
    comparison = compare_runs([base, other], resamples=500)
    assert comparison.baseline.label == "Base"
    assert [r.label for r in comparison.others] == ["Better"]
    assert comparison.common == {"Better": 60}
    rows = {row.metric: row for row in comparison.rows["Better"]}
    assert list(rows) == list(METRICS)
    correct = rows["correct"]
    assert (correct.baseline, correct.other) == (pytest.approx(20 / 60), pytest.approx(50 / 60))
    assert correct.diff == pytest.approx(0.5)
    assert correct.significant and correct.low is not None and correct.low > 0
    assert rows["seconds"].significant and rows["seconds"].diff == pytest.approx(4.0)
    assert not rows["refused"].significant
    assert rows["citation_hit"].diff is None and rows["citation_hit"].questions == 0

    text = render_comparison(comparison)
    lines = {line.split(" | ")[0]: line for line in text.splitlines()}
    assert "| Correct (judge) | 33.3% | 83.3% | +50.0 pp |" in text
    assert lines["| Correct (judge)"].endswith("| yes, better |")
    assert lines["| F1"].endswith("| yes, better |")
    assert lines["| Seconds/q"].endswith("| yes, worse |")
    assert lines["| Refused"].endswith("| no |")
    assert lines["| Citation hit"].endswith("| – |")
    assert "60 questions answered by both runs." in text
    assert "Not in both" not in text


def test_compare_runs_pairs_by_id_with_partial_overlap(tmp_path: Path) -> None:
    base = write_run(tmp_path / "a", [make_result(f"q{i}", f1=0.5) for i in range(5)])
    other = write_run(tmp_path / "b", [make_result(f"q{i}", f1=0.5) for i in (7, 4, 3, 6, 2)])
    comparison = compare_runs([base, other], metrics=["f1", "correct"])
    assert comparison.common == {"b": 3}
    f1, correct = comparison.rows["b"]
    assert (f1.metric, f1.questions, f1.diff, f1.significant) == ("f1", 3, 0.0, False)
    assert (correct.diff, correct.questions, correct.significant) == (None, 0, False)
    text = render_comparison(comparison)
    assert "3 questions answered by both runs." in text
    assert "Not in both: 2 only in the baseline, 2 only in b" in text


def test_compare_runs_single_pair_is_never_significant(tmp_path: Path) -> None:
    base = write_run(tmp_path / "a", [make_result("q", f1=0.0)])
    other = write_run(tmp_path / "b", [make_result("q", f1=1.0)])
    (f1,) = compare_runs([base, other], metrics=["f1"]).rows["b"]
    assert f1.diff == 1.0 and not f1.significant


def test_compare_runs_expands_a_parent_folder(tmp_path: Path) -> None:
    _clear_win(tmp_path)
    comparison = compare_runs([tmp_path], metrics=["correct"], resamples=200)
    assert comparison.baseline.label == "Base"
    assert list(comparison.rows) == ["Better"]


def test_compare_needs_two_runs(tmp_path: Path) -> None:
    folder = write_run(tmp_path / "only", [make_result("q")])
    with pytest.raises(InputError, match="bench compare needs two or more result folders"):
        compare_runs([folder])


def test_compare_rejects_unknown_metrics(tmp_path: Path) -> None:
    base, other = _clear_win(tmp_path)
    with pytest.raises(InputError, match="Unknown metric 'accuracy'"):
        compare_runs([base, other], metrics=["accuracy"])
