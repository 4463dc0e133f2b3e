"""``deepcite history``, ``show`` and ``rm`` as a user drives them, on a SQLite store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import deepcite.cli.history
from deepcite.cli import app
from deepcite.config import Settings, load_settings
from deepcite.store import HistoryStore
from deepcite.types import PhaseStarted, ResearchResult
from tests.unit.test_store import detailed_result, quick_result

runner = CliRunner()


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def settings(data_dir: Path) -> Settings:
    return load_settings(config_files=[])


@pytest.fixture
def store(settings: Settings) -> Iterator[HistoryStore]:
    with HistoryStore.open(settings) as opened:
        yield opened


def save(store: HistoryStore, settings: Settings, result: ResearchResult) -> str:
    run_id = store.begin(result.question, mode=result.mode, settings=settings)
    store.record_event(run_id, PhaseStarted(phase="search"))
    store.finish(run_id, result)
    return run_id


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_empty_history_prints_a_hint(data_dir: Path) -> None:
    result = runner.invoke(app, ["history"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "No runs yet - `deepcite ask ...` stores its runs here"
    assert (data_dir / "history.db").is_file()
    listed = runner.invoke(app, ["history", "--json"])
    assert listed.exit_code == 0 and json.loads(listed.stdout) == []


def test_history_lists_runs_newest_first(store: HistoryStore, settings: Settings,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "150")  # rich reads it on every render
    older = save(store, settings, quick_result("Why is the sky\nblue? " + "very " * 30))
    newer = save(store, settings, detailed_result())
    result = runner.invoke(app, ["history"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if newer[:8] in line or
             older[:8] in line]
    assert [newer[:8] in lines[0], older[:8] in lines[1]] == [True, True]
    assert "How do ocean currents work?" in lines[0] and "detailed" in lines[0]
    assert "Why is the sky blue? very" in lines[1] and "…" in lines[1]
    assert "completed" in lines[1] and lines[1].rstrip(" │|").endswith("2")
    assert newer not in result.stdout  # ids are shortened


def test_history_json_search_and_limit(store: HistoryStore, settings: Settings) -> None:
    first = save(store, settings, quick_result("Kelp forests"))
    second = save(store, settings, quick_result("Coral reefs"))
    listed = json.loads(runner.invoke(app, ["history", "--json"]).stdout)
    assert [run["id"] for run in listed] == [second, first]
    assert listed[0]["sources"] == 2 and listed[0]["status"] == "completed"
    assert listed[0]["created_at"].endswith(("Z", "+00:00"))
    found = json.loads(runner.invoke(app, ["history", "--json", "--search", "KELP"]).stdout)
    assert [run["id"] for run in found] == [first]
    limited = json.loads(runner.invoke(app, ["history", "--json", "-n", "1"]).stdout)
    assert [run["id"] for run in limited] == [second]
    none = runner.invoke(app, ["history", "--search", "plankton"])
    assert none.exit_code == 0 and "No runs match 'plankton'" in none.stdout


def test_show_prints_the_report_again(store: HistoryStore, settings: Settings) -> None:
    run_id = save(store, settings, quick_result(
        answer="Rayleigh scattering [1].\n\n## References\n\n[1] from the model"))
    result = runner.invoke(app, ["show", run_id[:6]])
    assert result.exit_code == 0, result.output
    body, _, sources = result.stdout.partition("## Sources")
    assert body.strip() == "Rayleigh scattering [1]."
    assert "[1] Paper 1 (source nr: 1)" in sources and "https://ex.org/p1" in sources
    assert "References" not in result.stdout


def test_show_hyperlinks_when_links_are_set(store: HistoryStore, settings: Settings,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    run_id = save(store, settings, quick_result())
    monkeypatch.setenv("DEEPCITE_CITATIONS_LINKS", "number")
    result = runner.invoke(app, ["show", run_id])
    assert result.exit_code == 0, result.output
    assert "[[1]](https://ex.org/p1" in result.stdout


def test_show_json_adds_the_run_fields(store: HistoryStore, settings: Settings) -> None:
    run_id = save(store, settings, quick_result(cancelled=True))
    result = runner.invoke(app, ["show", run_id[:4], "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["id"], data["status"], data["parent_id"]) == (run_id, "cancelled", None)
    assert data["finished_at"] and data["created_at"] <= data["finished_at"]
    assert data["answer"].startswith("Rayleigh") and len(data["sources"]) == 2
    assert data["cancelled"] is True and data["citation_checks"][0]["outcome"] == "supported"


def test_show_warns_about_runs_that_did_not_end(store: HistoryStore,
                                                settings: Settings) -> None:
    running = store.begin("Still going?", mode="quick", settings=settings)
    failed = store.begin("Crashed?", mode="quick", settings=settings)
    store.fail(failed, "model\nserver vanished")
    result = runner.invoke(app, ["show", running])
    assert result.exit_code == 0, result.output
    assert "has not ended" in one_line(result.stderr)
    result = runner.invoke(app, ["show", failed])
    assert "failed: model server vanished" in one_line(result.stderr)
    waiting = store.begin("Waiting?", mode="quick", settings=settings, queued=True)
    result = runner.invoke(app, ["show", waiting])
    assert "has not started: it is queued" in one_line(result.stderr)


@pytest.mark.parametrize(("ref", "message"), [
    ("ab", "too short"),
    ("ffffffff", "No run 'ffffffff' in the history"),
])
def test_show_and_rm_of_bad_ids_are_one_line_errors(store: HistoryStore, settings: Settings,
                                                    ref: str, message: str) -> None:
    save(store, settings, quick_result())
    for command in (["show", ref], ["rm", ref, "--yes"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 1, result.output
        assert message in one_line(result.stderr) and result.stderr.count("Error:") == 1
        assert result.stderr.startswith("Error:")


def test_rm_with_yes_deletes(store: HistoryStore, settings: Settings) -> None:
    keep = save(store, settings, quick_result("Keep me"))
    gone = save(store, settings, quick_result("Delete me"))
    result = runner.invoke(app, ["rm", gone[:8], "--yes"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"Deleted run {gone[:8]}."
    assert [run.id for run in store.list()] == [keep]


def test_rm_without_yes_needs_a_terminal(store: HistoryStore, settings: Settings) -> None:
    run_id = save(store, settings, quick_result())
    result = runner.invoke(app, ["rm", run_id])
    assert result.exit_code == 2
    assert "without confirmation - pass --yes" in one_line(result.stderr)
    assert len(store.list()) == 1


@pytest.mark.parametrize(("answer", "code", "left"), [("y\n", 0, 0), ("n\n", 1, 1),
                                                      ("\n", 1, 1)])
def test_rm_asks_for_confirmation(store: HistoryStore, settings: Settings,
                                  monkeypatch: pytest.MonkeyPatch, answer: str, code: int,
                                  left: int) -> None:
    monkeypatch.setattr(deepcite.cli.history, "_interactive", lambda: True)
    run_id = save(store, settings, quick_result("Sky?"))
    result = runner.invoke(app, ["rm", run_id[:5]], input=answer)
    assert result.exit_code == code, result.output
    assert f"Delete run {run_id[:8]} (Sky?)?" in one_line(result.stderr)
    assert len(store.list()) == left


def test_store_url_setting_is_used(tmp_path: Path, data_dir: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "shared" / "runs.db"
    monkeypatch.setenv("DEEPCITE_STORE_URL", f"sqlite:///{elsewhere}")
    settings = load_settings(config_files=[])
    with HistoryStore.open(settings) as store:
        run_id = save(store, settings, quick_result())
    listed = json.loads(runner.invoke(app, ["history", "--json"]).stdout)
    assert [run["id"] for run in listed] == [run_id]
    assert elsewhere.is_file() and not (data_dir / "history.db").exists()


def test_a_damaged_store_is_a_one_line_error(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "history.db").write_bytes(b"\x00garbage, not SQLite" * 100)
    result = runner.invoke(app, ["history"])
    assert result.exit_code == 1
    assert "is not a usable history database (file is not a database); move it away" in \
        one_line(result.stderr)
