"""The precision handler: one short, cited line for short factual questions.

SimpleQA-style questions want a name, a date, a number, a place or a score, and small
models often answer them from memory even when the sources say otherwise. So the model
only proposes an answer; the sources decide. Candidates of the expected type are pulled
from the sources with patterns, and the model's answer is kept only when a source
contains it; otherwise the candidate the sources mention most wins. The answer cites
exactly the sources that contain it, so every marker is true by construction.
"""

from __future__ import annotations

import re
from collections import Counter

from deepcite.citations.answer import build_prompt, evidence_list
from deepcite.citations.cited_answer import CitedAnswer, Completer
from deepcite.citations.handlers.base import AnswerStyle
from deepcite.citations.markers import clean_markers
from deepcite.security.fencing import UNTRUSTED_NOTICE
from deepcite.text.frames import frame_for
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import contains_words, content_words
from deepcite.types import Source

SYSTEM_PROMPT = (
    "Answer the question with the short answer only (a name, date, number, place or "
    "score) taken from the numbered sources: no sentence, no explanation. "
    + UNTRUSTED_NOTICE
)
MAX_TOKENS = 40

# Checked in order: "What was the score in 1990?" is about a score, not a date.
QUESTION_TYPES: list[tuple[str, tuple[str, ...]]] = [
    ("score", ("score", "result of the match")),
    ("number", ("how many", "how much", "what number", "population")),
    ("date", ("when", "what year", "which year", "date")),
    ("place", ("where", "which city", "which country")),
    ("full_name", ("who", "whose name", "full name")),
]

_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October"
          r"|November|December)")
_PARTICLE = r"(?:van|von|de|der|den|da|di|del|la|le|du|bin|ibn)"
_CAP = r"[A-Z][a-z'\u2019]+(?:-[A-Z][a-z]+)?"
_UNIT = (r"(?:\s*(?:%|percent|million|billion|thousand|hundred))?"
         r"(?:\s*(?:km2|km|kilometres|kilometers|miles|metres|meters|m|kg|tonnes|tons"
         r"|people|inhabitants|residents|years|days|hours|dollars|euros|USD))?")
