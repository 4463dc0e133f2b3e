"""The strategy factory: names to strategy classes, built-ins and plugins alike.

Built on :class:`deepcite.plugins.Registry`, so strategies follow the same rules as
engines and providers: names are kebab-case and compared after one spelling rule
(``source_based``, ``Source-Based`` and ``source_based_search`` all mean
``source-based``); strategies that were removed or renamed map to their successor with
a warning, so saved settings and scripts keep working; an unknown name falls back to
``source-based`` with a warning naming the closest ones, because a run with the default
strategy is more useful than no run. Built-ins with optional dependencies (``agent``
needs langgraph) are imported only when chosen, so a missing extra breaks only its own
strategy.

Plugins register a :class:`~deepcite.research.strategies.base.Strategy` subclass in the
``deepcite.strategies`` entry point group; they cannot take a built-in's name, an alias
or a replaced name, so installing a package never changes what an existing setting
means.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

from deepcite.errors import ConfigError, DeepciteError
from deepcite.plugins import STRATEGIES_GROUP, Registry
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
    "focused-iteration-standard": "deepcite.research.strategies.focused_standard:"
                                  "FocusedIterationStandardStrategy",
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
    "iterdrag": "source-based",
    "rapid": "source-based",
    "parallel": "source-based",
    "standard": "source-based",
}

HINT = "See `deepcite strategies`"


def _strategy_class(name: str, obj: object) -> type[Strategy]:
    """``obj`` if it is a concrete Strategy subclass, else a ConfigError saying why.

    Checked when loaded rather than when run, so ``deepcite strategies`` can show a
    broken plugin as unavailable instead of the run failing halfway.
    """
    if isinstance(obj, type) and issubclass(obj, Strategy):
        if not inspect.isabstract(obj):
            return obj
        missing = ", ".join(sorted(getattr(obj, "__abstractmethods__", ())))
        problem = f"{obj.__qualname__} does not implement {missing}"
    elif isinstance(obj, type):
        problem = f"{obj.__qualname__} does not subclass Strategy"
    else:
        problem = f"it is a {type(obj).__name__}, not a class"
    raise ConfigError(f"The strategy {name!r} ({STRATEGY_REGISTRY.origin(name)}) is not a "
                      f"strategy class: {problem} - subclass "
                      "deepcite.research.strategies.base.Strategy")


STRATEGY_REGISTRY: Registry[type[Strategy]] = Registry(
    "strategy", group=STRATEGIES_GROUP, builtins=STRATEGIES, aliases=ALIASES,
    replaced=REPLACED, fallback=DEFAULT_STRATEGY, check=_strategy_class, hint=HINT,
)
"""Every research strategy; see :class:`deepcite.plugins.Registry`."""


@dataclass(frozen=True)
class StrategyStatus:
    """One row of ``deepcite strategies``."""

    name: str
    usable: bool
    #: The strategy's one-line description, or why it cannot be loaded.
    description: str
    #: ``"built in"``-style origin: the import path of a built-in or a plugin.
    origin: str
    builtin: bool


def normalise_name(name: str) -> str:
    """``Source_Based`` -> ``source-based``; aliases resolved (replaced names are not)."""
    return STRATEGY_REGISTRY.canonical(name)


def resolve_name(name: str, warn: Callable[[str], None] | None = None) -> str:
    """The registered name a user's ``name`` stands for.

    Replaced names give their successor, unknown ones :data:`DEFAULT_STRATEGY`, each with
    a warning through ``warn`` (the log when ``None``).
    """
    return STRATEGY_REGISTRY.resolve(name, warn)


def load_strategy(name: str, warn: Callable[[str], None] | None = None) -> type[Strategy]:
    """The class ``name`` stands for (see :func:`resolve_name`), imported on first use.

    A strategy that cannot be imported, or a plugin that is not a Strategy subclass, is
    a :class:`~deepcite.errors.ConfigError` naming it.
    """
    return STRATEGY_REGISTRY.load(name, warn)


def strategy_statuses() -> list[StrategyStatus]:
    """Every strategy, built-ins first, and whether it loads; for ``deepcite strategies``.

    A strategy that cannot be loaded (missing extra, broken plugin) is a row saying why,
    so one bad package does not hide the others or break the listing.
    """
    rows = []
    for name in STRATEGY_REGISTRY.names():
        origin = STRATEGY_REGISTRY.origin(name)
        builtin = STRATEGY_REGISTRY.is_builtin(name)
        try:
            description = load_strategy(name).description
        except DeepciteError as exc:
            rows.append(StrategyStatus(name, False, str(exc), origin, builtin))
            continue
        rows.append(StrategyStatus(name, True, description, origin, builtin))
    return rows


def describe_strategies() -> list[tuple[str, str]]:
    """``(name, one-line description)`` of every strategy; ``(unavailable: why)`` for one
    that cannot be loaded."""
    return [(row.name, row.description if row.usable else f"(unavailable: {row.description})")
            for row in strategy_statuses()]


def create_strategy(
    name: str, context: RunContext, warn: Callable[[str], None] | None = None
) -> Strategy:
    """Build the strategy registered as ``name`` (or its successor / the default)."""
    return load_strategy(name, warn)(context)


__all__ = ["ALIASES", "DEFAULT_STRATEGY", "REPLACED", "STRATEGIES", "STRATEGY_REGISTRY",
           "Strategy", "StrategyStatus", "create_strategy", "describe_strategies",
           "load_strategy", "normalise_name", "resolve_name", "strategy_statuses"]
