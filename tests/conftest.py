"""Shared fixtures: settings isolated in a temporary data dir, never the user's."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from deepcite import plugins as registry
from deepcite.cli import app
from deepcite.config import Settings, load_settings
from tests.fakes import write_notes


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path_factory: pytest.TempPathFactory,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the user's config or data: HOME and XDG dirs point into tmp."""
    home = tmp_path_factory.mktemp("home")
    for var in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(home / var.lower()))
    for var in list(__import__("os").environ):
        if var.startswith("DEEPCITE_"):
            monkeypatch.delenv(var)


@pytest.fixture(autouse=True)
def _wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """CLI output never wraps at a width that depends on the terminal or the tmp path.

    rich takes its width from ``COLUMNS`` when it renders (unless it was fixed when the
    console was made, so the CLI's own consoles are unfixed here), typer's help and
    error panels from ``COLUMNS`` or ``TERMINAL_WIDTH``. A test that needs a narrow
    console sets ``COLUMNS`` itself.
    """
    from typer import rich_utils

    from deepcite.cli import common

    monkeypatch.setenv("COLUMNS", "1000")
    monkeypatch.setattr(rich_utils, "MAX_WIDTH", None)
    for console in (common.out, common.err):
        monkeypatch.setattr(console, "_width", None)


FAKE_DNS = {
    "localhost": ["127.0.0.1", "::1"],
    "metadata.google.internal": ["169.254.169.254"],
    "searx.lan": ["192.168.1.20"],
    "rebind.example": ["10.0.0.5"],
}
PUBLIC_IP = "93.184.216.34"


@pytest.fixture(autouse=True)
def _fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """No real DNS in tests: names resolve from FAKE_DNS, anything else to a public IP."""
    table = dict(FAKE_DNS)
    monkeypatch.setattr("deepcite.security.egress.resolve_host",
                        lambda host: table.get(host.lower(), [PUBLIC_IP]))
    return table


@pytest.fixture(autouse=True)
def _instant_backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Retries and rate limits do not sleep in tests; the pauses are recorded."""
    pauses: list[float] = []
    monkeypatch.setattr("deepcite.search.http._sleep", pauses.append)
    return pauses


@pytest.fixture
def make_settings(tmp_path: Path) -> Any:
    """Settings with a tmp data dir and no config files; overrides as keyword args."""

    def make(**overrides: Any) -> Settings:
        merged = {"data_dir": str(tmp_path / "data"), **overrides}
        return load_settings(merged, config_files=[], environ={})

    return make


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Install fake entry points (on top of the real ones) for the duration of a test:
    ``plugins(group, name="module:object", ...)``."""
    real = importlib.metadata.entry_points
    extra: dict[str, list[EntryPoint]] = {}

    def fake(*, group: str) -> list[EntryPoint]:
        return [*real(group=group), *extra.get(group, [])]

    def install(group: str, **targets: str) -> None:
        extra.setdefault(group, []).extend(
            EntryPoint(name, value, group) for name, value in targets.items())
        registry.refresh()

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)
    registry.refresh()
    yield install
    registry.refresh()


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A collection "notes" of two small Markdown files, in a temporary data dir."""
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = write_notes(tmp_path / "notes")
    added = CliRunner().invoke(app, ["collection", "add", str(folder), "--name", "notes"])
    assert added.exit_code == 0, added.output
    return folder
