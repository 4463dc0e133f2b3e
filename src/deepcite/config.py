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
``engines.rate_per_second``, of ``engines.plugins`` (the ``[engines.<name>]`` tables
of plugin engines) and of ``delivery.plugins`` (the ``[delivery.<name>]`` tables of
plugin delivery channels) - are spelled by the one rule of :mod:`deepcite.plugins`
(kebab-case). A plugin's table is validated by its registry, which knows the plugin's
settings model.
The result is a frozen :class:`Settings`; every component of a run gets the same
snapshot, so a setting cannot change half-way through a run.
"""

from __future__ import annotations

import logging
import os
import stat
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import BaseModel, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from deepcite.config_sections import (
    BUILTIN_PROVIDERS,
    CitationSettings,
    DeliverySettings,
    EngineSettings,
    LLMSettings,
    ModelPrice,
    QueueSettings,
    ReportSettings,
    ResearchSettings,
    SearchSettings,
    SecuritySettings,
    StoreSettings,
    WatchSettings,
    WebSettings,
)
from deepcite.errors import ConfigError
from deepcite.plugins import closest

logger = logging.getLogger(__name__)

CONFIG_FILE_NAME = "deepcite.toml"
ENV_PREFIX = "DEEPCITE_"


class Settings(BaseSettings):
    """The effective settings of one run; frozen, hand the same object to every part."""

    model_config = SettingsConfigDict(frozen=True, extra="forbid")

    llm: LLMSettings = LLMSettings()
    search: SearchSettings = SearchSettings()
    engines: EngineSettings = EngineSettings()
    research: ResearchSettings = ResearchSettings()
    citations: CitationSettings = CitationSettings()
    security: SecuritySettings = SecuritySettings()
    report: ReportSettings = ReportSettings()
    store: StoreSettings = StoreSettings()
    queue: QueueSettings = QueueSettings()
    web: WebSettings = WebSettings()
    watches: WatchSettings = WatchSettings()
    delivery: DeliverySettings = DeliverySettings()
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
        elif key in _PLUGIN_TABLE_KEYS and isinstance(value, Mapping):
            flat[key] = {**flat.get(key, {}), **value}
        elif key in KNOWN_KEYS:
            flat[key] = value
        elif prefix[:-1] in PLUGIN_TABLES and isinstance(value, Mapping):
            # [engines.<name>], [delivery.<name>]: a plugin's table, checked by its
            # registry (the engines', the delivery channels')
            tables = PLUGIN_TABLES[prefix[:-1]]
            flat[tables] = {**flat.get(tables, {}), name: dict(value)}
        else:
            raise ConfigError(_unknown_key_message(key, origin))
    return flat


#: Sections whose ``[section.<name>]`` tables are a plugin's settings, and the setting
#: that holds them: plugin engines' and plugin delivery channels'.
PLUGIN_TABLES: Mapping[str, str] = {"engines": "engines.plugins",
                                    "delivery": "delivery.plugins"}
_PLUGIN_TABLE_KEYS = frozenset(PLUGIN_TABLES.values())


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
            if key in _PLUGIN_TABLE_KEYS and isinstance(value, Mapping):
                # one plugin's table replaces its lower-layer table, not all tables
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


RESTART_SECTIONS = ("store", "queue", "web", "watches", "delivery")
"""Sections a running server reads once, when it starts (the history store it opened,
the executor it chose, the session and proxy rules, the scheduler's tick and senders),
and ``data_dir``: :func:`with_current` keeps a server's values of these."""


def needs_restart(key: str) -> bool:
    """Whether a running ``deepcite serve`` keeps its start-up value of ``key`` (a dotted
    setting) until it is restarted: see :data:`RESTART_SECTIONS`."""
    return key == "data_dir" or key.partition(".")[0] in RESTART_SECTIONS


def with_current(
    settings: Settings,
    keys: Iterable[str],
    *,
    config_files: list[Path] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """``settings`` with each of ``keys`` as the files and environment give it now.

    What a running server uses after a setting was saved: only the keys saved change,
    so values the server was started with in another way (arguments, a test's
    overrides) stay as they were, and runs already going keep the snapshot they hold
    (settings are frozen). Keys a server reads only at start (:func:`needs_restart`)
    are left as they are; ConfigError when the files do not validate.
    """
    now = _validate(_collect(None, config_files, environ))
    changes: dict[str, dict[str, Any]] = {}
    for key in dict.fromkeys(resolve_key(k) for k in keys):
        if needs_restart(key):
            continue
        section, name = key.split(".")[:2]  # a whole field, nested tables too
        changes.setdefault(section, {})[name] = getattr(getattr(now, section), name)
    update: dict[str, BaseModel] = {}
    for section, values in changes.items():
        current: BaseModel = getattr(settings, section)
        try:
            update[section] = type(current).model_validate({**dict(current), **values})
        except ValidationError as exc:
            raise ConfigError(f"{section}: {exc.errors()[0]['msg']}") from None
    return settings.model_copy(update=update)


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


__all__ = [
    "BUILTIN_PROVIDERS",
    "CONFIG_FILE_NAME",
    "ENV_PREFIX",
    "KNOWN_KEYS",
    "RESTART_SECTIONS",
    "SECTIONS",
    "CitationSettings",
    "DeliverySettings",
    "EngineSettings",
    "LLMSettings",
    "ModelPrice",
    "QueueSettings",
    "ReportSettings",
    "ResearchSettings",
    "SearchSettings",
    "SecuritySettings",
    "SettingValue",
    "Settings",
    "StoreSettings",
    "WatchSettings",
    "WebSettings",
    "config_warnings",
    "default_config_files",
    "env_name",
    "explain_settings",
    "get_value",
    "load_settings",
    "needs_restart",
    "resolve_key",
    "with_current",
]
