"""Settings: typed, layered, frozen.

Values come from four layers, each overriding the one before:

1. defaults (the field defaults below);
2. ``deepcite.toml`` files: the user config dir (platformdirs), then the project dir
   (the current directory), so a project file wins over the user's;
3. ``DEEPCITE_*`` environment variables, one per setting: ``research.iterations`` is
   ``DEEPCITE_RESEARCH_ITERATIONS``;
4. arguments from the CLI or the Python API.

The layers are merged here rather than by pydantic-settings' own sources because
``deepcite config show`` must say where each effective value came from, and because an
unknown key in a settings file must fail loudly instead of being ignored. An unknown
``DEEPCITE_*`` variable is only a warning naming the closest known one (logged, and
shown by ``deepcite config show``): other tools set variables with that prefix too.

Names that plugins can add to - ``llm.provider``, the keys of
``engines.rate_per_second`` and of ``engines.plugins`` (the ``[engines.<name>]`` tables
of plugin engines) - are spelled by the one rule of :mod:`deepcite.registry`
(kebab-case). A plugin engine's table is validated by the engine registry, which knows
the engine's settings model.
The result is a frozen :class:`Settings`; every component of a run gets the same
snapshot, so a setting cannot change half-way through a run.
"""

from __future__ import annotations

import logging
import os
import stat
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from deepcite.errors import ConfigError
from deepcite.registry import LLM_PROVIDERS_GROUP, closest, entry_point_names, kebab_case

logger = logging.getLogger(__name__)

CONFIG_FILE_NAME = "deepcite.toml"
ENV_PREFIX = "DEEPCITE_"

#: ``llm.provider`` values that need no plugin (``deepcite.llm.PROVIDERS`` plus ``auto``).
BUILTIN_PROVIDERS = ("auto", "local", "ollama", "openai", "anthropic")


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LLMSettings(_Section):
    """Which chat model answers, and how it is called."""

    provider: str = Field(default="auto", description="auto, local, ollama, openai, "
                          "anthropic or a plugin's (deepcite.llm_providers)")
    model: str | None = Field(
        default=None, description="model name for ollama/openai/anthropic (e.g. llama3.2)"
    )
    gguf_path: Path | None = Field(
        default=None, description="GGUF file for the local provider; default: bundled SmolLM2"
    )
    base_url: str | None = Field(
        default=None, description="OpenAI-compatible server URL (vLLM, LM Studio, llama.cpp)"
    )
    ollama_url: str = "http://localhost:11434"
    api_key: SecretStr | None = Field(
        default=None, description="key for openai/anthropic; else OPENAI_API_KEY/ANTHROPIC_API_KEY"
    )
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)
    max_tokens: int = Field(default=400, ge=16, le=65536, description="reply length limit")
    context_size: int | None = Field(
        default=None, ge=512, le=2_000_000,
        description="context window in tokens; default 2048 for local, 8192 for others",
    )
    threads: int | None = Field(default=None, ge=1, description="CPU threads (local)")
    timeout_seconds: float = Field(default=120.0, gt=0)

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        name = kebab_case(value)
        if name in BUILTIN_PROVIDERS:
            return name  # without an entry point scan, which is slow
        known = [*BUILTIN_PROVIDERS, *entry_point_names(LLM_PROVIDERS_GROUP)]
        if name in known:
            return name
        near = closest(name, known)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise PydanticCustomError(
            "unknown_provider", "unknown provider - {hint}known: {known} "
            "(see `deepcite models`)",
            {"hint": hint, "known": ", ".join(repr(k) for k in known)})


class SearchSettings(_Section):
    """Where research looks, and which results count."""

    engines: tuple[str, ...] = Field(
        default=(),
        description="search engines; default: duckduckgo, or none when collections are given",
    )
    collections: tuple[str, ...] = Field(default=(), description="collections to search")
    include_domains: tuple[str, ...] = Field(
        default=(), description="only results from these domains (and their subdomains)"
    )
    exclude_domains: tuple[str, ...] = Field(default=(), description="never these domains")
    since: date | None = Field(default=None, description="only results published on/after")
    until: date | None = Field(default=None, description="only results published on/before")
    fetch_full_text: bool = Field(
        default=False, description="download result pages for full text (web engines)"
    )
    chunk_tokens: int = Field(default=300, ge=20, le=4000,
                              description="target chunk size when indexing collections")
    chunk_overlap_tokens: int = Field(default=40, ge=0, le=1000,
                                      description="tokens repeated between chunks")
    dense: bool = Field(default=False, description="embed chunks for hybrid BM25 + dense "
                        "search (needs deepcite[embeddings])")
    dense_model: Path | None = Field(default=None, description="sentence-transformers model "
                                     "folder; default: the bundled all-MiniLM-L6-v2")
    max_results: int = Field(default=5, ge=1, le=100, description="results per query")
    concurrency: int = Field(default=4, ge=1, le=64, description="parallel searches")


