"""The forced handler: always one definite answer, for benchmarks that demand one.

Benchmarks in the BrowseComp style score "I don't know" as wrong, so a guess is worth
more than a refusal there. That is the opposite of what a user should get, so this
handler is never the default and everything it writes is labelled as a possible guess.
It still never lets a citation through that resolves to nothing: with sources the
reply goes through :func:`~deepcite.citations.answer.finalise_reply`; without any,
every marker is stripped and the answer says it came from the model's own knowledge.
"""

from __future__ import annotations

from deepcite.citations.answer import build_prompt, finalise_reply
from deepcite.citations.cited_answer import CitedAnswer, Completer
from deepcite.citations.handlers.base import AnswerStyle
from deepcite.citations.markers import cited_numbers, clean_markers
from deepcite.security.fencing import UNTRUSTED_NOTICE
from deepcite.types import Source

FORCED_PREFIX = "Forced answer (benchmark mode; may be a guess): "
NO_SOURCES_MARK = "(no sources - from the model's own knowledge)"
NO_REPLY = "the model gave no answer."

SYSTEM_PROMPT = (
    "You answer benchmark questions that always have one definite answer. Give your "
    "single best answer, even if you are unsure; never refuse and never say you do not "
    "know. Use the numbered sources when they help, and end each sentence with the "
    "numbers of the sources it comes from in square brackets, like [1]. Do not cite "
    "numbers that are not listed. " + UNTRUSTED_NOTICE
)

MEMORY_SYSTEM_PROMPT = (
    "You answer benchmark questions that always have one definite answer. No sources "
    "are available: give your single best answer from your own knowledge, even if you "
    "are unsure, in one or two sentences. Never refuse and do not cite anything."
)


class ForcedCitationHandler:
    """Gives its best single answer even when unsure; the output is always marked."""

    name = "forced"
    #: Answers in its own shape, whatever the strategy asks for (see ``answer``).
    follows_strategy = False
    #: Its answers are labelled guesses: one no source supports stays first, flagged,
    #: instead of giving way to the grounded answer
    #: (:func:`deepcite.research.steps.flag_unsupported`).
    guesses = True

    def __init__(self, client: Completer) -> None:
        self._client = client

    def answer(self, question: str, sources: list[Source], *, prior_knowledge: str = "",
               style: AnswerStyle | None = None, draft: str | None = None) -> CitedAnswer:
        """Answer ``question``, citing ``sources`` when there are any.

        Without sources (or earlier knowledge) the model is still asked, because a
        benchmark counts a missing answer as wrong; the reply then carries no markers.
        ``style`` and ``draft`` are not used: a strategy's prose style or a reply
        written for another purpose may refuse, and never refusing is this handler's
        point, so it always asks with its own prompt.
        """
        if not sources and not prior_knowledge.strip():
            return self._from_memory(question)
        user = build_prompt(question, sources, self._client.prompt_budget_chars,
                            prior_knowledge, system_chars=len(SYSTEM_PROMPT))
        reply = self._client.complete("forced", SYSTEM_PROMPT, user)
        result = finalise_reply(question, reply, sources,
                                extra_numbers=cited_numbers(prior_knowledge))
        result.text = FORCED_PREFIX + result.text
        result.notes.append("forced")
        return result

    def _from_memory(self, question: str) -> CitedAnswer:
        """The model's own best guess, with every citation-like marker removed."""
        reply = self._client.complete("forced", MEMORY_SYSTEM_PROMPT, f"Question: {question}")
        text, removed = clean_markers(reply, ())
        text = " ".join(text.split())
        fallback = None if text else "empty reply"
        body = text or NO_REPLY
        return CitedAnswer(text=f"{FORCED_PREFIX}{body} {NO_SOURCES_MARK}", model_called=True,
                           fallback=fallback, removed_markers=removed,
                           notes=["forced", "no sources"])
