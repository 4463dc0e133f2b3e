"""What every citation handler shares besides the records: the system prompt and the style.

The gate is the rule that matters most: with no sources (and no earlier knowledge to
build on) the standard and precision handlers never call the model, because a model
asked to cite sources it was not given falls back on memory and invents citations. The
result type, the gate's answer and the model slice live in
:mod:`deepcite.citations.cited_answer`, shared with the answer toolkit, verification and
attribution; :mod:`deepcite.citations.handlers` exports them with the handlers.
"""

from __future__ import annotations

from dataclasses import dataclass

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


__all__ = ["SYSTEM_PROMPT", "AnswerStyle"]
