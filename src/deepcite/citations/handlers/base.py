"""What every citation handler shares: the model interface, the result, the gate.

The gate is the rule that matters most: with no sources (and no earlier knowledge to
build on) a handler never calls the model, because a model asked to cite sources it was
not given falls back on memory and invents citations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

NO_SOURCES_ANSWER = (
    "No sources were found for this question, so no answer was generated: answering "
    "without sources would mean relying on the language model's built-in knowledge, "
    "which cannot be checked and could contain fabricated citations. Try other search "
    "terms, another collection (`--collection NAME`) or more iterations."
)


class Completer(Protocol):
    """The slice of :class:`deepcite.llm.ChatClient` that handlers need."""

    @property
    def prompt_budget_chars(self) -> int:
        """How many characters of prompt fit the model's context with room to reply."""
        ...

    def complete(
        self, purpose: str, system: str, user: str, *, max_tokens: int | None = None
    ) -> str:
        """One chat call; returns the cleaned reply text."""
        ...


@dataclass
class CitedAnswer:
    """A handler's answer; every marker in ``text`` resolves to a given source.

    ``fallback`` names why the model's reply was not used as it was (``None`` when it
    was); ``removed_markers`` counts citation numbers that resolved to no source;
    ``attributed`` counts sentences that got their citation from text overlap.
    """

    text: str
    model_called: bool
    fallback: str | None = None
    removed_markers: int = 0
    attributed: int = 0
    notes: list[str] = field(default_factory=list)
