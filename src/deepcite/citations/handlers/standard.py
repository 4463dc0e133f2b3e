"""The standard citation handler: a thorough answer that cites ``[n]`` for each claim.

Its reply goes through the same checks whatever model wrote it: unknown markers are
removed, uncited sentences copied from a source are attributed to it, and a reply that
is empty, echoes the question or regurgitates the prompt is replaced by the most
relevant passages, quoted and cited, so the user still gets something checkable.

Quoted passages are source text inside our Markdown, so they are escaped
(:func:`~deepcite.citations.text.escape_quoted`): a source's own "[99]" stays "[99]"
for the reader instead of being taken for a citation, and its HTML stays text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deepcite.citations.attribution import attribute_sentences
from deepcite.citations.handlers.base import NO_SOURCES_ANSWER, CitedAnswer, Completer
from deepcite.citations.markers import cited_numbers, clean_markers
from deepcite.citations.text import (
    best_excerpt,
    content_words,
    dominant_script,
    escape_quoted,
    split_sentences,
)
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.security.terminal import one_line
from deepcite.types import Source

SYSTEM_PROMPT = (
    "You are a careful research assistant. Answer the question using only the numbered "
    "sources, in one or two short paragraphs of plain prose. End every sentence with the "
    "numbers of the sources it comes from in square brackets, like [1] or [2][3]. Do not "
    "cite numbers that are not listed. If the sources do not answer the question, say so. "
    + UNTRUSTED_NOTICE
)

MIN_CHARS_PER_SOURCE = 200
EVIDENCE_PASSAGES = 3


def build_prompt(question: str, sources: list[Source], budget_chars: int,
                 prior_knowledge: str = "") -> str:
    """The user prompt: fenced sources cut to the budget, then the question."""
    overhead = len(SYSTEM_PROMPT) + len(question) + len(prior_knowledge) + 200
    per_source = max(MIN_CHARS_PER_SOURCE, (budget_chars - overhead) // max(1, len(sources)))
    blocks = []
    for source in sources:
        text = " ".join(source.text.split())
        if len(text) > per_source:
            text = text[:per_source].rsplit(" ", 1)[0] + " [truncated]"
        blocks.append(fence(text, number=source.number, title=source.title))
    parts = ["Sources:", *blocks] if blocks else []
    if prior_knowledge:
        parts += ["What is already known (with its citations):", prior_knowledge]
    parts += [f"Question: {question}", "Answer, citing sources like [1]:"]
    return "\n\n".join(parts)


class StandardCitationHandler:
    """Writes a cited answer from numbered sources; never calls the model without any."""

    name = "standard"

    def __init__(self, client: Completer) -> None:
        self._client = client

    def answer(self, question: str, sources: list[Source], *,
               prior_knowledge: str = "") -> CitedAnswer:
        """Answer ``question`` from ``sources``; every marker in the result resolves.

        A follow-up with no new sources still has something to build on: the earlier
        answer, whose citations point at sources numbered in an earlier round. The
        model is called then too, and those earlier numbers stay valid citations.
        """
        if not sources and not prior_knowledge.strip():
            return CitedAnswer(text=NO_SOURCES_ANSWER, model_called=False)
        user = build_prompt(question, sources, self._client.prompt_budget_chars,
                            prior_knowledge)
        reply = self._client.complete("synthesis", SYSTEM_PROMPT, user)
        known = cited_numbers(prior_knowledge)
        result = finalise_reply(question, reply, sources, extra_numbers=known)
        if result.fallback is not None and not sources:
            # Quoted passages need sources; the earlier answer is the checkable fallback.
            result.text = f"{_PRIOR_INTRO}\n\n{prior_knowledge.strip()}"
        return result


_PRIOR_INTRO = "The model did not produce a usable answer; here is what was found earlier:"


def finalise_reply(question: str, reply: str, sources: list[Source], *,
                   extra_numbers: Iterable[int] = ()) -> CitedAnswer:
    """Check a model reply against the sources and make every citation valid.

    ``extra_numbers`` are further numbers that may be cited: those of sources found in
    an earlier round and cited in the earlier knowledge the reply builds on.
    """
    reply = collapse_repeats(reply)
    problem = _unusable(question, reply)
    if problem is not None:
        return CitedAnswer(
            text=evidence_answer(question, sources, intro=_FALLBACK_INTRO),
            model_called=True,
            fallback=problem,
        )
    valid = {s.number for s in sources} | set(extra_numbers)
    text, removed = clean_markers(reply, valid)
    text, attributed = attribute_sentences(text, sources)
    notes = []
    if not cited_numbers(text):
        notes.append("uncited")
        text = flag_answer(text, question, sources, UNCITED_NOTE)
    return CitedAnswer(text=text.strip(), model_called=True, removed_markers=removed,
                       attributed=attributed, notes=notes)


UNCITED_NOTE = "The model cited no source for this answer"


def flag_answer(text: str, question: str, sources: list[Source], note: str) -> str:
    """``text``, then ``note`` in italics and the passages to check the answer against.

    The one way an answer is marked as unbacked, wherever that is found out: here for a
    reply that cites nothing, and after verification for an answer whose citations its
    sources did not support (:func:`deepcite.research.steps.flag_unsupported`). The
    mark is in the text itself, so every output form (terminal, file, JSON) carries it.
    """
    backing = (f"check it against these passages:_\n\n{evidence_list(question, sources)}"
               if sources else "treat it with care._")
    return f"{text.strip()}\n\n_{note}; {backing}"


_FALLBACK_INTRO = (
    "The model did not produce a usable answer, so here are the most relevant passages "
    "found:"
)


def evidence_list(question: str, sources: list[Source], limit: int = EVIDENCE_PASSAGES) -> str:
    """Bullet list of the best-matching excerpt of the first ``limit`` sources, cited.

    The title follows the marker so that the text a marker covers is the quote alone:
    verification then finds it in the source, as it should. Quote and title are
    escaped (:func:`escape_quoted`), so neither can add, renumber or hide a citation.
    """
    lines = [
        f"- \u201c{escape_quoted(one_line(best_excerpt(source.text, question)))}\u201d "
        f"[{source.number}] ({escape_quoted(one_line(source.title))})"
        for source in sources[:limit]
    ]
    return "\n".join(lines)


def evidence_answer(question: str, sources: list[Source], *, intro: str) -> str:
    """An answer made only of quoted, cited passages; used when the model cannot help."""
    if not sources:
        return NO_SOURCES_ANSWER
    return f"{intro}\n\n{evidence_list(question, sources)}"


def collapse_repeats(reply: str) -> str:
    """Drop what a looping model already wrote; keep the first of each.

    Sentences of three or more words are kept once. Shorter lines (``def main():``)
    repeat naturally, so only a third sighting marks a loop. Code blocks are left alone.
    """
    seen: set[str] = set()
    short_lines: dict[str, int] = {}
    lines = []
    in_fence = False
    for line in reply.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if in_fence or line.lstrip().startswith("```") or not line.strip():
            lines.append(line)
            continue
        kept = []
        for sentence in split_sentences(line):
            key = " ".join(sentence.lower().split())
            if len(key.split()) < 3:
                short_lines[key] = short_lines.get(key, 0) + 1
                if short_lines[key] < 3:
                    kept.append(sentence)
            elif key not in seen:
                seen.add(key)
                kept.append(sentence)
        if kept:
            lines.append(" ".join(kept))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# Words that say nothing about the subject: "The answer to your question is:".
_FILLER = frozenset({"answer", "question", "following", "here", "summary", "sources", "source"})


def _unusable(question: str, reply: str) -> str | None:
    """Why ``reply`` cannot be used as an answer, or ``None`` when it can."""
    if not reply.strip():
        return "empty reply"
    lowered = reply.lower()
    if "<source" in lowered or "</source>" in lowered or "answer, citing sources" in lowered:
        return "reply repeats the prompt"
    asked, answered = dominant_script(question), dominant_script(reply)
    if asked and answered and asked != answered:
        return f"reply in another script ({answered.lower()}) than the question"
    new_words = content_words(reply) - content_words(question) - _FILLER
    if not new_words:
        return "reply only repeats the question"
    if len(new_words) < 2:
        return "reply too short"
    return None
