"""``deepcite compare`` and ``deepcite rerun`` as a user drives them, on a SQLite store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepcite.cli import app
from deepcite.config import Settings, load_settings
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult
from tests.unit.test_runs_replay import keep, research, tamper
from tests.unit.test_store import detailed_result, quick_result

runner = CliRunner()


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    return load_settings({"research.iterations": 1}, config_files=[])


@pytest.fixture
def store(settings: Settings) -> Iterator[HistoryStore]:
    with HistoryStore.open(settings) as opened:
        yield opened


def two_runs(store: HistoryStore, settings: Settings) -> tuple[str, str]:
    first = quick_result()
    sources = [first.sources[1].model_copy(update={"number": 1}),
               first.sources[0].model_copy(update={"number": 2})]
    second: ResearchResult = first.model_copy(update={"sources": sources, "strategy":
                                                      "focused-iteration"})
    return keep(store, settings, first), keep(store, settings, second)


def test_compare_prints_the_comparison(store: HistoryStore, settings: Settings) -> None:
    a, b = two_runs(store, settings)
    shown = runner.invoke(app, ["compare", a[:8], b[:6]])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.startswith(f"# A ({a[:8]}) compared with B ({b[:8]})")
    assert "## Sources: 2 kept, 0 gained, 0 lost" in shown.stdout
    assert "- Paper 1 (https://ex.org/p1?utm=x): [1] → [2]" in shown.stdout
    assert "| strategy | source-based | focused-iteration |" in shown.stdout


def test_compare_json_is_the_comparison(store: HistoryStore, settings: Settings) -> None:
    a, b = two_runs(store, settings)
    shown = runner.invoke(app, ["compare", a, b, "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["a"]["id"] == a and data["b"]["id"] == b
    assert [(k["a_number"], k["b_number"]) for k in data["sources_kept"]] == [(1, 2), (2, 1)]
    assert data["settings_compared"] is True and data["settings_differences"] == []


def test_compare_names_an_unknown_run_in_one_line(store: HistoryStore,
                                                  settings: Settings) -> None:
    a, _ = two_runs(store, settings)
    shown = runner.invoke(app, ["compare", a[:8], "ffffffff"])
    assert shown.exit_code == 1
    assert shown.stderr.strip().startswith("Error: No run 'ffffffff' in the history")
    assert len(shown.stderr.strip().splitlines()) == 1


def test_rerun_offline_matches_a_real_run(store: HistoryStore, settings: Settings) -> None:
    run_id = keep(store, settings, research(settings))
    shown = runner.invoke(app, ["rerun", run_id[:8], "--offline"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.startswith(f"Run {run_id[:8]}: the offline replay matches")
    as_json = runner.invoke(app, ["rerun", run_id[:8], "--offline", "--json"])
    assert as_json.exit_code == 0 and json.loads(as_json.stdout)["matches"] is True


def test_rerun_offline_fails_on_a_tampered_source(store: HistoryStore,
                                                  settings: Settings) -> None:
    run_id = keep(store, settings, research(settings))
    tamper(settings.data_dir, run_id, 2, "Nothing to see.")
    shown = runner.invoke(app, ["rerun", run_id[:8], "--offline"])
    assert shown.exit_code == 1, shown.output
    assert "does NOT match" in shown.stdout
    assert "- citation_checks[1].outcome ([2] " in shown.stdout
    assert "supported → unsupported" in shown.stdout
    data = json.loads(runner.invoke(app, ["rerun", run_id, "--offline", "--json"]).stdout)
    assert data["matches"] is False and data["differences"]


def test_rerun_refuses_what_it_cannot_do(store: HistoryStore, settings: Settings) -> None:
    report = keep(store, settings, detailed_result())
    shown = runner.invoke(app, ["rerun", report[:8], "--offline"])
    assert shown.exit_code == 2
    assert "detailed report" in shown.stderr
    unknown = runner.invoke(app, ["rerun", "feedface"])
    assert unknown.exit_code == 1  # as `deepcite show` answers an unknown id
    assert len(unknown.stderr.strip().splitlines()) == 1 and "feedface" in unknown.stderr


@pytest.fixture
def cited(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh model for every run that cites every source it is shown."""
    import deepcite.runs.build
    from tests.mcp_launcher import scripted_model

    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: scripted_model())


def test_rerun_makes_the_run_again_and_compares(notes: Path, cited: None) -> None:
    assert runner.invoke(app, ["collection", "add", str(notes), "--name", "notes"]).exit_code == 0
    asked = runner.invoke(app, ["ask", "What did we decide about the cache?", "-c", "notes",
                                "-q", "--iterations", "1", "--strategy", "source-based"])
    assert asked.exit_code == 0, asked.output
    with HistoryStore.open(load_settings()) as store:
        first = store.list(limit=1)[0].id
    again = runner.invoke(app, ["rerun", first[:8], "--compare", "-q"])
    assert again.exit_code == 0, again.output
    with HistoryStore.open(load_settings()) as store:
        runs = store.list()
        second = store.get(runs[0].id)
        original = store.get(first)
    assert len(runs) == 2 and second.id != first
    # the same request and the settings it was made with, not this machine's defaults
    kept = dict(second.request or {})
    carried = kept.pop("settings", {})
    assert kept == original.request  # the same request, with the settings it was made with
    assert carried["research.iterations"] == 1
    assert second.settings["research"]["strategy"] == "source-based"
    assert second.settings["search"]["collections"] == ["notes"]
    assert [s.url for s in second.result.sources] == [s.url for s in original.result.sources]
    assert "## Sources" in again.stdout  # the new answer, then what changed
    assert f"# A ({first[:8]}) compared with B ({second.id[:8]})" in again.stdout
    assert "0 gained, 0 lost" in again.stdout