PATTERNS: dict[str, list[re.Pattern[str]]] = {
    "full_name": [re.compile(rf"\b{_CAP}(?:\s+(?:{_PARTICLE}\s+)*{_CAP}){{1,3}}\b")],
    "date": [re.compile(rf"\b(?:\d{{1,2}}\s+{_MONTH}|{_MONTH}(?:\s+\d{{1,2}})?,?)\s+\d{{4}}\b"),
             re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b")],
    "number": [re.compile(rf"\b\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?{_UNIT}"
                          rf"|\b\d+(?:\.\d+)?{_UNIT}")],
    "place": [re.compile(rf"(?<=\b(?:in|at) )({_CAP}(?:\s+{_CAP}){{0,2}})"),
              re.compile(rf"(?<=\bfrom )({_CAP}(?:\s+{_CAP}){{0,2}})")],
    "score": [re.compile(r"\b\d{1,3}\s*[-\u2013:]\s*\d{1,3}\b(?![-\u2013:]\d)")],
}
_YEAR_ONLY = re.compile(r"^(?:1[5-9]|20)\d{2}$")


def question_type(question: str) -> str:
    """The kind of answer ``question`` wants, by keyword; ``other`` when none match."""
    lowered = " ".join(question.lower().split())
    for kind, keywords in QUESTION_TYPES:
        if any(re.search(rf"\b{re.escape(k)}\b", lowered) for k in keywords):
            return kind
    return "other"


def _norm(text: str) -> str:
    return " ".join(text.replace("\u2013", "-").split()).strip(" .,;:!?\"'").lower()


def _occurs(needle: str, haystack: str) -> bool:
    """Whether ``needle`` is whole words of ``haystack`` once both are normalised
    (:func:`_norm`: dashes, edge punctuation), by :func:`~deepcite.text.words.contains_words`."""
    return contains_words(_norm(haystack), _norm(needle))


def _clean_name(name: str, question: str) -> str | None:
    """Drop sentence-initial stopwords ("The"); reject one-word names and the subject.

    A name ending in a word of the question ("Monty Python" for "Who wrote Python?")
    would be grouped with the subject's own mentions and win on them, so it is dropped.
    """
    words = name.split()
    while words and words[0].lower() in STOPWORDS:
        words.pop(0)
    if len(words) < 2 or words[-1].lower() in content_words(question):
        return None
    return " ".join(words)


def extract_candidates(kind: str, question: str, sources: list[Source]) -> Counter[str]:
    """Candidate answers of type ``kind`` in ``sources``, weighted by how often they occur.

    Names are grouped by their last word, so "Guido van Rossum" also gains from each
    later "Rossum"; the group is represented by its longest full form. Candidates that
    merely repeat the question are dropped: they are its subject, not its answer.
    """
    found: list[str] = []
    for source in sources:
        for pattern in PATTERNS.get(kind, []):
            found += [" ".join(m.group(0).split()) for m in pattern.finditer(source.text)]
    if kind == "full_name":
        return _group_names(found, question, sources)
    counts = Counter(c for c in found if not _occurs(c, question))
    if kind == "number" and any(not _YEAR_ONLY.match(c) for c in counts):
        counts = Counter({c: n for c, n in counts.items() if not _YEAR_ONLY.match(c)})
    return counts


def _group_names(found: list[str], question: str, sources: list[Source]) -> Counter[str]:
    groups: dict[str, str] = {}
    for raw in found:
        name = _clean_name(raw, question)
        if name is None:
            continue
        key = name.split()[-1].lower()
        if len(name) > len(groups.get(key, "")):
            groups[key] = name
    text = " ".join(s.text for s in sources)
    return Counter({name: len(re.findall(rf"\b{re.escape(key)}\b", text, re.IGNORECASE))
                    for key, name in groups.items()})


class PrecisionCitationHandler:
    """One short answer line, chosen by what the sources support, citing them."""

    name = "precision"
    #: Answers in its own shape, whatever the strategy asks for (see ``answer``).
    follows_strategy = False

    def __init__(self, client: Completer) -> None:
        self._client = client

    def answer(self, question: str, sources: list[Source], *, prior_knowledge: str = "",
               style: AnswerStyle | None = None, draft: str | None = None) -> CitedAnswer:
        """A one-line answer to ``question`` found in ``sources``, cited ``[n]``.

        Unlike the standard handler it needs sources even on a follow-up: its answer
        must be found in a source text, and earlier knowledge is no source text.
        ``style`` and ``draft`` are not used: the short answer is this handler's shape,
        and it asks the model for a bare answer with its own prompt, so the proposal is
        short enough to look up in the sources.
        """
        if not sources:
            return CitedAnswer(text=frame_for("no_sources", question), model_called=False)
        user = build_prompt(question, sources, self._client.prompt_budget_chars,
                            prior_knowledge, system_chars=len(SYSTEM_PROMPT)
                            ) + "\n\nReply with the short answer only."
        reply = self._client.complete("precision", SYSTEM_PROMPT, user, max_tokens=MAX_TOKENS)
        kind = question_type(question)
        proposed = _short(reply)
        candidates = extract_candidates(kind, question, sources)
        chosen, note = choose(proposed, candidates, kind, sources)
        if chosen is None:
            suggestion = f" (the model suggested: {proposed})" if proposed else ""
            text = (f"No short answer could be confirmed in the sources{suggestion}. "
                    f"The most relevant passages:\n\n{evidence_list(question, sources)}")
            return CitedAnswer(text=text, model_called=True, fallback="unsupported answer",
                               notes=[kind])
        key = chosen.split()[-1] if kind == "full_name" else chosen
        numbers = [s.number for s in sources if _occurs(key, s.text)]
        markers = "".join(f"[{n}]" for n in numbers)
        return CitedAnswer(text=f"{chosen} {markers}", model_called=True, notes=[kind, note])


def _short(reply: str) -> str:
    """The model's answer as one bare line: no markers, no trailing full stop."""
    text, _ = clean_markers(reply, ())
    first = next((line for line in text.splitlines() if line.strip()), "")
    first = re.sub(r"^(?:the )?(?:short )?answer(?: is)?\s*[:\-]?\s*", "", first.strip(),
                   flags=re.IGNORECASE)
    return first.strip(" .;:\"'*")


def choose(proposed: str, candidates: Counter[str], kind: str,
           sources: list[Source]) -> tuple[str | None, str]:
    """The best-supported answer and how it was chosen (``None`` when nothing is).

    The model's answer wins when a source contains it (a name is widened to its
    candidate's full form) or when it names a candidate; otherwise the most frequent
    candidate does, because what the sources repeat beats what the model remembers.
    """
    if proposed:
        containing = [c for c in candidates if _occurs(proposed, c)]
        if kind == "full_name" and containing:
            return max(containing, key=lambda c: (candidates[c], len(c))), "model, widened"
        if any(_occurs(proposed, s.text) for s in sources):
            return proposed, "model"
        named = [c for c in candidates if _occurs(c, proposed)]
        if named:
            return max(named, key=lambda c: (candidates[c], len(c))), "model, candidate"
    if candidates:
        best = max(candidates, key=lambda c: (candidates[c], len(c)))
        return best, "most frequent candidate"
    return None, "unsupported"