class EngineSettings(_Section):
    """Options of the built-in search engines; keys also come from their usual env vars."""

    timeout_seconds: float = Field(default=10.0, gt=0, description="per request")
    max_retries: int = Field(default=2, ge=0, le=10, description="retries on 429/5xx/timeout")
    rate_per_second: dict[str, float] = Field(
        default_factory=dict, description="requests per second by engine name"
    )
    circuit_failures: int = Field(
        default=3, ge=1, description="failures after which an engine is skipped for the run"
    )
    searxng_url: str | None = Field(default=None, description="SearXNG instance (SEARXNG_URL)")
    tavily_api_key: SecretStr | None = Field(default=None, description="or TAVILY_API_KEY")
    perplexity_api_key: SecretStr | None = Field(default=None, description="or PERPLEXITY_API_KEY")
    perplexity_model: str = "sonar"
    brave_api_key: SecretStr | None = Field(default=None, description="or BRAVE_API_KEY")
    semantic_scholar_api_key: SecretStr | None = Field(
        default=None, description="optional; or SEMANTIC_SCHOLAR_API_KEY"
    )
    pubmed_api_key: SecretStr | None = Field(default=None, description="optional; or NCBI_API_KEY")
    openalex_email: str | None = Field(default=None, description="polite pool e-mail")
    wikipedia_language: str = Field(default="en", pattern=r"^[a-z]{2,3}(-[a-z]+)?$")
    elasticsearch_url: str | None = Field(default=None, description="or ELASTICSEARCH_URL")
    elasticsearch_index: str = "documents"
    elasticsearch_api_key: SecretStr | None = Field(
        default=None, description="or ELASTICSEARCH_API_KEY"
    )
    elasticsearch_title_field: str = "title"
    elasticsearch_text_field: str = "content"
    elasticsearch_url_field: str = "url"
    elasticsearch_date_field: str | None = None
    plugins: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="settings of plugin engines by engine name; in "
        "deepcite.toml as [engines.NAME] tables")

    @field_validator("rate_per_second", "plugins")
    @classmethod
    def _engine_spelling(cls, value: dict[str, Any]) -> dict[str, Any]:
        """Engine names as the registry spells them (``semantic_scholar`` still works)."""
        return {kebab_case(name): item for name, item in value.items()}


class CitationSettings(_Section):
    """How answers cite, and how citations are checked."""

    handler: str = Field(default="standard",
                         description="standard, forced (benchmarks) or precision (short facts)")
    verify: bool = Field(default=True, description="check every cited claim against its source")
    verify_with_model: bool = Field(
        default=False, description="ask the model about citations the cheap checks cannot decide")
    unsupported: Literal["remove", "flag"] = Field(
        default="remove", description="what happens to citations their source does not support")
    links: Literal["none", "number", "domain", "domain-id", "domain-id-always",
                   "source-tagged"] = Field(
        default="none", description="inline hyperlinks in Markdown output")
    answer_mode: Literal["auto", "abstractive", "grounded"] = Field(
        default="auto", description="grounded: answer with the sources' own sentences; "
        "auto: grounded for small models (under 1B parameters, local with <= 4k context)")
    mark_unsupported: bool = Field(
        default=False, description="mark answer sentences no source supports ^(unsupported)")


class SecuritySettings(_Section):
    """The egress policy: where deepcite may connect."""

    offline: bool = Field(
        default=False, description="no web engines or cloud models; only local services and "
        "allow_private_hosts; never widens what may be contacted"
    )
    allow_private_networks: bool = Field(
        default=False, description="allow every private/loopback address (not recommended)"
    )
    allow_private_hosts: tuple[str, ...] = Field(
        default=(), description="private hosts, IPs or CIDRs that fetched pages and redirects "
        "may reach, optionally with :port (configured service URLs need no entry)"
    )
    max_download_bytes: int = Field(default=5_000_000, ge=1024, description="page fetch cap")


