"""Citation handlers, chosen by name; an unknown name falls back to ``standard``.

Every handler is built from a :class:`Completer` and answers through the same call, so
the research layer can switch them by configuration alone: every strategy ends in the
one citation step (:mod:`deepcite.research.citation_step`), which asks the configured
handler for the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from deepcite.citations.handlers.base import NO_SOURCES_ANSWER, AnswerStyle, CitedAnswer, Completer
from deepcite.citations.handlers.forced import ForcedCitationHandler
from deepcite.citations.handlers.precision import PrecisionCitationHandler
from deepcite.citations.handlers.standard import StandardCitationHandler
from deepcite.types import Source


class CitationHandler(Protocol):
    """What the research layer relies on: a name and a cited answer."""

    @property
    def name(self) -> str:
        """The name the handler is registered under."""
        ...

    @property
    def follows_strategy(self) -> bool:
        """Whether ``answer`` takes a strategy's ``style`` and ``draft``.

        The standard handler does: each strategy's answer keeps its shape. Forced and
        precision do not, because their shape (a definite guess, a confirmed short
        fact) is why they were chosen; strategies that write several parts (topic
        sections) then ask them for one answer over all their sources.
        """
        ...

    def answer(self, question: str, sources: list[Source], *, prior_knowledge: str = "",
               style: AnswerStyle | None = None, draft: str | None = None) -> CitedAnswer:
        """Answer ``question``; every marker in the result resolves.

        ``style`` (the strategy's prompt and length) and ``draft`` (a reply written
        elsewhere, to be checked instead of asking again) are requests a handler may
        decline when its own shape is its point; each handler says which it takes.
        """
        ...


HandlerFactory = Callable[[Completer], CitationHandler]

HANDLERS: dict[str, HandlerFactory] = {
    "standard": StandardCitationHandler,
    "forced": ForcedCitationHandler,
    "precision": PrecisionCitationHandler,
}


def get_handler(
    name: str, client: Completer, warn: Callable[[str], None] | None = None
) -> CitationHandler:
    """The handler registered as ``name``; unknown names fall back to ``standard``.

    Names are matched case- and underscore-insensitively ("Precision", "precision_").
    """
    key = name.strip().lower().replace("_", "-").strip("-")
    factory = HANDLERS.get(key)
    if factory is None:
        if warn is not None:
            warn(f"Unknown citation handler {name!r}; using 'standard' "
                 f"(known: {', '.join(sorted(HANDLERS))})")
        factory = StandardCitationHandler
    return factory(client)


__all__ = [
    "HANDLERS",
    "NO_SOURCES_ANSWER",
    "AnswerStyle",
    "CitationHandler",
    "CitedAnswer",
    "Completer",
    "ForcedCitationHandler",
    "HandlerFactory",
    "PrecisionCitationHandler",
    "StandardCitationHandler",
    "get_handler",
]
