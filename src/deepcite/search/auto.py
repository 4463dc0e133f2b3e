"""The ``auto`` engine: several engines at once, results merged and deduplicated.

It queries every usable general-purpose engine in parallel (so three engines of one
second each answer in about one second), interleaves their rankings so that each
engine's best hits come first, and keeps one result per canonical URL. It fails only
when every engine failed.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import ClassVar

from pydantic import BaseModel

from deepcite.config import Settings
from deepcite.errors import ConfigError, DeepciteError, SearchError
from deepcite.search.base import EngineClass, SearchEngine
from deepcite.search.urls import canonical_url
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)

#: Engines auto tries, best first; those needing a key or URL join when configured.
CANDIDATES = ("searxng", "brave", "tavily", "duckduckgo", "wikipedia")


class AutoEngine:
    """Parallel search over the usable general web engines."""

    description: ClassVar[str] = "several engines in parallel, merged and deduplicated"
    needs: ClassVar[str] = "nothing (uses what is configured)"
    offline_capable: ClassVar[bool] = True
    settings_model: ClassVar[type[BaseModel] | None] = None

    def __init__(self, engines: list[SearchEngine]) -> None:
        if not engines:
            raise ConfigError("auto found no usable search engine - configure one "
                              "(see `deepcite engines`)")
        self._engines = engines

    @classmethod
    def from_settings(cls, settings: Settings) -> AutoEngine:
        """Every candidate that is usable with these settings."""
        from deepcite.search.registry import get_engine, unavailable_reason

        engines = []
        for name in CANDIDATES:
            if unavailable_reason(name, settings) is None:
                try:
                    engines.append(get_engine(name, settings))
                except DeepciteError as exc:
                    logger.info("auto: %s not used: %s", name, exc)
        return cls(engines)

    @classmethod
    def unavailable_reason(cls, settings: Settings) -> str | None:
        from deepcite.search.registry import unavailable_reason

        if any(unavailable_reason(name, settings) is None for name in CANDIDATES):
            return None
        return "no engine auto could use is available - see the other rows"

    @property
    def name(self) -> str:
        return "auto"

    @property
    def engines(self) -> list[str]:
        """Names of the engines this instance combines."""
        return [engine.name for engine in self._engines]

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        def run(engine: SearchEngine) -> list[SearchResult] | SearchError:
            try:
                return engine.search(query, max_results=max_results)
            except SearchError as exc:
                return exc

        with ThreadPoolExecutor(max_workers=len(self._engines)) as pool:
            outcomes = list(pool.map(run, self._engines))
        lists = [o for o in outcomes if not isinstance(o, SearchError)]
        errors = [o for o in outcomes if isinstance(o, SearchError)]
        if not lists:
            raise SearchError("auto: every engine failed: " + "; ".join(map(str, errors)))
        for error in errors:
            logger.warning("auto: %s", error)
        return merge_results(lists, max_results)


_CONFORMS: EngineClass = AutoEngine  # mypy checks the class against the protocol


def merge_results(lists: list[list[SearchResult]], limit: int) -> list[SearchResult]:
    """Interleave ranked lists (1st of each, then 2nd of each ...), one per URL."""
    merged: list[SearchResult] = []
    seen: set[str] = set()
    depth = max((len(results) for results in lists), default=0)
    for rank in range(depth):
        for results in lists:
            if rank < len(results):
                key = canonical_url(results[rank].url)
                if key not in seen:
                    seen.add(key)
                    merged.append(results[rank])
    return merged[:limit]
