"""deepcite.evaluation.report: reading result folders back, the table, report.md, plots.

Folders are written as the runner writes them (``results.jsonl`` and ``config.json``),
including the damage a killed run leaves: a truncated last line, a question rerun.
Plots are drawn with the real matplotlib.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deepcite.errors import InputError
from deepcite.evaluation import report
from deepcite.evaluation.bench_schema import BenchConfig, QuestionResult
from deepcite.evaluation.report import (
    find_runs,
    load_run,
    load_runs,
    render_table,
    write_report,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def make_result(qid: str, **fields: Any) -> QuestionResult:
    """A QuestionResult with sensible defaults; ``fields`` override them."""
    values: dict[str, Any] = {"id": qid, "index": 0, "question": f"Question {qid}?",
                              "gold": ["gold"], "answer": "**gold** [1]"}
    values.update(fields)
    return QuestionResult.model_validate(values)


def make_config(label: str, **fields: Any) -> BenchConfig:
    values: dict[str, Any] = {"label": label, "dataset": "simpleqa.csv",
                              "dataset_format": "simpleqa", "sample": {"n": 10, "seed": 1},
                              "strategy": "grounded", "provider": "ollama",
                              "model": "qwen3:8b", "judge": "ollama/qwen3:8b",
                              "collections": ["wiki"]}
    values.update(fields)
    return BenchConfig.model_validate(values)


def write_run(folder: Path, results: list[QuestionResult], config: BenchConfig | None = None,
              tail: str = "") -> Path:
    """A results folder; ``tail`` is appended raw to results.jsonl (damage)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(r.model_dump_json() + "\n" for r in results)
    (folder / "results.jsonl").write_text(lines + tail, encoding="utf-8")
    if config is not None:
        (folder / "config.json").write_text(config.model_dump_json(), encoding="utf-8")
    return folder


def known_results() -> list[QuestionResult]:
    """Four questions with hand-countable figures (see test_render_table_values)."""
    return [
        make_result("q1", grade="correct", em=1.0, f1=1.0, contains_gold=True,
                    citation_hit=True, recall_at_5=True, supported=2, valid_citation=True,
                    model_calls=2, tokens=100, seconds=1.0),
        make_result("q2", grade="correct", em=0.0, f1=0.5, contains_gold=True,
                    citation_hit=False, recall_at_5=True, supported=1, unsupported=1,
                    valid_citation=True, model_calls=4, tokens=300, seconds=3.0),
        make_result("q3", grade="incorrect", em=0.0, f1=0.0, citation_hit=None,
                    recall_at_5=None, removed=1, fabricated_citations=2, model_calls=2,
                    tokens=200, seconds=2.0),
        make_result("q4", grade="not_attempted", answer="No sources were found.",
                    refused=True, model_calls=0, tokens=0, seconds=6.0,
                    error="ModelError: timed out"),
    ]


def test_load_run_skips_a_truncated_last_line_and_counts_it(tmp_path: Path) -> None:
    results = known_results()
    truncated = results[0].model_dump_json()[:40]
    folder = write_run(tmp_path / "run", results, tail=truncated)
    run = load_run(folder)
    assert [r.id for r in run.results] == ["q1", "q2", "q3", "q4"]
    assert run.bad_lines == 1
    assert run.summary["questions"] == 4


def test_load_run_last_duplicate_wins_in_first_seen_order(tmp_path: Path) -> None:
    results = [make_result("a", f1=0.1), make_result("b"), make_result("a", f1=0.9)]
    run = load_run(write_run(tmp_path / "run", results, tail="\nnot json\n"))
    assert [r.id for r in run.results] == ["a", "b"]
    assert run.results[0].f1 == 0.9
    assert run.bad_lines == 1  # the blank line is not counted
    assert run.summary["f1"] == pytest.approx(0.45)


def test_label_from_config_else_folder_name(tmp_path: Path) -> None:
    labelled = load_run(write_run(tmp_path / "one", [make_result("a")], make_config("Mine")))
    bare = load_run(write_run(tmp_path / "two", [make_result("a")]))
    assert (labelled.label, labelled.config is not None) == ("Mine", True)
    assert (bare.label, bare.config) == ("two", None)


def test_find_runs_on_a_parent_of_two_run_folders(tmp_path: Path) -> None:
    write_run(tmp_path / "b-run", [make_result("a")])
    write_run(tmp_path / "a-run", [make_result("a")])
    (tmp_path / "empty").mkdir()
    assert find_runs(tmp_path) == [tmp_path / "a-run", tmp_path / "b-run"]
    assert find_runs(tmp_path / "a-run") == [tmp_path / "a-run"]
    assert [r.label for r in load_runs([tmp_path])] == ["a-run", "b-run"]


def test_missing_results_says_how_to_make_them(tmp_path: Path) -> None:
    for call in (load_run, find_runs):
        with pytest.raises(InputError) as caught:
            call(tmp_path)
        message = str(caught.value)
        assert message == (f"No results.jsonl in {tmp_path} - run "
                           f"`deepcite bench run DATASET -o {tmp_path}` first")


