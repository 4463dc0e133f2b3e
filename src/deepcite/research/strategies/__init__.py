"""The strategy factory: one registry from name to strategy class.

Names are case-insensitive and accept ``-`` and ``_`` spellings; an unknown name falls
back to ``source-based`` with a warning naming the known ones.
"""

from __future__ import annotations

from collections.abc import Callable

from deepcite.research.context import RunContext
from deepcite.research.strategies.base import Strategy
from deepcite.research.strategies.source_based import SourceBasedStrategy

DEFAULT_STRATEGY = "source-based"
STRATEGIES: dict[str, type[SourceBasedStrategy]] = {"source-based": SourceBasedStrategy}
ALIASES: dict[str, str] = {"source-based-search": "source-based"}


def normalise_name(name: str) -> str:
    """``Source_Based`` -> ``source-based``; aliases resolved."""
    key = name.strip().lower().replace("_", "-")
    return ALIASES.get(key, key)


def create_strategy(
    name: str, context: RunContext, warn: Callable[[str], None] | None = None
) -> Strategy:
    """Build the strategy registered as ``name`` (or the default, with a warning)."""
    cls = STRATEGIES.get(normalise_name(name))
    if cls is None:
        if warn is not None:
            warn(f"Unknown strategy {name!r}; using {DEFAULT_STRATEGY!r} "
                 f"(known: {', '.join(sorted(STRATEGIES))})")
        cls = STRATEGIES[DEFAULT_STRATEGY]
    return cls(context)


__all__ = ["DEFAULT_STRATEGY", "STRATEGIES", "Strategy", "create_strategy", "normalise_name"]
