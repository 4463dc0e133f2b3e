"""``deepcite --help``, ``models``, ``engines`` and ``config show`` print text as written."""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from typing import Any

import pytest
from typer.testing import CliRunner

from deepcite import plugins as registry
from deepcite.cli import app
from deepcite.llm.providers import ProviderSpec, ProviderStatus
from deepcite.search.base import EngineBase
from deepcite.types import SearchResult

runner = CliRunner()
HERE = __name__


def _flat(text: str) -> str:
    """Help is wrapped to the terminal width; compare words, not line breaks."""
    return " ".join(text.split())


def test_help_shows_the_tagline_intact() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0, result.output
    assert "answers whose every [n] points at a real source" in _flat(result.output)


def test_option_help_keeps_brackets() -> None:
    result = runner.invoke(app, ["collection", "add", "--help"])
    assert result.exit_code == 0, result.output
    assert "deepcite[embeddings]" in _flat(result.output)


class BracketEngine(EngineBase):
    """A plugin engine whose texts look like rich markup."""

    name = "bracket"
    description = "[bold]loud[/bold]"
    needs = "[red]a key[/red]"

    @classmethod
    def unavailable_reason(cls, settings: Any) -> str | None:
        return "set [link=https://evil.example]this[/link] first"

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        return []


def _status(settings: Any) -> ProviderStatus:
    return ProviderStatus("[x]", False, "model [dim]tiny[/dim] missing")


def _build(settings: Any) -> Any:
    raise AssertionError("not built")


MARKUP_PROVIDER = ProviderSpec("markup", "plugin", _build, _status)


@pytest.fixture
def markup_plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    real = importlib.metadata.entry_points
    extra = {
        registry.SEARCH_ENGINES_GROUP: [
            EntryPoint("bracket", f"{HERE}:BracketEngine", registry.SEARCH_ENGINES_GROUP)],
        registry.LLM_PROVIDERS_GROUP: [
            EntryPoint("markup", f"{HERE}:MARKUP_PROVIDER", registry.LLM_PROVIDERS_GROUP)],
    }

    def fake(*, group: str) -> list[EntryPoint]:
        return [*real(group=group), *extra.get(group, [])]

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)
    registry.refresh()
    yield
    registry.refresh()


def test_engines_table_prints_plugin_text_as_written(markup_plugins: None) -> None:
    result = runner.invoke(app, ["engines"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "[red]a key[/red]" in result.output
    assert "set [link=https://evil.example]this[/link] first" in result.output


def test_models_table_prints_plugin_text_as_written(markup_plugins: None) -> None:
    result = runner.invoke(app, ["models"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "model [dim]tiny[/dim] missing" in result.output
    assert "│ [x]" in result.output


def test_config_show_prints_values_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_LLM_MODEL", "[bold]m[/bold]")
    result = runner.invoke(app, ["config", "show"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "[bold]m[/bold]" in result.output


def test_config_show_warns_about_unknown_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_ITERATIONS", "3")
    monkeypatch.setenv("DEEPCITE_HOME", "/opt/other-tool")
    result = runner.invoke(app, ["config", "show", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in json.loads(result.stdout)}
    assert rows["research.iterations"]["origin"] == "default"
    warnings = _flat(result.stderr)
    assert ("Warning: Unknown environment variable DEEPCITE_ITERATIONS ignored - did you "
            "mean DEEPCITE_RESEARCH_ITERATIONS?") in warnings
    assert "DEEPCITE_HOME ignored" in warnings
