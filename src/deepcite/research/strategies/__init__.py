"""The strategy factory: one registry from name to strategy class.

Names are case-insensitive and accept ``-`` and ``_`` spellings (``source_based``,
``Source-Based``, ``source_based_search``). Strategies that were removed or renamed map
to their successor with a warning, so saved settings and scripts keep working; an
unknown name falls back to ``source-based`` with a warning naming the known ones.
Strategies with optional dependencies are loaded only when chosen.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from deepcite.research.context import RunContext
from deepcite.research.strategies.base import Strategy

DEFAULT_STRATEGY = "source-based"

#: name -> "module:Class"; imported on use so a missing extra breaks only its strategy.
STRATEGIES: dict[str, str] = {
    "source-based": "deepcite.research.strategies.source_based:SourceBasedStrategy",
    "focused-iteration": "deepcite.research.strategies.focused_iteration:"
                         "FocusedIterationStrategy",
    "topic-organization": "deepcite.research.strategies.topic_organization:"
                          "TopicOrganizationStrategy",
    "agent": "deepcite.research.strategies.agent:AgentStrategy",
}
#: Other spellings of current names.
ALIASES: dict[str, str] = {
    "source-based-search": "source-based",
    "focused": "focused-iteration",
    "topics": "topic-organization",
    "langgraph-agent": "agent",
}
#: Names peers (and earlier plans) used for strategies we do not have, and their successor.
REPLACED: dict[str, str] = {
    "mcp": "agent",
    "agentic": "agent",
    "focused-iteration-standard": "focused-iteration",
    "iterdrag": "source-based",
    "rapid": "source-based",
    "parallel": "source-based",
    "standard": "source-based",
}


def normalise_name(name: str) -> str:
    """``Source_Based`` -> ``source-based``; aliases resolved (replaced names are not)."""
    key = name.strip().lower().replace("_", "-")
    return ALIASES.get(key, key)


def resolve_name(name: str, warn: Callable[[str], None] | None = None) -> str:
    """The registered name a user's ``name`` stands for, warning about replacements."""
    key = normalise_name(name)
    if key in STRATEGIES:
        return key
    if key in REPLACED:
        successor = REPLACED[key]
        if warn is not None:
            warn(f"Strategy {name!r} is not available any more; using {successor!r}")
        return successor
    if warn is not None:
        warn(f"Unknown strategy {name!r}; using {DEFAULT_STRATEGY!r} "
             f"(known: {', '.join(sorted(STRATEGIES))})")
    return DEFAULT_STRATEGY


def load_strategy(name: str) -> type[Strategy]:
    """The class registered as ``name`` (already resolved)."""
    module_name, _, attribute = STRATEGIES[name].partition(":")
    cls: type[Strategy] = getattr(importlib.import_module(module_name), attribute)
    return cls


def describe_strategies() -> list[tuple[str, str]]:
    """``(name, one-line description)`` of every strategy, for ``deepcite strategies``."""
    rows = []
    for name in STRATEGIES:
        try:
            rows.append((name, load_strategy(name).description))
        except ImportError as exc:
            rows.append((name, f"(unavailable: {exc})"))
    return rows


def create_strategy(
    name: str, context: RunContext, warn: Callable[[str], None] | None = None
) -> Strategy:
    """Build the strategy registered as ``name`` (or its successor / the default)."""
    return load_strategy(resolve_name(name, warn))(context)


__all__ = ["DEFAULT_STRATEGY", "STRATEGIES", "Strategy", "create_strategy",
           "describe_strategies", "normalise_name", "resolve_name"]
