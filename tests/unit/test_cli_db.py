"""``deepcite db upgrade`` and ``deepcite db current`` on SQLite files."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepcite.cli import app
from deepcite.store.engine import create_store_engine
from deepcite.store.migrate import HEAD_REVISION, upgrade

runner = CliRunner()


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(folder))
    return folder


def invoke(*args: str) -> str:
    result = runner.invoke(app, ["db", *args])
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.split())


def test_upgrade_and_current_on_the_default_history(data_dir: Path) -> None:
    where = f"history store at {data_dir / 'history.db'}"
    assert invoke("current") == (f"{where}: no deepcite schema yet - `deepcite db upgrade` "
                                 "creates it")
    assert not (data_dir / "history.db").exists()
    assert invoke("upgrade") == f"{where}: at revision {HEAD_REVISION} (created)"
    assert invoke("upgrade") == f"{where}: already at {HEAD_REVISION}"
    assert invoke("current") == f"{where}: at revision {HEAD_REVISION} (current)"


def test_upgrade_from_0002_says_so(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "old.db"
    engine = create_store_engine(f"sqlite:///{path}")
    upgrade(engine, "0002")
    engine.dispose()
    url = f"sqlite:///{path}"
    assert invoke("current", "--url", url) == (
        f"history store at {path}: at revision 0002 (`deepcite db upgrade` brings it to "
        f"{HEAD_REVISION})")
    assert invoke("upgrade", "--url", url) == (
        f"history store at {path}: at revision {HEAD_REVISION} (upgraded from 0002)")


def test_errors_are_one_line_without_the_password(data_dir: Path) -> None:
    pytest.importorskip("psycopg")
    for command in ("upgrade", "current"):
        result = runner.invoke(app, ["db", command, "--url",
                                     "postgresql+psycopg://me:hunter2@/db?host=/nonexistent"])
        assert result.exit_code == 1
        message = " ".join(result.stderr.split())  # the console wraps the one line
        assert message.startswith("Error: Cannot use the history database")
        assert "hunter2" not in result.output and "me:***@" in message
    result = runner.invoke(app, ["db", "current", "--url", "not a url"])
    assert result.exit_code == 1 and "is not a database URL" in result.stderr
