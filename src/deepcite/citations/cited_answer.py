"""What the citation modules share: the model slice they call and the answer they return.

The answer toolkit (:mod:`deepcite.citations.answer`), verification, attribution, the
grounded answer and every handler are written against these, so they live apart from
all of them: a module here imports nothing of ``deepcite.citations``, and no import
cycle can run through it. :mod:`deepcite.citations.handlers` exports them too, as
the names a handler (a plugin's included) is written against.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from deepcite.text.frames import frame

#: The gate's answer: what a handler says instead of calling the model without sources
#: (in English; :func:`deepcite.text.frames.frame_for` gives it in the question's
#: language).
NO_SOURCES_ANSWER = frame("no_sources")


class Completer(Protocol):
    """The slice of :class:`deepcite.llm.ChatClient` that handlers need."""

    @property
    def prompt_budget_chars(self) -> int:
        """How many characters of prompt fit the model's context with room to reply."""
        ...

    def complete(
        self, purpose: str, system: str, user: str, *, max_tokens: int | None = None,
        enough: Callable[[str], bool] | None = None,
    ) -> str:
        """One chat call; returns the cleaned reply text (``enough``: see
        :meth:`deepcite.llm.ChatClient.complete`)."""
        ...


@dataclass
class CitedAnswer:
    """A handler's answer; every marker in ``text`` resolves to a given source.

    ``fallback`` names why the model's reply was not used as it was (``None`` when it
    was); ``removed_markers`` counts citation numbers that resolved to no source;
    ``attributed`` counts sentences that got their citation from text overlap.
    ``unflagged`` is the checked reply before the "cited no source" flag and its
    passages were appended (``None`` when it was not flagged): the handler may have been
    shown excerpts of the sources, and the run, which holds them whole, flags it again
    against those (:class:`~deepcite.research.citation_step.CitationStep`).
    """

    text: str
    model_called: bool
    fallback: str | None = None
    removed_markers: int = 0
    attributed: int = 0
    notes: list[str] = field(default_factory=list)
    unflagged: str | None = None


__all__ = ["NO_SOURCES_ANSWER", "CitedAnswer", "Completer"]
