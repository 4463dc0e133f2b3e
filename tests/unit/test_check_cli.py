"""``deepcite check`` as a user drives it: the annotated document, ``--json``, the files
``-o`` writes, refusals before anything is checked, and the check as a run of the
history (shown, listed, run again, compared, built on with ``--previous``). The model
is faked at its boundary and says nothing: a check decides without it."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app
from deepcite.types import VERDICTS
from tests.fakes import ScriptedChatModel

runner = CliRunner()
DRAFT = ("# Notes from the planning meeting\n\n"
         "We keep the cache in Redis with a one hour expiry. "
         "The team meets on Fridays to plan the sprint. "
         "The office roof holds <b>twelve</b> beehives.\n")


@pytest.fixture
def silent_model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    model = ScriptedChatModel()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    return model


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    path = tmp_path / "draft.md"
    path.write_text(DRAFT, encoding="utf-8")
    return path


def _check(*args: str) -> Any:
    return runner.invoke(app, ["check", *args, "-q"])


def _json(draft: Path, *args: str) -> dict[str, Any]:
    done = _check(str(draft), "-c", "notes", "--json", *args)
    assert done.exit_code == 0, done.output
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def test_json_has_the_issues_shape_and_claims_point_into_the_document(
        notes: Path, silent_model: ScriptedChatModel, draft: Path) -> None:
    data = _json(draft)
    assert {"id", "claims", "sources", "counts", "metrics", "warnings"} <= set(data)
    assert data["id"] and len(data["claims"]) >= 2
    numbers = {source["number"] for source in data["sources"]}
    for claim in data["claims"]:
        assert {"number", "text", "start", "end", "verdict", "citations", "evidence",
                "note"} <= set(claim)
        assert DRAFT[claim["start"]:claim["end"]] == claim["text"]
        assert claim["verdict"] in VERDICTS
        assert set(claim["citations"]) <= numbers  # every [n] resolves
        assert {item["number"] for item in claim["evidence"]} <= numbers
    by_text = {claim["text"]: claim for claim in data["claims"]}
    assert by_text["We keep the cache in Redis with a one hour expiry."]["verdict"] == "supported"
    assert sum(data["counts"].values()) == len(data["claims"])


def test_the_check_is_a_run_of_the_history(notes: Path, silent_model: ScriptedChatModel,
                                           draft: Path) -> None:
    first = _json(draft)
    listed = json.loads(runner.invoke(app, ["history", "--json"]).stdout)
    assert [(run["id"], run["mode"], run["question"]) for run in listed] == [
        (first["id"], "check", "Check: draft.md")]
    shown = runner.invoke(app, ["show", first["id"][:8]])
    assert shown.exit_code == 0, shown.output
    assert "We keep the cache in Redis" in shown.stdout and "## Sources" in shown.stdout
    assert f"_{len(first['claims'])} claims checked:" in shown.stdout  # as check printed it
    stored = json.loads(runner.invoke(app, ["show", first["id"][:8], "--json"]).stdout)
    assert stored["mode"] == "check" and len(stored["claims"]) == len(first["claims"])
    again = runner.invoke(app, ["rerun", first["id"][:8], "-q"])
    assert again.exit_code == 0, again.output
    runs = json.loads(runner.invoke(app, ["history", "--json"]).stdout)
    assert [run["mode"] for run in runs] == ["check", "check"]
    compared = runner.invoke(app, ["compare", runs[1]["id"][:8], runs[0]["id"][:8]])
    assert compared.exit_code == 0, compared.output
    assert f"## Verdicts: {len(first['claims'])} unchanged, 0 changed" in compared.stdout


def test_previous_keeps_the_verdicts_of_unchanged_claims(
        notes: Path, silent_model: ScriptedChatModel, draft: Path, tmp_path: Path) -> None:
    first = _json(draft)
    edited = tmp_path / "draft-v2.md"
    edited.write_text(DRAFT.replace("Fridays", "Tuesdays"), encoding="utf-8")
    second = _json(edited, "--previous", first["id"][:8])
    kept = {claim["text"]: claim["verdict"] for claim in first["claims"]}
    redis = "We keep the cache in Redis with a one hour expiry."
    assert {c["text"]: c["verdict"] for c in second["claims"]}[redis] == kept[redis]
    refused = _check(str(edited), "-c", "notes", "--previous", "0123abcd")
    assert refused.exit_code == 2 and "No run '0123abcd'" in refused.output


def test_o_writes_markdown_html_and_docx(notes: Path, silent_model: ScriptedChatModel,
                                        draft: Path, tmp_path: Path) -> None:
    html = tmp_path / "out.html"
    done = _check(str(draft), "-c", "notes", "-o", str(html))
    assert done.exit_code == 0, done.output
    page = html.read_text(encoding="utf-8")
    assert "We keep the cache in Redis" in page
    assert "<b>twelve</b>" not in page  # the document's markup is text, escaped
    docx = tmp_path / "out.docx"
    assert _check(str(draft), "-c", "notes", "-o", str(docx)).exit_code == 0
    with zipfile.ZipFile(docx) as archive:
        assert "word/document.xml" in archive.namelist()
    markdown = tmp_path / "notes.txt"
    done = _check(str(draft), "-c", "notes", "-o", str(markdown), "--format", "md")
    assert done.exit_code == 0, done.output
    assert "## Sources" in markdown.read_text(encoding="utf-8")


@pytest.mark.parametrize(("args", "message"), [
    (["-o", "out.pdf"], "Cannot tell the format of out.pdf"),
    (["-o", "-", "--format", "docx"], "A DOCX file cannot go to stdout"),
    (["-o", "missing-folder/out.md"], "folder missing-folder does not exist"),
])
def test_a_bad_output_is_refused_before_anything_is_checked(
        notes: Path, silent_model: ScriptedChatModel, draft: Path, args: list[str],
        message: str) -> None:
    done = _check(str(draft), "-c", "notes", *args)
    assert done.exit_code == 2 and message in done.output
    assert silent_model.calls == []
    assert json.loads(runner.invoke(app, ["history", "--json"]).stdout) == []


def test_a_file_that_cannot_be_read_is_one_line(notes: Path, silent_model: ScriptedChatModel,
                                                tmp_path: Path) -> None:
    done = _check(str(tmp_path / "nowhere.md"), "-c", "notes")
    assert done.exit_code != 0
    assert "nowhere.md" in done.output and "Traceback" not in done.output
    empty = tmp_path / "empty.md"
    empty.write_text("  \n", encoding="utf-8")
    refused = _check(str(empty), "-c", "notes")
    assert refused.exit_code != 0 and "Traceback" not in refused.output


def test_the_progress_line_counts_the_claims() -> None:
    from deepcite.cli.progress import RunProgress
    from deepcite.types import PhaseStarted, SearchDone

    with RunProgress(enabled=False) as progress:
        progress(PhaseStarted(phase="check", step=3, total=12))
        progress(SearchDone(iteration=1, query="q", engine="local", results=2, seconds=0.1))
        line = progress.line
    assert line.startswith("Checking claim 3 of 12 · step 3/12 · 16%")
    assert "searches 1" in line
