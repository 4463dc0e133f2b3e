"""The engine registry: names to engine classes, built-ins and plugins alike.

Built on :class:`deepcite.plugins.Registry`: names are kebab-case (``semantic-scholar``;
``semantic_scholar`` and ``Semantic_Scholar`` still work, so do the aliases below), an
unknown name is a :class:`~deepcite.errors.ConfigError` naming the closest engines, and
built-in engines are imported only when used, so an engine whose optional dependency is
missing cannot break the others. Plugins register in the ``deepcite.search_engines``
entry point group (the ``local`` collection engine is registered that way too, which
keeps ``search/`` from importing ``collections/``) and cannot take a built-in's name.

Every registered object is an :class:`~deepcite.search.base.EngineClass`; one that
is not is refused with the members it lacks. A plugin engine with a ``settings_model``
gets its settings from the ``[engines.<name>]`` table of ``deepcite.toml`` (or the
``engines.plugins`` setting), validated here with one-line errors; the engine reads them
with :func:`engine_options`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TypeVar, get_args

from pydantic import BaseModel

from deepcite.config import EngineSettings, Settings
from deepcite.config_sections import EngineKey
from deepcite.errors import ConfigError, DeepciteError
from deepcite.plugins import SEARCH_ENGINES_GROUP, Registry, closest, table_options
from deepcite.search.base import ENGINE_CLASS_MEMBERS, EngineClass, SearchEngine

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = SEARCH_ENGINES_GROUP

BUILTIN_ENGINES: dict[str, str] = {
    "auto": "deepcite.search.auto:AutoEngine",
    "duckduckgo": "deepcite.search.engines.duckduckgo:DuckDuckGoEngine",
    "searxng": "deepcite.search.engines.searxng:SearxngEngine",
    "tavily": "deepcite.search.engines.tavily:TavilyEngine",
    "perplexity": "deepcite.search.engines.perplexity:PerplexityEngine",
    "brave": "deepcite.search.engines.brave:BraveEngine",
    "wikipedia": "deepcite.search.engines.wikipedia:WikipediaEngine",
    "arxiv": "deepcite.search.engines.arxiv:ArxivEngine",
    "openalex": "deepcite.search.engines.openalex:OpenAlexEngine",
    "semantic-scholar": "deepcite.search.engines.semantic_scholar:SemanticScholarEngine",
    "pubmed": "deepcite.search.engines.pubmed:PubMedEngine",
    "elasticsearch": "deepcite.search.engines.elasticsearch:ElasticsearchEngine",
}
ALIASES = {"ddg": "duckduckgo", "searx": "searxng", "s2": "semantic-scholar",
           "semanticscholar": "semantic-scholar", "es": "elasticsearch"}

HINT = "See `deepcite engines`"

M = TypeVar("M", bound=BaseModel)


def _engine_class(name: str, obj: object) -> EngineClass:
    """``obj`` if its class members make it an engine class, else a ConfigError."""
    if isinstance(obj, EngineClass):
        model = obj.settings_model
        if model is None or (isinstance(model, type) and issubclass(model, BaseModel)):
            return obj
        problem = "its settings_model is not a pydantic model"
    else:
        missing = [member for member in ENGINE_CLASS_MEMBERS if not hasattr(obj, member)]
        problem = f"it lacks {', '.join(missing)}"
    raise ConfigError(f"The search engine {name!r} ({ENGINES.origin(name)}) is not an engine "
                      f"class: {problem} - see deepcite.search.base.EngineClass (subclass "
                      "EngineBase for the defaults)")


ENGINES: Registry[EngineClass] = Registry(
    "search engine", group=SEARCH_ENGINES_GROUP, builtins=BUILTIN_ENGINES,
    aliases=ALIASES, check=_engine_class, hint=HINT,
)
"""Every search engine; see :class:`deepcite.plugins.Registry`."""


@dataclass(frozen=True)
class EngineStatus:
    """One row of ``deepcite engines``."""

    name: str
    usable: bool
    detail: str
    needs: str
    description: str


def normalise(name: str) -> str:
    """``Semantic_Scholar`` -> ``semantic-scholar``; aliases resolved (``s2`` too)."""
    return ENGINES.canonical(name)


def engine_names() -> list[str]:
    """Known engine names (built-ins and plugins), sorted."""
    return sorted(ENGINES.names())


def load_engine_class(name: str) -> EngineClass:
    """The class registered as ``name``; ConfigError when unknown or not loadable."""
    return ENGINES.load(name)


def unavailable_reason(name: str, settings: Settings) -> str | None:
    """Why engine ``name`` cannot run with these settings, or ``None``."""
    cls = load_engine_class(name)
    if settings.security.offline and not cls.offline_capable:
        return f"{normalise(name)} needs the internet and the run is offline"
    return cls.unavailable_reason(settings)


def get_engine(name: str, settings: Settings) -> SearchEngine:
    """Build engine ``name`` for a run; ConfigError when unknown or not usable."""
    reason = unavailable_reason(name, settings)
    if reason:
        raise ConfigError(reason)
    cls = load_engine_class(name)
    if cls.settings_model is not None:
        engine_options(name, settings, cls.settings_model)  # one-line errors up front
    engine = cls.from_settings(settings)
    if not isinstance(engine, SearchEngine):
        raise ConfigError(f"Search engine {normalise(name)!r} ({ENGINES.origin(name)}) did "
                          "not build an engine with a name and search(query, max_results=...)")
    return engine


# ------------------------------------------------------------------- plugin settings


def engine_options(name: str, settings: Settings, model: type[M]) -> M:
    """The validated ``[engines.<name>]`` table of engine ``name`` as ``model``.

    Absent table: the model's defaults. Unknown keys are refused
    (:func:`deepcite.plugins.table_options`); every error is one line naming the key.
    """
    key = normalise(name)
    return table_options(settings.engines.plugins.get(key, {}), f"engines.{key}",
                         f"search engine {key!r}", model)


def check_engine_tables(settings: Settings) -> None:
    """Every ``[engines.<name>]`` table belongs to an engine that takes one, and is valid.

    Tables are read into ``engines.plugins`` by the settings loader, which cannot know
    the plugins; a table for no engine (a typo, or an engine that was uninstalled)
    is an error here rather than silently ignored.
    """
    for key in settings.engines.plugins:
        if key not in ENGINES:
            near = [f"engine {n!r}" for n in ENGINES.suggestions(key)]
            near += [f"setting 'engines.{n}'"
                     for n in closest(key.replace("-", "_"), EngineSettings.model_fields)]
            hint = f"did you mean {' or '.join(near)}? " if near else ""
            raise ConfigError(f"The settings have an [engines.{key}] table but no search "
                              f"engine is called {key!r} - {hint}{HINT}")
        cls = load_engine_class(key)
        if cls.settings_model is None:
            raise ConfigError(f"The search engine {key!r} takes no [engines.{key}] table - "
                              "remove it; its settings are engines.* keys "
                              "(`deepcite config show`)")
        engine_options(key, settings, cls.settings_model)


# -------------------------------------------------------------------------- listing


@dataclass(frozen=True)
class EngineKeyField:
    """An engine's API key setting, for a form that sets it: ``setting`` is the dotted
    key (``engines.brave_api_key``), ``env`` the variables also read, ``required``
    whether the engine runs without one."""

    engine: str
    setting: str
    env: tuple[str, ...]
    required: bool


def engine_key_fields() -> list[EngineKeyField]:
    """The API key settings of the engines that take one, by engine name: the engines'
    own ``key_setting``/``key_env``/``key_required``, so a new keyed engine gets its
    field without a change to the settings page. A plugin engine's key lives in its
    ``[engines.NAME]`` table and is not listed; one that cannot be loaded is skipped."""
    fields: list[EngineKeyField] = []
    known = set(get_args(EngineKey))
    for name in engine_names():
        try:
            cls = load_engine_class(name)
        except DeepciteError:
            continue
        setting = getattr(cls, "key_setting", None)
        if setting not in known:
            continue
        env = tuple(str(var) for var in getattr(cls, "key_env", ()))
        fields.append(EngineKeyField(name, f"engines.{setting}", env,
                                     bool(getattr(cls, "key_required", True))))
    return fields


def describe_engines(settings: Settings) -> list[EngineStatus]:
    """Every known engine, whether it is usable now, and why not."""
    rows = []
    for name in engine_names():
        try:
            cls = load_engine_class(name)
            reason = unavailable_reason(name, settings)
            if reason is None and cls.settings_model is not None:
                engine_options(name, settings, cls.settings_model)
        except DeepciteError as exc:
            rows.append(EngineStatus(name, False, str(exc), "?", ""))
            continue
        rows.append(EngineStatus(
            name=name, usable=reason is None, detail=reason or "ready",
            needs=cls.needs, description=cls.description,
        ))
    return rows
