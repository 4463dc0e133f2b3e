"""The standard citation handler: a thorough answer that cites ``[n]`` for each claim.

Its reply goes through the shared answer toolkit (:mod:`deepcite.citations.answer`)
whatever model wrote it: unknown markers are removed, uncited sentences copied from a
source are attributed to it, and a reply that is empty, echoes the question or
regurgitates the prompt is replaced by the most relevant passages, quoted and cited, so
the user still gets something checkable.
"""

from __future__ import annotations

from deepcite.citations.answer import build_prompt, finalise_reply
from deepcite.citations.cited_answer import CitedAnswer, Completer
from deepcite.citations.handlers.base import SYSTEM_PROMPT, AnswerStyle
from deepcite.citations.markers import cited_numbers
from deepcite.text.frames import frame_for
from deepcite.types import Source

_DEFAULT_STYLE = AnswerStyle()


class StandardCitationHandler:
    """Writes a cited answer from numbered sources; never calls the model without any."""

    name = "standard"
    #: Writes in the strategy's style and checks a strategy's draft (see ``answer``).
    follows_strategy = True

    def __init__(self, client: Completer) -> None:
        self._client = client

    def answer(self, question: str, sources: list[Source], *, prior_knowledge: str = "",
               style: AnswerStyle | None = None, draft: str | None = None) -> CitedAnswer:
        """Answer ``question`` from ``sources``; every marker in the result resolves.

        ``style`` shapes the answer (prompt, purpose, length) for strategies that want a
        shorter or narrower one. ``draft`` is a reply already written elsewhere (the
        agent's last turn): it is checked like the model's reply would be, without
        another call. The gate comes first either way: with no sources and no earlier
        knowledge the answer is the fixed "no sources" one, so a draft from the model's
        memory is never passed off as research.

        A follow-up with no new sources still has something to build on: the earlier
        answer, whose citations point at sources numbered in an earlier round. The
        model is called then too, and those earlier numbers stay valid citations.
        """
        if not sources and not prior_knowledge.strip():
            return CitedAnswer(text=frame_for("no_sources", question), model_called=False)
        known = cited_numbers(prior_knowledge)
        if draft is None:
            style = style or _DEFAULT_STYLE
            user = build_prompt(question, sources, self._client.prompt_budget_chars,
                                prior_knowledge, system_chars=len(style.system))
            draft = self._client.complete(style.purpose, style.system, user,
                                          max_tokens=style.max_tokens)
        result = finalise_reply(question, draft, sources, extra_numbers=known)
        if result.fallback is not None and not sources:
            # Quoted passages need sources; the earlier answer is the checkable fallback.
            result.text = f"{frame_for('prior', question)}\n\n{prior_knowledge.strip()}"
        return result


__all__ = ["SYSTEM_PROMPT", "StandardCitationHandler"]
