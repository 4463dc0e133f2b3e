"""With a shared history store (``store.url``), collections are registered there, so
a machine of the service that does not hold a collection's files still lists it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepcite.cli import app


def _invoke(args: list[str], data_dir: Path, store_url: str | None
            ) -> tuple[int, str]:
    env = {"DEEPCITE_DATA_DIR": str(data_dir), "COLUMNS": "200"}
    if store_url:
        env["DEEPCITE_STORE_URL"] = store_url
    result = CliRunner().invoke(app, args, env=env)
    return result.exit_code, result.output


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tea.txt").write_text("Green tea is steamed soon after picking.\n",
                                    encoding="utf-8")
    return folder


def test_a_collection_added_on_one_machine_is_listed_on_another(tmp_path: Path,
                                                                docs: Path) -> None:
    shared = f"sqlite:///{tmp_path / 'shared-history.db'}"
    indexer, worker = tmp_path / "indexer", tmp_path / "worker"
    code, output = _invoke(["collection", "add", str(docs), "--name", "teas"], indexer,
                           shared)
    assert code == 0, output
    code, output = _invoke(["collection", "list", "--json"], worker, shared)
    assert code == 0, output
    listed = json.loads(output)
    assert [(c["name"], c["documents"], c.get("registered_only")) for c in listed] == [
        ("teas", 1, True)]
    code, output = _invoke(["collection", "list"], worker, shared)
    assert "teas" in output and "elsewhere" in output
    # Removing it where it lives removes it from the registry too.
    code, output = _invoke(["collection", "rm", "teas"], indexer, shared)
    assert code == 0, output
    code, output = _invoke(["collection", "list", "--json"], worker, shared)
    assert json.loads(output) == []


def test_without_a_shared_store_nothing_is_registered(tmp_path: Path, docs: Path) -> None:
    code, output = _invoke(["collection", "add", str(docs), "--name", "teas"],
                           tmp_path / "a", None)
    assert code == 0, output
    assert not (tmp_path / "a" / "history.db").exists()
    code, output = _invoke(["collection", "list", "--json"], tmp_path / "b", None)
    assert json.loads(output) == []