class ResearchSettings(_Section):
    """How a run iterates."""

    strategy: str = "source-based"
    iterations: int = Field(default=2, ge=1, le=50)
    questions_per_iteration: int = Field(default=3, ge=0, le=20)
    followups_per_iteration: int = Field(default=2, ge=0, le=20)
    search_original_query: bool = True
    max_query_chars: int = Field(
        default=300, ge=1, description="longer questions are not searched verbatim"
    )
    question_context_limit: int = Field(
        default=30, ge=1, description="recent results shown when generating follow-ups"
    )
    max_sources: int = Field(default=10, ge=1, le=200, description="sources given to synthesis")
    relevance_filter: bool = Field(
        default=False, description="one model call keeps and ranks this run's results")
    max_model_calls: int | None = Field(default=None, ge=1, description="run budget")
    max_tokens: int | None = Field(default=None, ge=100, description="run budget (prompt + reply)")
    max_seconds: float | None = Field(default=None, gt=0, description="run budget, wall clock")
    max_searches: int | None = Field(default=None, ge=1, description="run budget")


class Settings(BaseSettings):
    """The effective settings of one run; frozen, hand the same object to every part."""

    model_config = SettingsConfigDict(frozen=True, extra="forbid")

    llm: LLMSettings = LLMSettings()
    search: SearchSettings = SearchSettings()
    engines: EngineSettings = EngineSettings()
    research: ResearchSettings = ResearchSettings()
    citations: CitationSettings = CitationSettings()
    security: SecuritySettings = SecuritySettings()
    data_dir: Path = Field(
        default_factory=lambda: platformdirs.user_data_path("deepcite"),
        description="where collections and run data live",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Layers are merged by load_settings() so that provenance can be reported.
        return (init_settings,)


@dataclass(frozen=True)
class SettingValue:
    """One effective setting for ``deepcite config show``."""

    key: str
    value: Any
    origin: str


# ----------------------------------------------------------------------------- keys


def _leaf_keys(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    for name, field in model.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from _leaf_keys(ann, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}"


KNOWN_KEYS: tuple[str, ...] = tuple(_leaf_keys(Settings))
SECTIONS: tuple[str, ...] = tuple(
    name
    for name, f in Settings.model_fields.items()
    if isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel)
)


def env_name(key: str) -> str:
    """``research.iterations`` -> ``DEEPCITE_RESEARCH_ITERATIONS``."""
    return ENV_PREFIX + key.replace(".", "_").upper()


_ENV_TO_KEY = {env_name(k): k for k in KNOWN_KEYS}


def resolve_key(name: str) -> str:
    """Turn a dotted key or a unique leaf name (``iterations``) into a dotted key."""
    if name in KNOWN_KEYS:
        return name
    matches = [k for k in KNOWN_KEYS if k.rsplit(".", 1)[-1] == name]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ConfigError(f"Setting name {name!r} is ambiguous - use one of "
                          f"{', '.join(matches)}")
    raise ConfigError(f"Unknown setting {name!r} - {_did_you_mean(name)}`deepcite config "
                      "show` lists every setting")


def _did_you_mean(name: str) -> str:
    """``"did you mean 'research.iterations'? "``; a leaf name is offered for a leaf name
    (``iteratons`` -> ``iterations``), since Python keywords cannot hold dots."""
    leaves = [key.rsplit(".", 1)[-1] for key in KNOWN_KEYS]
    unique = [leaf for leaf in leaves if leaves.count(leaf) == 1]
    near = closest(name, KNOWN_KEYS if "." in name else [*unique, *KNOWN_KEYS])
    return f"did you mean {near[0]!r}? " if near else ""


# --------------------------------------------------------------------------- layers


def default_config_files(cwd: Path | None = None) -> list[Path]:
    """Config files in increasing priority: user config dir, then the project dir."""
    user = platformdirs.user_config_path("deepcite") / CONFIG_FILE_NAME
    project = (cwd or Path.cwd()) / CONFIG_FILE_NAME
    files = [user]
    if _resolved(project) != _resolved(user):
        files.append(project)
    return files


def _resolved(path: Path) -> Path:
    """``path.resolve()``, or ``path`` itself where a symlink loop stops resolution.

    The loop is reported where it matters, when the file is read (:func:`_present`),
    as a one-line error naming the file rather than a traceback from here.
    """
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: "Symlink loop" before Python 3.13
        return path


def _present(path: Path) -> bool:
    """Whether a settings file is at ``path`` (absent is fine: all files are optional).

    Anything else there - a folder, a socket, a link loop, an unreadable folder above -
    is a ConfigError: silently ignoring it would leave the user wondering why their
    settings have no effect.
    """
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        raise ConfigError(f"Cannot read settings file {path} ({exc.strerror}); check the "
                          "path and its permissions") from None
    if stat.S_ISDIR(mode):
        raise ConfigError(f"{path} is a folder, not a settings file; remove or rename it "
                          f"(settings go in a UTF-8 TOML file named {CONFIG_FILE_NAME})")
    if not stat.S_ISREG(mode):
        raise ConfigError(f"{path} is not a regular file; replace it with a UTF-8 TOML "
                          "settings file or remove it")
    return True


def _flatten(data: Mapping[str, Any], origin: str, prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in data.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping) and name in SECTIONS and not prefix:
            flat.update(_flatten(value, origin, f"{key}."))
        elif name in SECTIONS and not prefix:
            raise ConfigError(f"{key!r} in {origin} is a section, not a value: write its "
                              f"settings under a [{key}] table")
        elif key == PLUGIN_TABLES and isinstance(value, Mapping):
            flat[key] = {**flat.get(key, {}), **value}
        elif key in KNOWN_KEYS:
            flat[key] = value
        elif prefix == "engines." and isinstance(value, Mapping):
            # [engines.<name>]: a plugin engine's table, checked by the engine registry
            flat[PLUGIN_TABLES] = {**flat.get(PLUGIN_TABLES, {}), name: dict(value)}
        else:
            raise ConfigError(_unknown_key_message(key, origin))
    return flat


PLUGIN_TABLES = "engines.plugins"


def _unknown_key_message(key: str, origin: str) -> str:
    section = key.rsplit(".", 1)[0] if "." in key else ""
    siblings = [k for k in KNOWN_KEYS if section and k.startswith(section + ".")]
    if siblings:
        return (f"Unknown setting {key!r} in {origin} - {_did_you_mean(key)}known in "
                f"[{section}]: {', '.join(siblings)}")
    return (f"Unknown setting {key!r} in {origin} - {_did_you_mean(key)}`deepcite config "
            "show` lists every setting")


def _read_toml(path: Path) -> dict[str, Any]:
    """The flattened settings of one file; every way it can be unusable is a one-line
    :class:`ConfigError` naming the file, never a traceback."""
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix or remove the file") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid UTF-8 (bad byte at offset {exc.start}): it must be a UTF-8 "
            "TOML file; save it as UTF-8 or remove it") from None
    except RecursionError:
        raise ConfigError(f"{path} nests arrays or tables too deeply to be a settings "
                          "file; it must be a UTF-8 TOML file of [section] tables") from None
    except OSError as exc:
        raise ConfigError(f"Cannot read {path} ({exc.strerror}); check its permissions") from exc
    return _flatten(data, str(path))


