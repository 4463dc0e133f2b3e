"""A capable model's verdict on a claim the value comparison left undecided.

The comparison of :mod:`deepcite.factcheck.judge` decides without a model; what it
cannot settle - a claim said in other words than the source's, a part stated and a part
not - a capable model may judge, in one call per claim. Its verdict counts only with a
quote found verbatim in the source it names (whitespace- and case-insensitive, as
:class:`~deepcite.citations.support.SourceIndex` finds quotes), so a model cannot make a
claim supported by inventing the evidence. The bundled model is too small to be asked
(:func:`~deepcite.citations.answer_mode.use_grounded` says which models are small).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.citations.cited_answer import Completer
from deepcite.citations.support import SourceIndex
from deepcite.factcheck.judge import Conflict, Judgement, Quote, terms_of
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.text.stem import stems
from deepcite.types import SearchResult

__all__ = ["MODEL_PASSAGES", "ask_model"]

#: How many passages the model is shown (the search's best).
MODEL_PASSAGES = 3
_EXCERPT_CHARS = 1500
_MIN_QUOTE_WORDS = 3
_VERDICT = re.compile(r"VERDICT\s*:\s*(SUPPORTED|CONTRADICTED|PARTLY|PARTIAL|NOT[ _]FOUND)",
                      re.IGNORECASE)
_SOURCE = re.compile(r"SOURCE\s*:\s*\[?(\d+)", re.IGNORECASE)
_QUOTE = re.compile(r"QUOTE\s*:\s*(.+)", re.IGNORECASE)
_SYSTEM = (
    "You check one claim of a document against numbered sources. Answer on three lines:\n"
    "VERDICT: SUPPORTED, CONTRADICTED (a source states a different number, date, name or "
    "the opposite), PARTLY (a source states part of it) or NOT_FOUND\n"
    "SOURCE: the number of the source that decides it\n"
    "QUOTE: the one sentence of that source that decides it, copied verbatim "
    "(QUOTE: none when NOT_FOUND).\n" + UNTRUSTED_NOTICE
)


def _excerpt(text: str, claim: str) -> str:
    if len(text) <= _EXCERPT_CHARS:
        return text
    _, start, end, _ = SourceIndex(text).best_window(stems(claim))
    low = max(0, min((start + end) // 2 - _EXCERPT_CHARS // 2, len(text) - _EXCERPT_CHARS))
    return text[low:low + _EXCERPT_CHARS]


def ask_model(model: Completer, claim: str, passages: Sequence[SearchResult],
              earlier: Judgement) -> Judgement | None:
    """The model's verdict on ``claim`` from the first :data:`MODEL_PASSAGES` of
    ``passages`` (their indices are the quotes' ``passage``), or ``None`` when its reply
    is unusable or its quote is not in the source it names. One call; a failed call
    raises :class:`~deepcite.errors.ModelError`."""
    shown = list(passages[:MODEL_PASSAGES])
    if not shown:
        return None
    texts = [result.full_text or result.snippet for result in shown]
    user = "\n\n".join(fence(_excerpt(text, claim), number=index + 1, title=result.title)
                       for index, (result, text) in enumerate(zip(shown, texts, strict=True)))
    reply = model.complete("check", _SYSTEM, f"{user}\n\nClaim: {claim}", max_tokens=160)
    verdict = _VERDICT.search(reply)
    if verdict is None:
        return None
    word = verdict.group(1).upper().replace(" ", "_")
    if word == "NOT_FOUND":
        return Judgement("not_found", earlier.score)
    number, quote_match = _SOURCE.search(reply), _QUOTE.search(reply)
    if number is None or quote_match is None or not 1 <= int(number.group(1)) <= len(shown):
        return None
    index = int(number.group(1)) - 1
    quote = quote_match.group(1).strip().strip(" \"'\u201c\u201d\u2018\u2019`")
    quote = quote.removesuffix("...").rstrip("\u2026").strip()
    span = SourceIndex(texts[index]).find(quote) \
        if len(quote.split()) >= _MIN_QUOTE_WORDS else None
    if span is None or not terms_of(quote) & terms_of(claim):
        return None
    found = Quote(index, span[0], span[1], texts[index][span[0]:span[1]])
    if word == "CONTRADICTED":
        return Judgement("contradicted", earlier.score, (found,),
                         (Conflict(claim, found.text, 0),))
    return Judgement("supported" if word == "SUPPORTED" else "partly_supported",
                     earlier.score, (found,))
