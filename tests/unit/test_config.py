"""Settings layers, provenance and one-line errors."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from deepcite.config import BUILTIN_PROVIDERS, config_warnings, explain_settings, load_settings
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


def test_unknown_environment_variable_warns_naming_the_closest(
        caplog: pytest.LogCaptureFixture) -> None:
    # Other tools set DEEPCITE_* variables too: a warning, not an error (was an error).
    env = {"DEEPCITE_ITERATIONS": "3", "DEEPCITE_RESEARCH_MAX_SOURCES": "4"}
    with caplog.at_level(logging.WARNING, logger="deepcite.config"):
        settings = load_settings(config_files=[], environ=env)
    assert settings.research.iterations == 2 and settings.research.max_sources == 4
    expected = ("Unknown environment variable DEEPCITE_ITERATIONS ignored - did you mean "
                "DEEPCITE_RESEARCH_ITERATIONS? (`deepcite config show` lists the settings)")
    assert config_warnings(env) == [expected]
    assert expected in caplog.messages
    with caplog.at_level(logging.WARNING, logger="deepcite.config"):
        load_settings(config_files=[], environ=env)
    assert caplog.messages.count(expected) == 1  # logged once, however often loaded


def test_unknown_variable_without_a_close_name_says_how_names_are_made() -> None:
    assert config_warnings({"DEEPCITE_HOME": "/opt/x", "PATH": "/bin"}) == [
        "Unknown environment variable DEEPCITE_HOME ignored - deepcite's own are "
        "DEEPCITE_<SECTION>_<KEY> (`deepcite config show` lists the settings)"]


def test_a_typo_in_a_file_stays_an_error(tmp_path: Path) -> None:
    bad = _write(tmp_path / "deepcite.toml", "[research]\niteratons = 3\n")
    with pytest.raises(ConfigError) as info:
        load_settings(config_files=[bad], environ={})
    message = str(info.value)
    assert "did you mean 'research.iterations'?" in message and "\n" not in message
    bad = _write(tmp_path / "deepcite.toml", "[engines]\nsearxng_ulr = 'http://x'\n")
    with pytest.raises(ConfigError, match=r"did you mean 'engines\.searxng_url'"):
        load_settings(config_files=[bad], environ={})


def test_unknown_argument_names_the_closest_setting() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings({"max_sorces": 3}, config_files=[], environ={})
    assert str(info.value) == ("Unknown setting 'max_sorces' - did you mean 'max_sources'? "
                               "`deepcite config show` lists every setting")
    with pytest.raises(ConfigError, match=r"ambiguous - use one of llm\.max_tokens, "):
        load_settings({"max_tokens": 300}, config_files=[], environ={})


def test_plugin_engine_tables_are_collected_per_engine(tmp_path: Path) -> None:
    user = _write(tmp_path / "user.toml", "[engines.My_Engine]\nurl = 'a'\n"
                  "[engines.other]\nx = 1\n")
    project = _write(tmp_path / "project.toml", "[engines.plugins.my-engine]\nurl = 'b'\n"
                     "[engines]\ntimeout_seconds = 3\n")
    settings = load_settings(config_files=[user, project], environ={})
    assert settings.engines.plugins == {"my-engine": {"url": "b"}, "other": {"x": 1}}
    assert settings.engines.timeout_seconds == 3


def test_providers_known_to_settings_match_the_registry() -> None:
    from deepcite.llm import PROVIDERS

    assert set(BUILTIN_PROVIDERS) == {"auto", *PROVIDERS}


def test_max_tokens_per_source_is_gone() -> None:
    # It was never read by a run; the answer prompt cuts sources to the model's budget.
    with pytest.raises(ConfigError, match=r"Unknown setting 'search\.max_tokens_per_source'"):
        load_settings({"search": {"max_tokens_per_source": 500}}, config_files=[], environ={})


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


def test_with_current_takes_the_saved_keys_and_keeps_what_a_server_reads_at_start(
        tmp_path: Path) -> None:
    """What a running server swaps to after the settings page saved: the saved keys as
    the files and environment give them now; everything else - arguments it was started
    with, and what it reads only at start - as it was."""
    from deepcite.config import needs_restart, with_current

    running = load_settings({"research.iterations": 1, "data_dir": str(tmp_path / "a")},
                            config_files=[], environ={})
    config = _write(tmp_path / "deepcite.toml",
                    f'data_dir = "{tmp_path / "b"}"\n'
                    '[research]\nmax_searches = 3\niterations = 5\n'
                    '[queue]\nurl = "redis://localhost:6379/0"\n')
    live = with_current(running, ["research.max_searches", "queue.url", "data_dir"],
                        config_files=[config], environ={"DEEPCITE_LLM_MODEL": "m"})
    assert live.research.max_searches == 3
    assert live.research.iterations == 1  # not saved: as the server was started
    assert live.queue.url is None and live.data_dir == tmp_path / "a"  # read at start
    assert live.llm.model is None
    assert with_current(running, ["llm.model"], config_files=[config],
                        environ={"DEEPCITE_LLM_MODEL": "m"}).llm.model == "m"
    assert [key for key in ("data_dir", "queue.url", "web.registration", "store.url",
                            "llm.model", "engines.brave_api_key", "research.max_searches")
            if needs_restart(key)] == ["data_dir", "queue.url", "web.registration",
                                       "store.url"]