def _read_env(environ: Mapping[str, str], warnings: list[str]) -> dict[str, Any]:
    """Settings from ``DEEPCITE_*`` variables; unknown ones add to ``warnings``."""
    flat: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX):
            continue
        key = _ENV_TO_KEY.get(name)
        if key is None:
            warnings.append(_unknown_env_message(name))
            continue
        flat[key] = _parse_env_value(key, raw)
    return flat


def _unknown_env_message(name: str) -> str:
    # Compared without the prefix, which every candidate shares and would make any two
    # names look alike.
    near = closest(name.removeprefix(ENV_PREFIX),
                   [env.removeprefix(ENV_PREFIX) for env in _ENV_TO_KEY])
    hint = (f"did you mean {ENV_PREFIX}{near[0]}?" if near
            else "deepcite's own are DEEPCITE_<SECTION>_<KEY>")
    return (f"Unknown environment variable {name} ignored - {hint} (`deepcite config "
            "show` lists the settings)")


def _parse_env_value(key: str, raw: str) -> Any:
    field = _field_of(key)
    if field is not None and "tuple" in str(field.annotation):
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    if field is not None and "dict" in str(field.annotation):
        # "brave=1,arxiv=0.3" for mappings such as engines.rate_per_second
        pairs = (part.split("=", 1) for part in raw.split(",") if "=" in part)
        return {name.strip(): value.strip() for name, value in pairs}
    return raw


