"""The shared registry: one spelling rule, unknown names, entry points, plugin settings."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict, Field

from deepcite import plugins as registry
from deepcite.config import load_settings
from deepcite.errors import ConfigError
from deepcite.llm.providers import (
    PROVIDER_REGISTRY,
    PROVIDERS,
    ProviderSpec,
    ProviderStatus,
    describe_providers,
    get_provider,
    resolve_provider,
)
from deepcite.plugins import Registry, file_suffix, kebab_case
from deepcite.search.base import EngineBase, EngineClass
from deepcite.search.registry import (
    BUILTIN_ENGINES,
    ENGINES,
    check_engine_tables,
    describe_engines,
    engine_names,
    engine_options,
    get_engine,
    load_engine_class,
    normalise,
)
from deepcite.types import SearchResult

HERE = __name__

# ------------------------------------------------------------------ plugin objects


class PluginOptions(BaseModel):
    """The settings a plugin engine declares."""

    model_config = ConfigDict(extra="forbid")

    url: str
    limit: int = Field(default=5, ge=1)


class OptionsEngine(EngineBase):
    """A plugin engine with its own [engines.<name>] table."""

    name: ClassVar[str] = "options-engine"
    description: ClassVar[str] = "a plugin [with brackets]"
    settings_model: ClassVar[type[BaseModel] | None] = PluginOptions

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self.options = engine_options("options-engine", settings, PluginOptions)

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        return []


class PlainEngine(EngineBase):
    """A plugin engine relying on every default of EngineBase."""

    name: ClassVar[str] = "plain"

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        return []


class NotAnEngine:
    """Lacks every member but a description."""

    description = "half an engine"


def plain_factory(settings: Any) -> PlainEngine:
    """The old plugin contract (a bare callable), no longer enough."""
    return PlainEngine(settings)


def _plugin_check(settings: Any) -> ProviderStatus:
    return ProviderStatus("my-provider", True, "[bold]ready[/bold]")


def _plugin_build(settings: Any) -> Any:
    raise AssertionError("not built in these tests")


PLUGIN_PROVIDER = ProviderSpec("my-provider", "a plugin provider", _plugin_build,
                               _plugin_check)


def _settings(tmp_path: Path, toml: str = "", **overrides: Any) -> Any:
    files = []
    if toml:
        path = tmp_path / "deepcite.toml"
        path.write_text(toml, encoding="utf-8")
        files.append(path)
    return load_settings({"data_dir": str(tmp_path / "data"), **overrides},
                         config_files=files, environ={})


# ------------------------------------------------------------------------ spelling


@pytest.mark.parametrize("spelling", ["Semantic_Scholar", "semantic-scholar",
                                      "semantic_scholar", " SEMANTIC scholar ", "s2",
                                      "SemanticScholar"])
def test_every_spelling_resolves_to_the_kebab_case_name(spelling: str) -> None:
    assert normalise(spelling) == "semantic-scholar"
    assert load_engine_class(spelling) is load_engine_class("semantic-scholar")


def test_canonical_names_are_kebab_case() -> None:
    assert kebab_case("  Focused__Iteration ") == "focused-iteration"
    assert file_suffix("ODT") == file_suffix(".odt") == ".odt"
    names = engine_names()
    assert "semantic-scholar" in names and "semantic_scholar" not in names
    assert all(name == kebab_case(name) for name in names)


def test_built_engine_carries_the_canonical_name(make_settings: Any) -> None:
    assert get_engine("Semantic_Scholar", make_settings()).name == "semantic-scholar"


def test_rate_limits_accept_the_old_engine_spelling(make_settings: Any) -> None:
    settings = make_settings(**{"engines.rate_per_second": {"Semantic_Scholar": 2.0}})
    assert settings.engines.rate_per_second == {"semantic-scholar": 2.0}


# ------------------------------------------------------------------- unknown names


def test_unknown_engine_is_an_error_naming_the_closest(make_settings: Any) -> None:
    with pytest.raises(ConfigError) as info:
        get_engine("duckgo", make_settings())
    message = str(info.value)
    assert message.startswith("Unknown search engine 'duckgo' - did you mean 'duckduckgo'?")
    assert "`deepcite engines`" in message and "\n" not in message


def test_unknown_engine_without_a_close_name_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as info:
        load_engine_class("zzzz")
    assert "known: " in str(info.value) and "duckduckgo" in str(info.value)


def test_a_close_alias_suggests_its_target() -> None:
    assert ENGINES.suggestions("ddgg") == ["duckduckgo"]


def test_unknown_provider_suggests_and_lists_auto() -> None:
    with pytest.raises(ConfigError, match="did you mean 'ollama'"):
        get_provider("olama")
    with pytest.raises(ConfigError) as info:
        get_provider("zzzz")
    assert "auto, local, ollama, openai, anthropic" in str(info.value)
    assert get_provider("Ollama") is PROVIDERS["ollama"]


class SourceBased:
    """Stands for a built-in strategy class."""


class FocusedIteration:
    """Stands for another built-in strategy class."""


def _strategy_like() -> Registry[type]:
    """A kind declared the way strategies will be: a fallback instead of an error."""
    return Registry("strategy", group="deepcite.test_strategies", check=lambda n, o: o,
                    builtins={"source-based": SourceBased,
                              "focused-iteration": FocusedIteration},
                    aliases={"focused": "focused-iteration"},
                    replaced={"rapid": "source-based"}, fallback="source-based",
                    hint="See `deepcite strategies`")


def test_a_kind_with_a_fallback_warns_instead(plugins: Callable[..., None]) -> None:
    kinds = _strategy_like()
    warnings: list[str] = []
    assert kinds.load("Focused", warn=warnings.append) is FocusedIteration
    assert warnings == []
    assert kinds.resolve("focussed-iteration", warn=warnings.append) == "source-based"
    assert warnings == ["Unknown strategy 'focussed-iteration'; using 'source-based' "
                        "(did you mean 'focused-iteration'?)"]
    assert kinds.resolve("rapid", warn=warnings.append) == "source-based"
    assert "not available any more" in warnings[-1]


def test_a_fallback_warning_without_callback_is_logged(
        plugins: Callable[..., None], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="deepcite.plugins"):
        assert _strategy_like().resolve("bogus") == "source-based"
    assert "Unknown strategy 'bogus'" in caplog.text


def test_aliases_and_fallback_must_name_built_ins() -> None:
    with pytest.raises(ValueError, match="'nowhere' is not a built-in"):
        Registry("thing", group="g", check=lambda n, o: o, builtins={"a": "m:A"},
                 aliases={"b": "nowhere"})


# -------------------------------------------------------------------- lazy loading


def test_built_ins_are_imported_only_when_used(plugins: Callable[..., None]) -> None:
    kinds: Registry[object] = Registry(
        "exporter", group="deepcite.test_exporters", check=lambda n, o: o,
        builtins={"pdf": "no_such_module_for_deepcite:PdfExporter", "md": f"{HERE}:HERE"})
    assert kinds.names() == ["pdf", "md"] and "PDF" in kinds
    assert kinds.load("md") == HERE
    with pytest.raises(ConfigError) as info:
        kinds.load("pdf")
    message = str(info.value)
    assert "exporter 'pdf' (no_such_module_for_deepcite:PdfExporter) cannot be loaded" in message
    assert "ModuleNotFoundError" in message and "reinstall deepcite" in message


def test_every_built_in_engine_conforms_to_the_protocol() -> None:
    for name in [*BUILTIN_ENGINES, "local"]:
        cls = load_engine_class(name)
        assert isinstance(cls, EngineClass), name
        assert cls.settings_model is None and cls.description


# -------------------------------------------------------------------- entry points


def test_plugins_register_by_entry_point_in_every_spelling(
        plugins: Callable[..., None], make_settings: Any) -> None:
    plugins(registry.SEARCH_ENGINES_GROUP, My_Plain_Engine=f"{HERE}:PlainEngine")
    assert "my-plain-engine" in engine_names()
    assert load_engine_class("my_plain_engine") is PlainEngine
    assert ENGINES.origin("MY-PLAIN-ENGINE") == f"{HERE}:PlainEngine"
    engine = get_engine("My-Plain-Engine", make_settings())
    assert isinstance(engine, PlainEngine) and engine.name == "plain"
    row = next(r for r in describe_engines(make_settings()) if r.name == "my-plain-engine")
    assert row.usable and row.needs == "nothing"


def test_a_plugin_cannot_shadow_a_built_in_or_its_alias(
        plugins: Callable[..., None], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="deepcite.plugins"):
        plugins(registry.SEARCH_ENGINES_GROUP, DuckDuckGo=f"{HERE}:PlainEngine",
                s2=f"{HERE}:PlainEngine", Semantic_Scholar=f"{HERE}:PlainEngine")
        assert load_engine_class("duckduckgo") is not PlainEngine
        assert load_engine_class("s2") is not PlainEngine
        assert load_engine_class("semantic_scholar") is not PlainEngine
        assert not ENGINES.plugins().keys() & {"duckduckgo", "semantic-scholar", "s2"}
    assert "is built in" in caplog.text


def test_a_plugin_cannot_take_a_reserved_name(plugins: Callable[..., None]) -> None:
    plugins(registry.LLM_PROVIDERS_GROUP, auto=f"{HERE}:PLUGIN_PROVIDER",
            Ollama=f"{HERE}:PLUGIN_PROVIDER")
    assert PROVIDER_REGISTRY.plugins() == {}
    assert get_provider("ollama") is PROVIDERS["ollama"]


def test_the_first_of_two_plugins_with_one_name_wins(plugins: Callable[..., None]) -> None:
    plugins(registry.SEARCH_ENGINES_GROUP, twin=f"{HERE}:PlainEngine")
    plugins(registry.SEARCH_ENGINES_GROUP, Twin=f"{HERE}:OptionsEngine")
    assert load_engine_class("twin") is PlainEngine


def test_a_plugin_that_is_not_an_engine_class_is_refused(
        plugins: Callable[..., None], make_settings: Any) -> None:
    plugins(registry.SEARCH_ENGINES_GROUP, half=f"{HERE}:NotAnEngine",
            factory=f"{HERE}:plain_factory", gone="no_such_plugin_module:Engine")
    with pytest.raises(ConfigError) as info:
        get_engine("half", make_settings())
    message = str(info.value)
    assert "'half'" in message and "needs, offline_capable, settings_model" in message
    assert "description" not in message.split("lacks")[1].split(" - ")[0]
    assert "EngineBase" in message and "\n" not in message
    with pytest.raises(ConfigError, match="lacks description"):
        load_engine_class("factory")
    with pytest.raises(ConfigError, match="reinstall the plugin that provides it"):
        load_engine_class("gone")
    rows = {row.name: row for row in describe_engines(make_settings())}
    assert not rows["half"].usable and "lacks" in rows["half"].detail
    assert not rows["gone"].usable and rows["duckduckgo"].usable


def test_provider_plugins_are_specs_spelled_like_built_ins(
        plugins: Callable[..., None], tmp_path: Path) -> None:
    plugins(registry.LLM_PROVIDERS_GROUP, My_Provider=f"{HERE}:PLUGIN_PROVIDER",
            broken=f"{HERE}:HERE")
    assert get_provider("my_provider") is PLUGIN_PROVIDER
    settings = _settings(tmp_path, provider="My_Provider")
    assert settings.llm.provider == "my-provider"
    assert resolve_provider(settings) == "my-provider"
    statuses = {s.name: s for s in describe_providers(settings)}
    assert statuses["my-provider"].usable
    assert not statuses["broken"].usable
    assert "not a deepcite.llm.ProviderSpec but a str" in statuses["broken"].detail
    assert list(statuses)[:4] == list(PROVIDERS)


def test_settings_refuse_an_unknown_provider_with_a_suggestion(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _settings(tmp_path, provider="olama")
    message = str(info.value)
    assert "llm.provider" in message and "did you mean 'ollama'" in message
    assert _settings(tmp_path, provider="Ollama").llm.provider == "ollama"


def test_loader_plugins_are_registered_by_suffix(
        plugins: Callable[..., None], tmp_path: Path) -> None:
    from deepcite.collections.loaders import LOADER_REGISTRY, is_supported
    from deepcite.collections.loaders.registry import load_markdown

    plugins(registry.LOADERS_GROUP, ODT=f"{HERE}:plain_loader", md=f"{HERE}:plain_loader")
    assert ".odt" in LOADER_REGISTRY.names()
    assert is_supported(tmp_path / "letter.Odt")
    assert LOADER_REGISTRY.load(".MD") is load_markdown


def plain_loader(path: Path) -> Any:
    """A loader plugin target (never called here)."""
    raise AssertionError(path)


# ----------------------------------------------------------------- plugin settings


def test_plugin_engine_reads_its_validated_table(
        plugins: Callable[..., None], tmp_path: Path) -> None:
    plugins(registry.SEARCH_ENGINES_GROUP, Options_Engine=f"{HERE}:OptionsEngine")
    settings = _settings(tmp_path, '[engines.Options_Engine]\nurl = "https://x.example"\n'
                                   'limit = 3\n')
    assert settings.engines.plugins == {"options-engine": {"url": "https://x.example",
                                                            "limit": 3}}
    check_engine_tables(settings)
    engine = get_engine("options-engine", settings)
    assert isinstance(engine, OptionsEngine)
    assert engine.options == PluginOptions(url="https://x.example", limit=3)


def test_plugin_settings_also_come_from_the_plugins_mapping(
        plugins: Callable[..., None], tmp_path: Path) -> None:
    plugins(registry.SEARCH_ENGINES_GROUP, options_engine=f"{HERE}:OptionsEngine")
    settings = _settings(tmp_path, **{"engines.plugins": {"options_engine": {"url": "u"}}})
    assert engine_options("Options-Engine", settings, PluginOptions).limit == 5


@pytest.mark.parametrize(("table", "expected"), [
    ('limit = 0\nurl = "u"', "Bad value 0 for setting 'engines.options-engine.limit': "
                             "Input should be greater than or equal to 1"),
    ('url = "u"\nlimt = 2', "Unknown setting 'engines.options-engine.limt' for search "
                            "engine 'options-engine' - did you mean 'limit'?"),
    ("limit = 2", "Setting 'engines.options-engine.url' is required - add it to the "
                  "[engines.options-engine] table of deepcite.toml"),
])
def test_bad_plugin_settings_are_one_line_errors(
        plugins: Callable[..., None], tmp_path: Path, table: str, expected: str) -> None:
    plugins(registry.SEARCH_ENGINES_GROUP, options_engine=f"{HERE}:OptionsEngine")
    settings = _settings(tmp_path, f"[engines.options-engine]\n{table}\n")
    for call in (lambda: get_engine("options-engine", settings),
                 lambda: check_engine_tables(settings)):
        with pytest.raises(ConfigError) as info:
            call()
        assert str(info.value) == expected
    row = next(r for r in describe_engines(settings) if r.name == "options-engine")
    assert not row.usable and row.detail == expected


def test_a_table_for_no_engine_is_an_error(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "[engines.duckduckgoo]\nregion = 'de'\n"
                                   "[engines.rate_per_secnd]\nbrave = 1\n")
    with pytest.raises(ConfigError) as info:
        check_engine_tables(settings)
    message = str(info.value)
    assert "[engines.duckduckgoo]" in message and "engine 'duckduckgo'" in message
    settings = _settings(tmp_path, "[engines.rate_per_secnd]\nbrave = 1\n")
    with pytest.raises(ConfigError, match=r"setting 'engines\.rate_per_second'"):
        check_engine_tables(settings)


def test_a_built_in_engine_takes_no_table(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "[engines.brave]\napi_key = 'k'\n")
    with pytest.raises(ConfigError, match=r"'brave' takes no \[engines.brave\] table"):
        check_engine_tables(settings)
