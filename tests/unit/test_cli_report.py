"""`deepcite report`, the history of runs, follow-ups and --format, as a user drives them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.citations import cited_numbers
from deepcite.cli import app
from tests.fakes import ScriptedChatModel, cite_all, write_notes

runner = CliRunner()
OUTLINE = "1. Cache storage - where the cache lives\n2. Team rhythm - when the team meets\n"


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    folder = write_notes(tmp_path / "notes")
    assert runner.invoke(app, ["collection", "add", str(folder), "--name", "notes"]
                         ).exit_code == 0
    return folder


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    fake = ScriptedChatModel(script={
        "questions": [""], "synthesis": [cite_all], "section": [cite_all],
        "outline": [OUTLINE]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: fake)
    return fake


def _ask(*args: str, input: str | None = None) -> Any:
    return runner.invoke(app, [*args, "-c", "notes", "-i", "1", "-q"], input=input)


def _history() -> list[dict[str, Any]]:
    listing = runner.invoke(app, ["history", "--json"])
    assert listing.exit_code == 0, listing.output
    runs: list[dict[str, Any]] = json.loads(listing.stdout)
    return runs


def test_report_prints_a_sectioned_document_with_one_sources_block(
        notes: Path, model: ScriptedChatModel) -> None:
    result = _ask("report", "What did we decide about the cache?")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("# What did we decide about the cache?")
    # the parts with evidence of their own (a part whose passages the Summary already
    # quotes is left out: no report prints an empty part)
    assert "## 1. Cache storage" in text
    body, _, block = text.partition("## Sources")
    assert set(cited_numbers(body)) <= {int(n) for n in re.findall(r"^\[(\d+)", block, re.M)}


def test_ask_mode_detailed_is_the_same_command(notes: Path, model: ScriptedChatModel) -> None:
    result = _ask("ask", "What did we decide about the cache?", "--mode", "detailed", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["mode"] == "detailed"
    assert data["outline"][0]["title"] == "Cache storage"
    assert {e["title"] for e in data["outline"]} <= {"Cache storage", "Team rhythm"}


def test_every_run_is_kept_and_can_be_shown_again(notes: Path, model: ScriptedChatModel) -> None:
    first = _ask("ask", "What did we decide about the cache?")
    assert first.exit_code == 0, first.output
    _ask("report", "When does the team meet?")
    assert _ask("ask", "Not kept", "--no-save").exit_code == 0
    runs = _history()
    assert [r["question"] for r in runs] == ["When does the team meet?",
                                             "What did we decide about the cache?"]
    assert [r["mode"] for r in runs] == ["detailed", "quick"]
    shown = runner.invoke(app, ["show", runs[1]["id"][:6]])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.strip() == first.stdout.strip()


def test_a_follow_up_builds_on_the_stored_run(notes: Path, model: ScriptedChatModel) -> None:
    _ask("ask", "What did we decide about the cache?")
    parent = _history()[0]
    shown = json.loads(runner.invoke(app, ["show", parent["id"], "--json"]).stdout)
    result = _ask("ask", "When does the team meet?", "--follow-up", parent["id"][:8],
                  "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before = {s["number"]: s["url"] for s in shown["sources"]}
    after = {s["number"]: s["url"] for s in data["sources"]}
    assert {n: after[n] for n in before} == before  # the parent's numbers stay valid
    prompt = [user for purpose, user in model.calls if purpose == "synthesis"][-1]
    assert "What is already known" in prompt
    child = _history()[0]
    assert child["parent_id"] == parent["id"]


def test_unknown_follow_up_and_format_fail_before_the_run(
        notes: Path, model: ScriptedChatModel) -> None:
    missing = _ask("ask", "Anything?", "--follow-up", "ffffffff")
    assert missing.exit_code != 0 and "ffffffff" in missing.output
    wrong = _ask("ask", "Anything?", "--format", "pfd")
    assert wrong.exit_code == 2 and "pdf" in wrong.output
    assert model.calls == []


def test_format_writes_the_export(notes: Path, model: ScriptedChatModel, tmp_path: Path) -> None:
    target = tmp_path / "answer.html"
    result = _ask("ask", "What did we decide about the cache?", "--format", "html",
                  "-o", str(target))
    assert result.exit_code == 0, result.output
    page = target.read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html") and "Redis" in page
    assert "## Sources" in result.stdout  # the terminal still shows the Markdown
    bib = _ask("ask", "What did we decide about the cache?", "--format", "bibtex")
    assert bib.exit_code == 0 and bib.stdout.lstrip().startswith("@")


def test_export_of_a_stored_run(notes: Path, model: ScriptedChatModel, tmp_path: Path) -> None:
    _ask("report", "What did we decide about the cache?")
    run_id = _history()[0]["id"]
    result = runner.invoke(app, ["export", run_id[:8], "--format", "docx"])
    assert result.exit_code == 0, result.output
    written = list(tmp_path.glob("*.docx"))
    assert len(written) == 1 and written[0].read_bytes()[:2] == b"PK"
    md = runner.invoke(app, ["export", run_id[:8], "-o", "-"])
    assert md.stdout.startswith("# What did we decide about the cache?")
    assert md.stdout.count("## Sources") == 1


def test_the_outline_can_be_reviewed(notes: Path, model: ScriptedChatModel) -> None:
    approved = _ask("report", "What did we decide about the cache?", "--review-outline",
                    input="a\n")
    assert approved.exit_code == 0, approved.output
    assert "Proposed outline" in approved.stderr and "## 1. Cache storage" in approved.stdout
    stopped = _ask("report", "What did we decide about the cache?", "--review-outline",
                   input="q\n")
    assert stopped.exit_code == 130
    assert "## 1. Cache storage" not in stopped.stdout
    assert _history()[0]["status"] == "cancelled"


def test_a_run_that_crashes_is_stored_as_failed(notes: Path, model: ScriptedChatModel,
                                                monkeypatch: pytest.MonkeyPatch) -> None:

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(deepcite.runs.build, "build_researcher", broken)
    result = _ask("ask", "What did we decide about the cache?")
    assert result.exit_code != 0
    assert _history()[0]["status"] == "failed"
