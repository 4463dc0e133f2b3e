"""The detailed report, for real: bundled model, demo collection, history and exports."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from deepcite.citations import cited_numbers

pytestmark = pytest.mark.integration

QUESTION = "How do I parse command line arguments?"
DEEPCITE = str(Path(sys.executable).parent / "deepcite")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("deepcite-report-data")


def _run(args: list[str], data_dir: Path, cwd: Path | None = None,
         timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=str(data_dir), DEEPCITE_LLM_PROVIDER="local",
               OLLAMA_HOST="127.0.0.1:1", NO_COLOR="1", COLUMNS="200")
    return subprocess.run([DEEPCITE, *args], capture_output=True, text=True, env=env,
                          timeout=timeout, check=False, cwd=cwd)


def _listed(block: str) -> set[int]:
    numbers: set[int] = set()
    for match in re.finditer(r"^\[([\d, ]+)\] ", block, re.MULTILINE):
        numbers.update(int(n) for n in match.group(1).split(","))
    return numbers


@pytest.fixture(scope="module")
def report(data_dir: Path) -> subprocess.CompletedProcess[str]:
    return _run(["report", QUESTION, "-c", "demo", "-q"], data_dir)


def test_report_on_the_demo_collection_has_sections_and_resolving_markers(
        report: subprocess.CompletedProcess[str]) -> None:
    assert report.returncode == 0, report.stderr
    body, heading, block = report.stdout.partition("## Sources")
    assert heading and body.startswith(f"# {QUESTION}")
    sections = re.findall(r"^## \d+\. .+$", body, re.MULTILINE)
    assert len(sections) >= 2, body  # parts with evidence of their own; none printed empty
    cited = set(cited_numbers(body))
    assert cited, body
    assert cited <= _listed(block)


def test_the_report_is_kept_reopened_and_exported(
        report: subprocess.CompletedProcess[str], data_dir: Path, tmp_path: Path) -> None:
    assert report.returncode == 0, report.stderr
    listing = _run(["history", "--json"], data_dir)
    assert listing.returncode == 0, listing.stderr
    runs = json.loads(listing.stdout)
    stored = next(r for r in runs if r["mode"] == "detailed")
    assert stored["status"] == "completed"
    shown = _run(["show", stored["id"][:8]], data_dir)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == report.stdout.strip()  # re-assembled, same numbers
    out = tmp_path / "report.docx"
    exported = _run(["export", stored["id"][:8], "--format", "docx", "-o", str(out)], data_dir)
    assert exported.returncode == 0, exported.stderr
    assert out.read_bytes()[:2] == b"PK"
    follow = _run(["ask", "What does sys.argv hold?", "-c", "demo", "-q",
                   "--follow-up", stored["id"][:8], "--json"], data_dir)
    assert follow.returncode == 0, follow.stderr
    data = json.loads(follow.stdout)
    parent_sources = {s["number"]: s["url"] for s in
                      json.loads(_run(["show", stored["id"], "--json"], data_dir).stdout)
                      ["sources"]}
    child = {s["number"]: s["url"] for s in data["sources"]}
    assert {n: u for n, u in child.items() if n in parent_sources} == parent_sources
    assert set(cited_numbers(data["answer"])) <= set(child)


def test_a_report_built_on_a_material_file_cites_it(data_dir: Path, tmp_path: Path) -> None:
    notes = tmp_path / "team-cli-notes.md"
    notes.write_text("# Team CLI notes\n\nOur command line tools parse arguments with "
                     "argparse subparsers, one per command. Every command accepts a "
                     "--dry-run flag that prints what it would do.\n", encoding="utf-8")
    result = _run(["report", "How do our tools parse command line arguments?", "-c", "demo",
                   "--material", str(notes), "-q", "--json", "--no-save"], data_dir)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    material = [s for s in data["sources"] if s["engine"] == "user_material"]
    assert material and material[0]["url"] == str(notes.resolve())
    assert set(cited_numbers(data["answer"])) <= {s["number"] for s in data["sources"]}
    assert any(f"[{s['number']}]" in data["answer"] for s in material)


def _parts(body: str) -> dict[str, str]:
    """Each numbered part's text by its heading, as printed."""
    pieces = re.split(r"^## (\d+\. .+)$", body, flags=re.MULTILINE)
    return {title: text.split("## Sources")[0].strip()
            for title, text in zip(pieces[1::2], pieces[2::2], strict=True)}


def test_the_same_report_twice_has_the_same_outline_and_no_empty_part(
        data_dir: Path) -> None:
    question = "How do I read a CSV file?"
    runs = [_run(["report", question, "-c", "demo", "-q", "--json", "--no-save"], data_dir)
            for _ in range(2)]
    assert all(run.returncode == 0 for run in runs), [run.stderr for run in runs]
    first, second = (json.loads(run.stdout) for run in runs)
    assert first["outline"] == second["outline"]  # the bundled model samples: not the plan
    titles = [entry["title"] for entry in first["outline"]]
    assert titles and titles[0] == "How to read a CSV file"  # the question's own words
    for title in titles:  # no document heading: no markup, version tag or signature
        assert not re.search(r"[*`#_\[\]]|\(Python \d|\w\(", title), title
    parts = _parts(first["answer"])
    assert len(parts) == len(titles)
    for heading, text in parts.items():
        assert text and not text.startswith("_"), heading  # no empty part, no notice only
        assert re.search(r"\[\d+\]", text), heading  # every part cites its evidence
