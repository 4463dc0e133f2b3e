"""Settings layers, provenance and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepcite.config import explain_settings, load_settings
from deepcite.errors import ConfigError


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_layers_override_in_order(tmp_path: Path) -> None:
    user = _write(tmp_path / "user.toml", "[research]\niterations = 5\nmax_sources = 7\n"
                  "[llm]\nmodel = 'from-user'\n")
    project = _write(tmp_path / "project.toml", "[research]\niterations = 4\n")
    env = {"DEEPCITE_RESEARCH_MAX_SOURCES": "8", "DEEPCITE_LLM_TEMPERATURE": "0.5"}
    settings = load_settings({"llm.temperature": 0.1}, config_files=[user, project],
                             environ=env)
    assert settings.research.iterations == 4          # project file beats user file
    assert settings.research.max_sources == 8         # env beats files
    assert settings.llm.temperature == 0.1            # arguments beat env
    assert settings.llm.model == "from-user"          # untouched lower layers survive
    origins = {row.key: row.origin for row in explain_settings(
        {"llm.temperature": 0.1}, config_files=[user, project], environ=env)}
    assert origins["research.iterations"] == str(project)
    assert origins["research.max_sources"] == "env DEEPCITE_RESEARCH_MAX_SOURCES"
    assert origins["llm.temperature"] == "argument"
    assert origins["search.max_results"] == "default"


def test_snapshot_is_frozen() -> None:
    settings = load_settings(config_files=[], environ={})
    with pytest.raises(ValueError):
        settings.research.iterations = 9  # type: ignore[misc]


def test_unknown_key_in_file_names_key_and_file(tmp_path: Path) -> None:
    bad = _write(tmp_path / "deepcite.toml", "[llm]\nprovder = 'ollama'\n")
    with pytest.raises(ConfigError) as info:
        load_settings(config_files=[bad], environ={})
    message = str(info.value)
    assert "'llm.provder'" in message and str(bad) in message and "llm.provider" in message
    assert "\n" not in message


def test_bad_value_names_key_and_accepted_values() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings({"provider": "gpt"}, config_files=[], environ={})
    message = str(info.value)
    assert "llm.provider" in message and "'ollama'" in message and "'local'" in message


def test_unknown_environment_variable_fails() -> None:
    with pytest.raises(ConfigError, match="DEEPCITE_ITERATIONS"):
        load_settings(config_files=[], environ={"DEEPCITE_ITERATIONS": "3"})


def test_invalid_toml_is_one_line(tmp_path: Path) -> None:
    bad = _write(tmp_path / "deepcite.toml", "[llm\nprovider=")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(config_files=[bad], environ={})


def test_leaf_names_and_sections_as_overrides() -> None:
    settings = load_settings({"iterations": 3, "llm": {"provider": "local"},
                              "collections": ["a", "b"]}, config_files=[], environ={})
    assert settings.research.iterations == 3
    assert settings.llm.provider == "local"
    assert settings.search.collections == ("a", "b")
