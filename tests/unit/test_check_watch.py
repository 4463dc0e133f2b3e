"""A watch re-checks a document on its schedule: a check's request keeps its document,
so the watch machinery runs it like any stored request - each run a new check of the
same text against what the collections hold then. The model is faked and says nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

import deepcite.runs.build
from deepcite.config import load_settings
from deepcite.runs import RunRequest
from deepcite.store import HistoryStore
from deepcite.watches.service import WatchService
from tests.fakes import ScriptedChatModel

DRAFT = "We keep the cache in Redis with a one hour expiry."


def test_a_watch_of_a_check_checks_the_document_again(notes: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: ScriptedChatModel())
    settings = load_settings()
    request = RunRequest.parse(mode="check", document={"text": DRAFT, "title": "Cache"},
                               collections=["notes"], origin="cli")
    with HistoryStore.open(settings) as store:
        service = WatchService(store, settings)
        watch, _ = service.add(request, "on demand")
        first = service.run_here(watch.id)
        second = service.run_here(watch.id)
        runs = [store.get(run.run_id) for run in (first, second) if run.run_id]
    assert [run.mode for run in runs] == ["check", "check"]
    for run in runs:
        assert run.request is not None and run.request["document"]["text"] == DRAFT
        assert run.request["origin"] == "watch"
        verdicts = {claim.text: claim.verdict for claim in run.result.claims}
        assert verdicts == {DRAFT: "supported"}


def test_the_watch_says_which_verdicts_changed(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from deepcite.cli import app

    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: ScriptedChatModel())
    folder = tmp_path / "ops"
    folder.mkdir()
    runbook = folder / "backups.md"

    def index(time_of_day: str) -> None:
        runbook.write_text(f"# Backups\n\nThe nightly backup starts at {time_of_day} UTC.\n",
                           encoding="utf-8")
        added = CliRunner().invoke(app, ["collection", "add", str(folder), "--name", "ops"])
        assert added.exit_code == 0, added.output

    claim = "The nightly backup starts at 02:00 UTC."
    index("02:00")
    settings = load_settings()
    request = RunRequest.parse(mode="check", document={"text": claim}, collections=["ops"])
    with HistoryStore.open(settings) as store:
        service = WatchService(store, settings)
        watch, _ = service.add(request, "on demand")
        first = service.run_here(watch.id)
        same = service.run_here(watch.id)
        index("04:00")  # the runbook changed: the draft is now contradicted
        changed = service.run_here(watch.id)
    assert first.summary is not None and first.summary.startswith("First run")
    assert same.summary is not None and same.summary.startswith("Nothing new")
    assert changed.summary is not None and "1 verdict changed" in changed.summary
    assert f"\u201c{claim}\u201d: supported \u2192 contradicted" in str(changed.changes_markdown)


def test_watch_add_document_makes_a_watch_of_a_check(notes: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from typer.testing import CliRunner

    from deepcite.cli import app

    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: ScriptedChatModel())
    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    runner = CliRunner()
    added = runner.invoke(app, ["watch", "add", "Cache draft", "--document", str(draft),
                                "-c", "notes", "--manual", "--json"])
    assert added.exit_code == 0, added.output
    watch = json.loads(added.stdout)
    assert watch["request"]["mode"] == "check"
    assert watch["request"]["document"] == {"text": DRAFT, "filename": "draft.md"}
    ran = runner.invoke(app, ["watch", "run", watch["id"][:8]])
    assert ran.exit_code == 0, ran.output
    runs = json.loads(runner.invoke(app, ["history", "--json"]).stdout)
    assert [(run["mode"], run["question"]) for run in runs] == [("check", "Cache draft")]
    missing = runner.invoke(app, ["watch", "add", "Gone", "--document",
                                  str(tmp_path / "nowhere.md"), "--manual"])
    assert missing.exit_code != 0 and "nowhere.md" in missing.output
