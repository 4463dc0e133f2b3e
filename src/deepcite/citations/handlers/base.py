"""What every citation handler shares: the model interface, the result, the gate, the style.

The gate is the rule that matters most: with no sources (and no earlier knowledge to
build on) the standard and precision handlers never call the model, because a model
asked to cite sources it was not given falls back on memory and invents citations. The
result type, the gate's answer and the model slice live in
:mod:`deepcite.citations.answer` with the rest of the answer toolkit; they are
re-exported here because they are what a handler is written against.
"""

from __future__ import annotations

from dataclasses import dataclass

from deepcite.citations.answer import NO_SOURCES_ANSWER, CitedAnswer, Completer
from deepcite.security.fencing import UNTRUSTED_NOTICE

SYSTEM_PROMPT = (
    "You are a careful research assistant. Answer the question using only the numbered "
    "sources, in one or two short paragraphs of plain prose. End every sentence with the "
    "numbers of the sources it comes from in square brackets, like [1] or [2][3]. Do not "
    "cite numbers that are not listed. If the sources do not answer the question, say so. "
    + UNTRUSTED_NOTICE
)


@dataclass(frozen=True)
class AnswerStyle:
    """How a strategy wants the standard answer written.

    Strategies differ in the answer's shape, not in how it is checked: focused-iteration
    wants one or two sentences, topic-organization one paragraph per topic. The
    ``purpose`` tags the model call (tests script replies by it; tracing shows it).
    Handlers whose shape is their point (forced, precision) do not take a style.
    """

    purpose: str = "synthesis"
    system: str = SYSTEM_PROMPT
    max_tokens: int | None = None


__all__ = ["NO_SOURCES_ANSWER", "SYSTEM_PROMPT", "AnswerStyle", "CitedAnswer", "Completer"]