def _field_of(key: str) -> Any:
    model: type[BaseModel] = Settings
    *sections, leaf = key.split(".")
    for section in sections:
        annotation = model.model_fields[section].annotation
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        model = annotation
    return model.model_fields.get(leaf)


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        if "." in key:
            section, leaf = key.split(".", 1)
            nested.setdefault(section, {})[leaf] = value
        else:
            nested[key] = value
    return nested


@dataclass(frozen=True)
class _Layers:
    values: dict[str, Any]
    origins: dict[str, str]
    warnings: list[str]


def _collect(
    overrides: Mapping[str, Any] | None,
    config_files: list[Path] | None,
    environ: Mapping[str, str] | None,
) -> _Layers:
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    warnings: list[str] = []
    files = default_config_files() if config_files is None else config_files
    layers: list[tuple[str, dict[str, Any]]] = [
        (str(path), _read_toml(path)) for path in files if _present(path)
    ]
    environment = _read_env(os.environ if environ is None else environ, warnings)
    layers.append(("environment", environment))
    layers.append(("argument", _normalise_overrides(overrides or {})))
    for origin, flat in layers:
        for key, value in flat.items():
            if key == PLUGIN_TABLES and isinstance(value, Mapping):
                # one plugin engine's table replaces its lower-layer table, not all tables
                value = {**values.get(key, {}), **value}
            values[key] = value
            origins[key] = f"env {env_name(key)}" if origin == "environment" else origin
    return _Layers(values, origins, warnings)


_logged: set[str] = set()


def _log_warnings(layers: _Layers) -> None:
    """Log each settings warning once per process (settings are loaded more than once)."""
    for message in layers.warnings:
        if message not in _logged:
            _logged.add(message)
            logger.warning("%s", message)


def config_warnings(environ: Mapping[str, str] | None = None) -> list[str]:
    """Problems in the settings that are not errors: unknown ``DEEPCITE_*`` variables."""
    warnings: list[str] = []
    _read_env(os.environ if environ is None else environ, warnings)
    return warnings


def _normalise_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in overrides.items():
        if value is None:
            continue
        if name in SECTIONS and isinstance(value, Mapping):
            flat.update(_flatten({name: value}, "arguments"))
        else:
            flat[resolve_key(name)] = value
    return flat


def load_settings(
    overrides: Mapping[str, Any] | None = None,
    *,
    config_files: list[Path] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build the frozen settings snapshot from all layers.

    ``overrides`` takes dotted keys (``"llm.provider"``), unique leaf names
    (``"iterations"``) or section mappings (``{"llm": {...}}``); ``None`` values are
    ignored so CLI options left unset do not override lower layers.
    Raises :class:`ConfigError` with a one-line message on any bad key or value; an
    unknown ``DEEPCITE_*`` variable is logged as a warning (see :func:`config_warnings`).
    """
    layers = _collect(overrides, config_files, environ)
    _log_warnings(layers)
    return _validate(layers)


def explain_settings(
    overrides: Mapping[str, Any] | None = None,
    *,
    config_files: list[Path] | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[SettingValue]:
    """Every effective setting with the layer it came from (secrets masked)."""
    layers = _collect(overrides, config_files, environ)
    settings = _validate(layers)
    rows = []
    for key in KNOWN_KEYS:
        value = get_value(settings, key)
        if isinstance(value, SecretStr):
            value = "********"
        rows.append(SettingValue(key, value, layers.origins.get(key, "default")))
    return rows


def get_value(settings: Settings, key: str) -> Any:
    """Read a dotted key from a settings object."""
    obj: Any = settings
    for part in key.split("."):
        obj = getattr(obj, part)
    return obj


def _validate(layers: _Layers) -> Settings:
    try:
        return Settings(**_nest(layers.values))
    except ValidationError as exc:
        raise ConfigError(_describe(exc, layers)) from None


def _describe(exc: ValidationError, layers: _Layers) -> str:
    err = exc.errors()[0]
    loc = [str(part) for part in err["loc"] if not isinstance(part, int)]
    key = ".".join(loc[:2]) if loc and loc[0] in SECTIONS else (loc[0] if loc else "?")
    origin = layers.origins.get(key, "default")
    if err["type"] == "extra_forbidden":
        return _unknown_key_message(key, origin)
    value = layers.values.get(key, err.get("input"))
    shown = repr(value)  # a value can be a whole file's worth of text: keep one short line
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return f"Bad value {shown} for setting {key!r} (from {origin}): {err['msg']}"
