"""The engine registry: names to engine factories, built-ins and plugins alike.

Built-in engines are listed by import path and loaded only when used, so an engine
whose optional dependency is missing cannot break the others. Plugins register in the
``deepcite.search_engines`` entry point group (the ``local`` collection engine is
registered that way too, which keeps ``search/`` from importing ``collections/``).
A registered object is a class or callable taking the settings; when it has a
``from_settings`` classmethod that is used instead. Optional class attributes
``description``, ``needs``, ``offline_capable`` and a classmethod
``unavailable_reason(settings)`` feed ``deepcite engines``.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from deepcite.config import Settings
from deepcite.errors import ConfigError, DeepciteError
from deepcite.search.base import SearchEngine

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "deepcite.search_engines"

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
    "semantic_scholar": "deepcite.search.engines.semantic_scholar:SemanticScholarEngine",
    "pubmed": "deepcite.search.engines.pubmed:PubMedEngine",
    "elasticsearch": "deepcite.search.engines.elasticsearch:ElasticsearchEngine",
}
ALIASES = {"ddg": "duckduckgo", "searx": "searxng", "s2": "semantic_scholar",
           "semanticscholar": "semantic_scholar", "es": "elasticsearch"}


@dataclass(frozen=True)
class EngineStatus:
    """One row of ``deepcite engines``."""

    name: str
    usable: bool
    detail: str
    needs: str
    description: str


def normalise(name: str) -> str:
    """``Semantic-Scholar`` -> ``semantic_scholar``; aliases resolved."""
    key = name.strip().lower().replace("-", "_")
    return ALIASES.get(key, key)


def _plugin_paths() -> dict[str, str]:
    found: dict[str, str] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found[normalise(ep.name)] = ep.value
    return found


def engine_paths() -> dict[str, str]:
    """All known engines: built-ins, then plugins (a plugin cannot shadow a built-in)."""
    paths = dict(BUILTIN_ENGINES)
    for name, path in _plugin_paths().items():
        paths.setdefault(name, path)
    return paths


def engine_names() -> list[str]:
    """Known engine names, sorted."""
    return sorted(engine_paths())


def load_engine_class(name: str) -> Any:
    """The registered class or factory for ``name``; ConfigError when unknown."""
    key = normalise(name)
    path = engine_paths().get(key)
    if path is None:
        raise ConfigError(f"Unknown search engine {name!r}; known engines: "
                          f"{', '.join(engine_names())}")
    module_name, _, attribute = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"Search engine {key!r} cannot be loaded ({exc}); "
                          "reinstall deepcite or the plugin that provides it") from exc
    target: Any = module
    for part in attribute.split("."):
        target = getattr(target, part)
    return target


def unavailable_reason(name: str, settings: Settings) -> str | None:
    """Why engine ``name`` cannot run with these settings, or ``None``."""
    cls = load_engine_class(name)
    check: Callable[[Settings], str | None] | None = getattr(cls, "unavailable_reason", None)
    if settings.security.offline and not getattr(cls, "offline_capable", False):
        return f"{normalise(name)} needs the internet and the run is offline"
    return check(settings) if check else None


def get_engine(name: str, settings: Settings) -> SearchEngine:
    """Build engine ``name`` for a run; ConfigError when unknown or not usable."""
    reason = unavailable_reason(name, settings)
    if reason:
        raise ConfigError(reason)
    cls = load_engine_class(name)
    factory: Callable[[Settings], SearchEngine] = getattr(cls, "from_settings", cls)
    engine = factory(settings)
    if not isinstance(engine, SearchEngine):
        raise ConfigError(f"Search engine {name!r} does not implement search(query, "
                          "max_results=...) and name")
    return engine


def describe_engines(settings: Settings) -> list[EngineStatus]:
    """Every known engine, whether it is usable now, and why not."""
    rows = []
    for name in engine_names():
        try:
            cls = load_engine_class(name)
            reason = unavailable_reason(name, settings)
        except DeepciteError as exc:
            rows.append(EngineStatus(name, False, str(exc), "?", ""))
            continue
        rows.append(EngineStatus(
            name=name, usable=reason is None, detail=reason or "ready",
            needs=str(getattr(cls, "needs", "nothing")),
            description=str(getattr(cls, "description", "")),
        ))
    return rows
