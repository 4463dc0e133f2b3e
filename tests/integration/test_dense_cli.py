"""Dense retrieval with the real bundled MiniLM model, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepcite.cli import app

pytestmark = pytest.mark.integration


def test_dense_collection_finds_a_paraphrase(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pets.md").write_text("The feline slept on the rug all afternoon.\n",
                                  encoding="utf-8")
    (docs / "money.md").write_text("Quarterly revenue grew by four percent.\n",
                                   encoding="utf-8")
    (docs / "weather.md").write_text("Heavy rain is expected over the mountains.\n",
                                     encoding="utf-8")
    runner = CliRunner()
    added = runner.invoke(app, ["collection", "add", str(docs), "--name", "d", "--dense"])
    assert added.exit_code == 0, added.output
    assert "3 embedded" in added.output
    found = runner.invoke(app, ["collection", "search", "d", "a cat napping on a carpet",
                                "-k", "3", "--json"])
    assert found.exit_code == 0, found.output
    results = json.loads(found.stdout)
    assert results and results[0]["metadata"]["path"].endswith("pets.md")
