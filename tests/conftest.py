"""Shared fixtures: settings isolated in a temporary data dir, never the user's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deepcite.config import Settings, load_settings


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


@pytest.fixture
def make_settings(tmp_path: Path) -> Any:
    """Settings with a tmp data dir and no config files; overrides as keyword args."""

    def make(**overrides: Any) -> Settings:
        merged = {"data_dir": str(tmp_path / "data"), **overrides}
        return load_settings(merged, config_files=[], environ={})

    return make
