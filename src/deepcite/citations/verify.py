"""Verifying a cited answer: does every ``[n]`` resolve, and does source n say it?

A marker that resolves to a source is not yet a true citation: models attach real
numbers to claims their sources never make. :func:`verify` checks both things:

1. **Markers.** Every marker shape (``[1, 2]``, ``[1][2]``, ``【1】``, ranges; code is
   ignored) is checked against the entries' numbers; unresolvable ones are removed.
2. **Support.** Each cited claim (the sentence, or the part of it before its marker
   when a sentence carries several marker groups) is checked against each cited source,
   cheapest first (:mod:`deepcite.citations.support`): exact span, fuzzy span
   (rapidfuzz, score >= 90), content-word overlap with the best sentence or sentence
   pair (>= 0.7 supported, 0.4-0.7 partial). Numbers and names in the claim must
   appear in the evidence for any cheap verdict.
3. **Undecided** citations go to the model when one is given: one ``verify`` call each,
   answering SUPPORTED / PARTIAL / UNSUPPORTED with a verbatim quote. A verdict counts
   only if the quote is found in the source (whitespace- and case-insensitive);
   otherwise the citation is unsupported. Without a model (or when the call fails) the
   **fallback rule** decides: *unsupported* when the word overlap is below 0.2 or the
   source lacks a number or name of the claim, else *partial*.

Unsupported citations are never silently kept: ``unsupported="remove"`` deletes the
marker; ``"flag"`` keeps it (it still resolves) followed by ``^(unverified)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from deepcite.citations.handlers.base import Completer
from deepcite.citations.markers import clean_markers, prose_only
from deepcite.citations.support import Evidence, SourceIndex, stems
from deepcite.citations.text import content_words, split_sentences
from deepcite.errors import DeepciteError, InputError
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.types import Source

Outcome = Literal["supported", "partial", "unsupported"]
Method = Literal["exact", "fuzzy", "overlap", "model", "none"]
FLAG = "^(unverified)"
FALLBACK_UNSUPPORTED = 0.2
_GROUP = re.compile(r"\[\d+\](?:[ \t]*\[\d+\])*")
_MARK = re.compile(r"\[(\d+)\]")
_MARKDOWN = re.compile(r"[*_#>`]|^\s*(?:[-+]|\d+\.)\s+", re.MULTILINE)
_VERDICT = re.compile(r"\b(UNSUPPORTED|PARTIAL|SUPPORTED)\b", re.IGNORECASE)
_QUOTE = re.compile(r"QUOTE\s*:\s*(.+)", re.IGNORECASE | re.DOTALL)
_MIN_QUOTE_WORDS = 3
_SYSTEM = (
    "You check whether a source supports a claim. Answer on two lines:\n"
    "VERDICT: SUPPORTED, PARTIAL or UNSUPPORTED\n"
    "QUOTE: the one sentence of the source that supports the claim, copied verbatim "
    "(write QUOTE: none when UNSUPPORTED).\n" + UNTRUSTED_NOTICE
)


class CitationCheck(BaseModel):
    """The verdict on one citation: source ``number`` cited for ``sentence``.

    ``source_number``/``start``/``end``/``quote`` give the evidence span (character
    offsets into that source's text, ``text[start:end] == quote``) when one was found;
    they are ``None`` otherwise (always for unsupported citations).
    """

    model_config = ConfigDict(frozen=True)

    number: int
    sentence: str
    outcome: Outcome
    method: Method
    source_number: int | None = None
    start: int | None = None
    end: int | None = None
    quote: str | None = None


class Verification(BaseModel):
    """What :func:`verify` found and the text it left.

    ``text`` is the verified text: every marker resolves, and every unsupported
    citation is removed or flagged. ``markers_checked`` counts citation numbers read
    (after expanding groups and ranges), ``markers_removed`` those resolving to no
    entry. ``supported``/``partial``/``unsupported`` count ``citations``;
    ``undecided`` counts citations the cheap checks could not settle (each costs one
    model call when a model is given); ``model_calls`` counts the calls made.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    markers_checked: int = 0
    markers_removed: int = 0
    supported: int = 0
    partial: int = 0
    unsupported: int = 0
    undecided: int = 0
    model_calls: int = 0
    citations: list[CitationCheck] = Field(default_factory=list)


@dataclass(frozen=True)
class _Entry:
    number: int
    title: str
    text: str


def _entry(item: Source | Mapping[str, Any]) -> _Entry:
    if isinstance(item, Source):
        return _Entry(item.number, item.title, item.text)
    try:
        number = int(item["number"])
    except (KeyError, TypeError, ValueError):
        raise InputError("every source entry needs an integer 'number'") from None
    text = next((str(item[k]) for k in ("text", "full_text", "snippet") if item.get(k)), "")
    return _Entry(number, str(item.get("title") or ""), text)


def _claim(text: str) -> str:
    return " ".join(_MARKDOWN.sub("", _MARK.sub("", text)).split())


def _claims(text: str) -> list[tuple[re.Match[str], str]]:
    """Each marker group in ``text`` with the claim it is attached to."""
    prose = prose_only(text)
    sentences: list[tuple[int, int]] = []
    cursor = 0
    # Lines are claim boundaries too: list items and quoted passages are separate claims.
    for line in re.finditer(r"[^\n]+", text):
        cursor = line.start()
        for sentence in split_sentences(line.group()):
            start = text.find(sentence, cursor, line.end())
            if start >= 0:
                cursor = start + len(sentence)
                sentences.append((start, cursor))
    found: list[tuple[re.Match[str], str]] = []
    index = 0
    boundary = 0
    for group in _GROUP.finditer(prose):
        while index + 1 < len(sentences) and group.start() >= sentences[index + 1][0]:
            index += 1
            boundary = sentences[index][0]
        start, end = sentences[index] if sentences else (0, len(text))
        if group.start() == start and index > 0:
            # "Claim. [2] Next sentence": the marker belongs to the claim before it.
            claim = _claim(text[sentences[index - 1][0]:sentences[index - 1][1]])
        else:
            claim = _claim(text[boundary:group.start()])
            if len(content_words(claim)) < 3:
                claim = _claim(text[start:end])
        boundary = group.end()
        found.append((group, claim))
    return found


def _ask(model: Completer, claim: str, entry: _Entry, index: SourceIndex) -> Evidence:
    """One model call; the verdict counts only with a verbatim quote from the source."""
    budget = max(1000, min(6000, model.prompt_budget_chars - len(claim) - 600))
    _, start, end, _ = index.best_window(stems(claim))
    middle = (start + end) // 2
    low = max(0, min(middle - budget // 2, len(entry.text) - budget))
    excerpt = entry.text[low:low + budget]
    user = f"{fence(excerpt, number=entry.number, title=entry.title)}\n\nClaim: {claim}"
    reply = model.complete("verify", _SYSTEM, user, max_tokens=120)
    verdict = _VERDICT.search(reply)
    quote_match = _QUOTE.search(reply)
    if not verdict or verdict.group(1).upper() == "UNSUPPORTED" or not quote_match:
        return Evidence("unsupported", "model", 0.0, frozenset())
    quote = quote_match.group(1).strip().splitlines()[0].strip(" \"'“”‘’`").rstrip("…")
    quote = quote.removesuffix("...").strip()
    span = index.find(quote) if len(quote.split()) >= _MIN_QUOTE_WORDS else None
    if span is None or not content_words(quote) & content_words(claim):
        return Evidence("unsupported", "model", 0.0, frozenset())
    outcome: Outcome = "supported" if verdict.group(1).upper() == "SUPPORTED" else "partial"
    return Evidence(outcome, "model", 0.0, frozenset(), *span)


def _decide(claim: str, entry: _Entry, index: SourceIndex, model: Completer | None,
            calls: list[int]) -> tuple[Evidence, bool]:
    """The evidence for one citation, and whether it was undecided by cheap checks."""
    evidence = index.check(claim) if entry.text.strip() else Evidence(
        None, "none", 0.0, frozenset())
    if evidence.outcome is not None:
        return evidence, False
    if model is not None and entry.text.strip():
        calls[0] += 1
        try:
            return _ask(model, claim, entry, index), True
        except DeepciteError:
            pass  # a failed call leaves the fallback rule to decide
    weak = evidence.score < FALLBACK_UNSUPPORTED or bool(evidence.missing)
    return Evidence("unsupported" if weak else "partial", "none", evidence.score,
                    evidence.missing, evidence.start, evidence.end), True


def verify(
    text: str,
    entries: Sequence[Source | Mapping[str, Any]],
    *,
    model: Completer | None = None,
    unsupported: Literal["remove", "flag"] = "remove",
) -> Verification:
    """Check every citation in ``text`` against ``entries``; see the module docstring."""
    by_number: dict[int, _Entry] = {}
    for item in entries:
        entry = _entry(item)
        by_number.setdefault(entry.number, entry)
    cleaned, removed = clean_markers(text, by_number)
    resolved = len(_MARK.findall(prose_only(cleaned)))
    indexes: dict[int, SourceIndex] = {}
    cache: dict[tuple[str, int], tuple[Evidence, bool]] = {}
    calls = [0]
    checks: list[CitationCheck] = []
    undecided = 0
    replacements: list[tuple[int, int, str]] = []
    for group, claim in _claims(cleaned):
        kept: list[str] = []
        for number in (int(n) for n in _MARK.findall(group.group(0))):
            entry = by_number[number]
            index = indexes.get(number) or indexes.setdefault(number, SourceIndex(entry.text))
            if (claim, number) not in cache:
                cache[(claim, number)] = _decide(claim, entry, index, model, calls)
            evidence, was_undecided = cache[(claim, number)]
            undecided += was_undecided
            outcome: Outcome = evidence.outcome or "unsupported"
            has_span = outcome != "unsupported" and evidence.start is not None
            quote = entry.text[evidence.start:evidence.end] if has_span else None
            checks.append(CitationCheck(
                number=number, sentence=claim, outcome=outcome,
                method=evidence.method,
                source_number=number if has_span else None,
                start=evidence.start if has_span else None,
                end=evidence.end if has_span else None, quote=quote))
            if outcome != "unsupported":
                kept.append(f"[{number}]")
            elif unsupported == "flag":
                kept.append(f"[{number}]{FLAG}")
        replacements.append((group.start(), group.end(), "".join(kept)))
    for start, end, new in reversed(replacements):
        cleaned = cleaned[:start] + new + cleaned[end:]
    final, _ = clean_markers(cleaned, by_number)
    return Verification(
        text=final,
        markers_checked=resolved + removed,
        markers_removed=removed,
        supported=sum(c.outcome == "supported" for c in checks),
        partial=sum(c.outcome == "partial" for c in checks),
        unsupported=sum(c.outcome == "unsupported" for c in checks),
        undecided=undecided,
        model_calls=calls[0],
        citations=checks,
    )
