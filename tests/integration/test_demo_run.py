"""The README's promise, for real: bundled model, real index, no network, no keys."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from deepcite import quick_summary
from deepcite.citations import cited_numbers

pytestmark = pytest.mark.integration

QUESTION = "How do I parse command line arguments?"
DEEPCITE = str(Path(sys.executable).parent / "deepcite")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("deepcite-data")


def _run(args: list[str], data_dir: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=str(data_dir), DEEPCITE_LLM_PROVIDER="local",
               OLLAMA_HOST="127.0.0.1:1", NO_COLOR="1", COLUMNS="200")
    return subprocess.run([DEEPCITE, *args], capture_output=True, text=True, env=env,
                          timeout=timeout, check=False)


def _source_numbers(block: str) -> set[int]:
    numbers: set[int] = set()
    for match in re.finditer(r"^\[([\d, ]+)\] ", block, re.MULTILINE):
        numbers.update(int(n) for n in match.group(1).split(","))
    return numbers


def test_ask_on_the_demo_collection_cites_only_listed_sources(data_dir: Path) -> None:
    result = _run(["ask", QUESTION, "--collection", "demo"], data_dir)
    assert result.returncode == 0, result.stderr
    answer, heading, block = result.stdout.partition("## Sources")
    assert heading, result.stdout
    assert answer.strip()
    listed = _source_numbers(block)
    assert listed, block
    assert set(cited_numbers(answer)) <= listed
    assert "argparse" in block
    assert "file://" in block and "Collection: demo" in block


def test_json_result_and_the_model_call_budget(data_dir: Path) -> None:
    result = _run(["ask", QUESTION, "-c", "demo", "--iterations", "2", "--json", "-q"],
                  data_dir)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    numbers = {s["number"] for s in data["sources"]}
    assert set(cited_numbers(data["answer"])) <= numbers
    assert 1 <= data["metrics"]["model_calls"] <= 4
    assert data["metrics"]["prompt_tokens"] > 0 and data["metrics"]["completion_tokens"] > 0
    assert data["questions_by_iteration"]["1"][0] == QUESTION


def test_collection_add_then_ask_with_two_iterations(data_dir: Path, tmp_path: Path) -> None:
    notes = tmp_path / "my-notes"
    notes.mkdir()
    (notes / "cache.md").write_text(
        "# Cache meeting\n\nWe decided to keep the cache in Redis with a one hour expiry. "
        "The database was overloaded by repeated report queries.\n", encoding="utf-8")
    (notes / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    added = _run(["collection", "add", str(notes), "--name", "notes"], data_dir)
    assert added.returncode == 0, added.stderr
    assert "broken.pdf" in added.stderr and "1 added" in added.stdout
    result = _run(["ask", "What did we decide about the cache?", "--collection", "notes",
                   "--iterations", "2"], data_dir)
    assert result.returncode == 0, result.stderr
    answer, _, block = result.stdout.partition("## Sources")
    assert "cache.md" in block
    assert set(cited_numbers(answer)) <= _source_numbers(block)


def test_nothing_found_is_said_plainly_without_a_model_answer(data_dir: Path) -> None:
    result = _run(["ask", "zyxwvut qqqqq", "-c", "demo", "--iterations", "1",
                   "--questions", "0", "--json", "-q"], data_dir)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["sources"] == []
    assert data["answer"].startswith("No sources were found")
    assert data["metrics"]["model_calls"] == 0


def test_models_reports_the_bundled_model_usable(data_dir: Path) -> None:
    result = _run(["models", "--json"], data_dir, timeout=60)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    local = next(p for p in data["providers"] if p["name"] == "local")
    assert local["usable"], local


def test_python_api_quick_summary(data_dir: Path) -> None:
    result = quick_summary(QUESTION, collections=["demo"], provider="local",
                           data_dir=str(data_dir), iterations=1)
    assert result.answer and result.sources
    assert set(cited_numbers(result.answer)) <= {s.number for s in result.sources}
    assert result.metrics.model_calls <= 2
