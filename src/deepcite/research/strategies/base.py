"""The strategy contract: one question in, one cited answer out."""

from __future__ import annotations

from typing import Protocol

from deepcite.research.context import RunContext, StrategyOutcome


class Strategy(Protocol):
    """A way of researching a question; all strategies end in the same citation path."""

    name: str
    description: str

    def __init__(self, context: RunContext) -> None: ...

    def run(self, question: str) -> StrategyOutcome:
        """Research ``question`` and return a cited answer built from the registry."""
        ...
