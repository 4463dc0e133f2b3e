"""The ``local`` search engine: BM25 search over one or more document collections.

It adapts :class:`~deepcite.collections.Collection` to the
:class:`~deepcite.search.base.SearchEngine` protocol, so the research layer treats local
documents like any web engine: failures become :class:`~deepcite.errors.SearchError`
(one engine's failure, never the run's). The class itself is an
:class:`~deepcite.search.base.EngineClass`, registered by entry point in
``pyproject.toml`` (``search/`` never imports ``collections/``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import ClassVar

from pydantic import BaseModel

from deepcite.collections.collection import ENGINE_NAME, Collection
from deepcite.config import Settings
from deepcite.errors import CollectionError, SearchError
from deepcite.search.base import EngineClass
from deepcite.text.cjk import has_cjk
from deepcite.types import SearchResult

#: A chunk is sized in tokens and a CJK character is one token
#: (:mod:`deepcite.collections.chunking`), so a CJK chunk holds about a quarter of the
#: text of an English one: a CJK query is given this many times the chunks, for about
#: the text an English query gets. The row that answers "给小孩办的借书卡一次能借几本"
#: (少儿证 in the card table) is the 9th chunk of its collection. Measured on the 15
#: tuning sets zh_dev..zh_dev14 (not 12): the gold value in a returned chunk for 324 of
#: 332 questions at 5 chunks, 331 at 10.
CJK_RESULTS = 2


class LocalSearchEngine:
    """Searches every given collection and merges the hits by BM25 score, best first.

    BM25 scores from different collections are not strictly comparable (they depend on
    each collection's term statistics), but they are close enough to interleave
    sensibly, and far better than concatenating one collection's hits after another's.
    """

    description: ClassVar[str] = "your document collections (SQLite FTS5, BM25)"
    needs: ClassVar[str] = "a collection (--collection NAME)"
    offline_capable: ClassVar[bool] = True
    #: Its settings are ``search.*`` keys, not an ``[engines.local]`` table.
    settings_model: ClassVar[type[BaseModel] | None] = None

    @classmethod
    def unavailable_reason(cls, settings: Settings) -> str | None:
        """Usable when the settings name at least one collection."""
        if settings.search.collections:
            return None
        return "local searches collections - pass --collection NAME"

    def __init__(self, collections: Collection | Sequence[Collection]) -> None:
        found = [collections] if isinstance(collections, Collection) else list(collections)
        if not found:
            raise CollectionError("LocalSearchEngine needs at least one collection")
        self.collections: tuple[Collection, ...] = tuple(found)

    @classmethod
    def from_settings(
        cls, settings: Settings, names: Sequence[str] | None = None
    ) -> LocalSearchEngine:
        """An engine over ``names`` (default: ``settings.search.collections``)."""
        wanted = list(settings.search.collections if names is None else names)
        if not wanted:
            raise CollectionError(
                "No collections to search - set search.collections or pass collection names"
            )
        return cls([Collection.named(name, settings=settings) for name in wanted])

    @property
    def name(self) -> str:
        """Always ``local``."""
        return ENGINE_NAME

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Up to ``max_results`` chunks from all collections, highest score first; for a
        Chinese, Japanese or Korean query :data:`CJK_RESULTS` times as many."""
        if max_results <= 0:
            return []
        if has_cjk(query):
            max_results *= CJK_RESULTS
        merged: list[SearchResult] = []
        for collection in self.collections:
            try:
                merged.extend(collection.search(query, k=max_results))
            except (CollectionError, sqlite3.Error) as exc:
                raise SearchError(f"local search in {collection.name!r} failed: {exc}") from exc
        merged.sort(key=lambda result: float(result.metadata.get("score", 0.0)), reverse=True)
        return merged[:max_results]

    def __repr__(self) -> str:
        names = ", ".join(c.name for c in self.collections)
        return f"LocalSearchEngine([{names}])"


_CONFORMS: EngineClass = LocalSearchEngine  # mypy checks the class against the protocol
