"""``deepcite bench run|report|compare`` as a user drives them, the model faked.

A tiny SQuAD file is indexed into its own collection on the first run (no network),
so every question is answered from made-up facts only that collection holds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app
from tests.fakes import ScriptedChatModel

runner = CliRunner()

SQUAD: dict[str, Any] = {
    "version": "1.1",
    "data": [
        {"title": "Zorvian Lighthouse", "paragraphs": [
            {"context": "The Zorvian lighthouse was built in 1887 by Ada Kettle.", "qas": [
                {"id": "z1", "question": "Who built the Zorvian lighthouse?",
                 "answers": [{"text": "Ada Kettle"}]},
                {"id": "z2", "question": "When was the Zorvian lighthouse built?",
                 "answers": [{"text": "1887"}]}]},
            {"context": "The lamp of the Zorvian lighthouse burns whale oil from Quenby "
                        "harbour.", "qas": [
                {"id": "z3", "question": "What does the lamp of the Zorvian lighthouse burn?",
                 "answers": [{"text": "whale oil"}]}]},
            {"context": "Storms closed the Zorvian lighthouse for repairs in 1923.",
             "qas": []},
        ]},
        {"title": "Plimwick Bakery", "paragraphs": [
            {"context": "The Plimwick bakery sells a blue rye loaf called the Marrowby.",
             "qas": [
                 {"id": "p1",
                  "question": "What is the blue rye loaf of the Plimwick bakery called?",
                  "answers": [{"text": "the Marrowby"}]}]},
            {"context": "Plimwick bakers rise at four o'clock to light the brick ovens.",
             "qas": [
                 {"id": "p2", "question": "At what time do Plimwick bakers rise?",
                  "answers": [{"text": "four o'clock"}]}]},
            {"context": "The Plimwick bakery was founded by Tobias Wren.", "qas": []},
        ]},
    ],
}


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(SQUAD), encoding="utf-8")
    return path


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    fake = ScriptedChatModel(default="")
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: fake)
    return fake


def bench(*args: str) -> Any:
    return runner.invoke(app, ["bench", *args])


def run_into(dataset: Path, folder: Path, *extra: str) -> Any:
    result = bench("run", str(dataset), "-o", str(folder), "-q", *extra)
    assert result.exit_code == 0, result.output
    return result


def result_lines(folder: Path) -> list[dict[str, Any]]:
    text = (folder / "results.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def label_of(folder: Path) -> str:
    label: str = json.loads((folder / "config.json").read_text(encoding="utf-8"))["label"]
    return label


def test_run_prints_the_table_and_resumes(tiny: Path, model: ScriptedChatModel,
                                          tmp_path: Path) -> None:
    folder = tmp_path / "out"
    result = run_into(tiny, folder, "-n", "3")

    label = label_of(folder)
    assert label in result.stdout
    assert "|" in result.stdout and "---" in result.stdout  # a Markdown table
    assert len(result_lines(folder)) == 3
    assert (folder / "summary.json").is_file()
    assert "Resumed" not in result.output
    calls = len(model.calls)

    again = run_into(tiny, folder, "-n", "3")

    assert "Resumed: 3 questions were already done" in again.stderr
    assert "Resumed" not in again.stdout
    assert len(result_lines(folder)) == 3
    assert len(model.calls) == calls
    assert label in again.stdout


def test_run_on_a_missing_file_names_it(tiny: Path, model: ScriptedChatModel,
                                        tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    # A wide terminal, so rich does not wrap the long tmp path onto more lines.
    result = runner.invoke(app, ["bench", "run", str(missing), "-o", str(tmp_path / "out"),
                                 "-q"], env={"COLUMNS": "500"})

    assert result.exit_code == 2
    message = result.stderr.strip()
    assert "nowhere.json" in message
    assert len(message.splitlines()) == 1
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_report_writes_markdown_and_plots(tiny: Path, model: ScriptedChatModel,
                                          tmp_path: Path) -> None:
    folder = tmp_path / "out"
    run_into(tiny, folder, "-n", "2")

    result = bench("report", str(folder))

    assert result.exit_code == 0, result.output
    for name in ("report.md", "accuracy_vs_cost.png", "citations.png"):
        assert (folder / name).is_file(), name
    assert (folder / "accuracy_vs_cost.png").read_bytes().startswith(b"\x89PNG")
    assert label_of(folder) in (folder / "report.md").read_text(encoding="utf-8")
    assert label_of(folder) in result.stdout


def test_compare_two_runs_prints_both_labels(tiny: Path, model: ScriptedChatModel,
                                             tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    run_into(tiny, one, "-n", "3", "--iterations", "1", "--label", "one pass")
    run_into(tiny, two, "-n", "3", "--iterations", "2", "--label", "two passes")

    result = bench("compare", str(one), str(two), "--resamples", "200")

    assert result.exit_code == 0, result.output
    assert "one pass" in result.stdout and "two passes" in result.stdout


def test_compare_needs_two_runs(tiny: Path, model: ScriptedChatModel, tmp_path: Path) -> None:
    folder = tmp_path / "one"
    run_into(tiny, folder, "-n", "2")

    result = bench("compare", str(folder))

    assert result.exit_code == 2
    assert "two or more" in result.stderr


def test_run_into_a_folder_of_another_configuration_is_refused(
        tiny: Path, model: ScriptedChatModel, tmp_path: Path) -> None:
    folder = tmp_path / "out"
    run_into(tiny, folder, "-n", "2", "--iterations", "1")

    result = bench("run", str(tiny), "-o", str(folder), "-q", "-n", "2", "--iterations", "3")

    assert result.exit_code == 2
    assert "another -o folder" in result.stderr
    assert len(result_lines(folder)) == 2