def test_duplicate_labels_get_the_folder_name(tmp_path: Path) -> None:
    write_run(tmp_path / "x", [make_result("a")], make_config("Same"))
    write_run(tmp_path / "y", [make_result("a")], make_config("Same"))
    write_run(tmp_path / "z", [make_result("a")], make_config("Other"))
    labels = [r.label for r in load_runs([tmp_path])]
    assert labels == ["Same (x)", "Same (y)", "Other"]


def test_render_table_values(tmp_path: Path) -> None:
    run = load_run(write_run(tmp_path / "run", known_results(), make_config("A | B")))
    table = render_table([run])
    header, rule, row = table.splitlines()[:3]
    assert header.startswith("| Configuration | Questions | Correct (judge) | F-score | EM |")
    assert header.endswith("| Calls/q | Tokens/q | s/q p50 | s/q p95 |")
    assert rule.count("|") == header.count("|")
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    # correct 2/4; given attempted 2/3 -> F = 2*.5*.667/(1.167) = 57.1%; EM 1/4;
    # F1 1.5/4; contains 2/4; citation hit 1/2; recall 2/2; supported 3/5 citations;
    # valid 2/4; refused 1/4; no unanswerable question -> honest refusal "–";
    # fabricated 2; no short answer of the wrong kind 0; calls 8/4; tokens 600/4;
    # seconds 1,2,3,6 -> p50 2.5, p95 5.55.
    assert cells == ["A \\| B", "4", "50.0%", "57.1%", "25.0%", "37.5%", "50.0%", "50.0%",
                     "100.0%", "60.0%", "50.0%", "25.0%", "–", "2", "0", "2.0", "150.0",
                     "2.50", "5.55"]
    assert "Notes:" in table
    assert "1 question(s) ended in an error" in table


def test_render_table_without_judge_or_notes(tmp_path: Path) -> None:
    run = load_run(write_run(tmp_path / "plain", [make_result("a", f1=0.61)]))
    table = render_table([run])
    row = table.splitlines()[2]
    assert row.startswith("| plain | 1 | – | – | 0.0% | 61.0% |")
    assert "Notes" not in table


def test_render_table_notes_judge_errors_bad_lines_and_empty_runs(tmp_path: Path) -> None:
    judged = write_run(tmp_path / "judged", [make_result("a", judge_error="bad reply")],
                       tail="{\"id\": \"tru")
    empty = write_run(tmp_path / "empty", [])
    table = render_table(load_runs([judged, empty]))
    assert "judged: 1 judge reply(ies) unusable" in table
    assert "judged: 1 unreadable line(s) of results.jsonl skipped" in table
    assert "| empty | 0 | – |" in table
    assert table.count("| – | – | – | – |") >= 1  # the empty run's costs
    assert "empty: no results yet; left out of the plots." in table


def _assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 1024


def test_write_report_writes_markdown_and_two_pngs(tmp_path: Path) -> None:
    first = write_run(tmp_path / "runs" / "base", known_results(), make_config("Baseline"))
    unjudged = [make_result(f"q{i}", f1=0.3 * i, seconds=float(i)) for i in range(1, 4)]
    write_run(tmp_path / "runs" / "plain", unjudged, make_config("No judge", judge=None))
    write_run(tmp_path / "runs" / "zero", [], make_config("Nothing yet"))
    out = tmp_path / "out"
    files = write_report([tmp_path / "runs"], out)
    assert files.markdown == out / "report.md"
    text = files.markdown.read_text(encoding="utf-8")
    assert text.startswith("# deepcite bench report")
    for needle in ("Baseline", "No judge", "Nothing yet", "Generated ", "- dataset: simpleqa.csv",
                   "- model: qwen3:8b", "- judge: none", "- collections: wiki",
                   "accuracy_vs_cost.png", "citations.png"):
        assert needle in text
    assert files.plots == [out / "accuracy_vs_cost.png", out / "citations.png"]
    for plot in files.plots:
        _assert_png(plot)
    assert first.exists()


def test_write_report_defaults_to_the_first_folder(tmp_path: Path) -> None:
    folder = write_run(tmp_path / "run", known_results())
    files = write_report([folder])
    assert files.markdown == folder / "report.md"
    assert "| run | 4 |" in files.markdown.read_text(encoding="utf-8")
    for plot in files.plots:
        _assert_png(plot)


def test_missing_matplotlib_still_writes_the_table(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def no_matplotlib() -> Any:
        raise InputError("Plots need matplotlib - pip install 'deepcite[bench]'")

    monkeypatch.setattr(report, "_figure_class", no_matplotlib)
    folder = write_run(tmp_path / "run", known_results(), make_config("Kept"))
    with pytest.raises(InputError, match=r"deepcite\[bench\]"):
        write_report([folder])
    text = (folder / "report.md").read_text(encoding="utf-8")
    assert "| Kept | 4 |" in text
    assert "accuracy_vs_cost.png" not in text
    assert not (folder / "accuracy_vs_cost.png").exists()


def test_import_helper_reports_a_missing_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(InputError, match=r"pip install 'deepcite\[bench\]'"):
        report._figure_class()
