"""``deepcite bench`` on the real bundled model and index, as docs/benchmarks.md runs it.

A SQuAD-format file becomes its own collection and every question gets retrieval and
citation figures; a SimpleQA-format table asked against the demo collection (which
cannot answer it) must be refused honestly, with no fabricated citation.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

DEEPCITE = str(Path(sys.executable).parent / "deepcite")

ARTICLES = {
    "Zorvian lighthouse": [
        "The Zorvian lighthouse stands on the northern cape of Velmar Island. It was built "
        "in 1887 by the engineer Ada Kettle, who also designed the harbour wall.",
        "The lighthouse lamp was converted from paraffin to electricity in 1931. Its beam "
        "can be seen from 34 kilometres away on a clear night.",
    ],
    "Velmar cheese": [
        "Velmar cheese is made from the milk of Brindle goats grazing on the island's "
        "western meadows. It is aged for nine months in limestone caves.",
        "The annual Velmar cheese market takes place in the town of Orrin every October, "
        "and draws traders from the mainland.",
    ],
}
QUESTIONS = [
    ("Who built the Zorvian lighthouse?", "Ada Kettle", "Zorvian lighthouse", 0),
    ("When was the Zorvian lighthouse lamp converted to electricity?", "1931",
     "Zorvian lighthouse", 1),
    ("In which town does the Velmar cheese market take place?", "Orrin", "Velmar cheese", 1),
]


def _squad(path: Path) -> Path:
    data = []
    for title, paragraphs in ARTICLES.items():
        entries = []
        for index, context in enumerate(paragraphs):
            qas = [{"id": f"q{n}", "question": q,
                    "answers": [{"text": a, "answer_start": context.find(a)}]}
                   for n, (q, a, t, p) in enumerate(QUESTIONS) if t == title and p == index]
            entries.append({"context": context, "qas": qas})
        data.append({"title": title, "paragraphs": entries})
    path.write_text(json.dumps({"version": "1.1", "data": data}), encoding="utf-8")
    return path


def _run(args: list[str], data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=str(data_dir), DEEPCITE_LLM_PROVIDER="local",
               OLLAMA_HOST="127.0.0.1:1", NO_COLOR="1", COLUMNS="250")
    return subprocess.run([DEEPCITE, *args], capture_output=True, text=True, env=env,
                          timeout=600, check=False)


def _results(folder: Path) -> list[dict[str, object]]:
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_squad_format_run_builds_its_collection_and_finds_the_gold_passages(
        tmp_path: Path) -> None:
    out = tmp_path / "squad-run"
    result = _run(["bench", "run", str(_squad(tmp_path / "tiny.json")), "-o", str(out),
                   "-q"], tmp_path / "data")
    assert result.returncode == 0, result.stderr
    results = _results(out)
    assert len(results) == len(QUESTIONS)
    for row in results:
        assert row["fabricated_citations"] == 0
        assert row["recall_at_5"] is True, row  # two documents per article: always found
        assert row["error"] is None
    # The answers are built from the sources' own sentences: most quote the gold one.
    assert sum(bool(row["citation_hit"]) for row in results) >= 2
    assert sum(bool(row["contains_gold"]) for row in results) >= 2
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["questions"] == 3 and summary["recall_at_5"] == 1.0
    assert "Recall@5" in result.stdout


def test_questions_the_demo_collection_cannot_answer_are_refused_without_fabrication(
        tmp_path: Path) -> None:
    table = tmp_path / "simpleqa.csv"
    with table.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["metadata", "problem", "answer"])
        writer.writerow(["{'topic': 'Sports'}",
                         "Who won the Zorvian Chess Cup held in Orrin in 1987?",
                         "Ada Kettle"])
        writer.writerow(["{'topic': 'Music'}",
                         "Which record label released the debut album of the Brindle "
                         "Goats Quartet?", "Velmar Records"])
        writer.writerow(["{'topic': 'Geography'}",
                         "How many lighthouses stand on Velmar Island in Norway?", "3"])
    out = tmp_path / "refusals"
    result = _run(["bench", "run", str(table), "-c", "demo", "-o", str(out), "-q"],
                  tmp_path / "data")
    assert result.returncode == 0, result.stderr
    results = _results(out)
    assert len(results) == 3
    assert all(row["gold_in_collection"] is False for row in results)
    assert all(row["refused"] for row in results), [row["answer"] for row in results]
    assert sum(int(str(row["fabricated_citations"])) for row in results) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["honest_refusal_rate"] == 1.0
    assert summary["fabricated_citations"] == 0
