"""``deepcite collection demo`` builds the demo index before the first question (issue 46).

``make setup`` runs it after installing, so ``make demo`` answers without building. The
index is stamped with what built it (Python version, collection format); an index built
by another Python or format is rebuilt once, with a one-line notice, and never makes a
command fail. The demo here is Python's reference topics and two modules instead of
sixty, so a build takes a second, not ten.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepcite.cli import app
from deepcite.collections import Collection, ensure_demo_collection
from deepcite.collections import demo as demo_module
from deepcite.collections.index import SCHEMA_VERSION
from deepcite.config import Settings, load_settings

THIS_PYTHON = f"Python {sys.version_info.major}.{sys.version_info.minor}"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data dir the command uses, and a small demo (json and csv pages)."""
    data = tmp_path / "data"
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(data))
    monkeypatch.setattr(demo_module, "DEMO_MODULES", ("json", "csv"))
    return data


def _settings(data_dir: Path) -> Settings:
    return load_settings({"data_dir": str(data_dir)}, config_files=[], environ={})


def _demo(*args: str) -> tuple[int, str, str]:
    done = CliRunner().invoke(app, ["collection", "demo", *args])
    return done.exit_code, done.stdout, done.stderr


def _meta(data_dir: Path, key: str) -> str | None:
    with sqlite3.connect(data_dir / "collections" / "demo.sqlite") as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def _set_meta(data_dir: Path, key: str, value: str) -> None:
    with sqlite3.connect(data_dir / "collections" / "demo.sqlite") as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))


def test_the_command_builds_a_searchable_stamped_demo_index(
        data_dir: Path, renders: list[Path]) -> None:
    code, stdout, stderr = _demo()
    assert code == 0, stderr
    assert stdout.startswith("Demo collection built: ")
    assert f"({THIS_PYTHON}, collection format {SCHEMA_VERSION})" in stdout
    assert len(renders) == 1
    assert _meta(data_dir, "demo_built_by") == f"{THIS_PYTHON}, collection format {SCHEMA_VERSION}"
    demo = Collection.open("demo", settings=_settings(data_dir))
    titles = [result.title for result in demo.search("read rows from a CSV file", k=3)]
    assert any(title.startswith("csv — ") for title in titles), titles


def test_a_second_call_finds_it_built_and_does_nothing(
        data_dir: Path, renders: list[Path]) -> None:
    assert _demo()[0] == 0
    index = data_dir / "collections" / "demo.sqlite"
    before = index.stat().st_mtime_ns
    code, stdout, stderr = _demo()
    assert code == 0, stderr
    assert stdout.startswith("Demo collection already built: ")
    assert "nothing to do" in stdout
    assert len(renders) == 1  # nothing rendered the second time
    assert index.stat().st_mtime_ns == before


def test_rebuild_builds_it_again(data_dir: Path, renders: list[Path]) -> None:
    assert _demo()[0] == 0
    _set_meta(data_dir, "chunk_count", "-1")  # a mark only a fresh index would not carry
    code, stdout, stderr = _demo("--rebuild")
    assert code == 0, stderr
    assert stdout.startswith("Demo collection built: ")
    assert len(renders) == 2
    assert _meta(data_dir, "chunk_count") != "-1"
    assert stderr.strip() == ""  # a rebuild asked for is not announced as a stale index


def test_an_index_stamped_by_another_python_is_rebuilt_once_with_a_notice(
        data_dir: Path, renders: list[Path]) -> None:
    assert _demo()[0] == 0
    _set_meta(data_dir, "demo_built_by", f"Python 3.10, collection format {SCHEMA_VERSION}")
    code, stdout, stderr = _demo()
    assert code == 0, stderr
    assert len(renders) == 2
    notice = [line for line in stderr.splitlines() if line.strip()]
    assert notice == [f"Warning: Rebuilding the demo collection once: it was built by "
                      f"Python 3.10, collection format {SCHEMA_VERSION}, this is "
                      f"{THIS_PYTHON}, collection format {SCHEMA_VERSION}"]
    assert _meta(data_dir, "demo_built_by") == f"{THIS_PYTHON}, collection format {SCHEMA_VERSION}"
    code, stdout, stderr = _demo()  # once: current now
    assert code == 0 and "already built" in stdout and stderr.strip() == ""
    assert len(renders) == 2


def test_an_index_without_the_build_stamp_is_rebuilt_with_a_notice(
        data_dir: Path, renders: list[Path]) -> None:
    """What deepcite wrote before these stamps: demo format 2, no record of the Python."""
    assert _demo()[0] == 0
    with sqlite3.connect(data_dir / "collections" / "demo.sqlite") as conn:
        conn.execute("DELETE FROM meta WHERE key = 'demo_built_by'")
    notices: list[str] = []
    demo = ensure_demo_collection(_settings(data_dir), on_notice=notices.append)
    assert len(renders) == 2 and demo.info().documents > 0
    assert notices == ["Rebuilding the demo collection once: it was built by an older "
                       f"deepcite, not stamped with {THIS_PYTHON}, collection format "
                       f"{SCHEMA_VERSION}"]


def test_an_index_in_a_collection_format_this_deepcite_cannot_read_is_rebuilt(
        data_dir: Path, renders: list[Path]) -> None:
    """A newer deepcite's index (a format this one does not know) is no crash: it is
    built again for this one, with a notice."""
    assert _demo()[0] == 0
    _set_meta(data_dir, "schema_version", "99")
    code, stdout, stderr = _demo()
    assert code == 0, stderr
    assert stdout.startswith("Demo collection built: ")
    assert "Rebuilding the demo collection once: its index is damaged, or in a format" \
        in stderr
    assert _meta(data_dir, "schema_version") == SCHEMA_VERSION
    assert len(renders) == 2


def test_a_run_uses_the_index_set_up_built_without_building(
        data_dir: Path, renders: list[Path]) -> None:
    """What a question does first (``ensure_demo_collection``) finds set-up's index."""
    assert _demo()[0] == 0
    built: list[bool] = []
    demo = ensure_demo_collection(_settings(data_dir), on_build=lambda: built.append(True))
    assert built == [] and len(renders) == 1
    assert demo.search("json encoder", k=1)
