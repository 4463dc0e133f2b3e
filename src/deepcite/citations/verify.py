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

from pydantic import Field

from deepcite.citations.cited_answer import Completer
from deepcite.citations.markers import clean_markers, prose_only
from deepcite.citations.support import Evidence, SourceIndex
from deepcite.errors import DeepciteError, InputError
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.text.sentences import split_sentences
from deepcite.text.stem import stems
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD, content_words
from deepcite.types import (
    CitationCheck,
    CitationMethod,
    CitationOutcome,
    Source,
    VerificationCounts,
)

#: The verdict and how it was reached; the records live in :mod:`deepcite.types`.
Outcome = CitationOutcome
Method = CitationMethod
FLAG = "^(unverified)"
FALLBACK_UNSUPPORTED = 0.2
_GROUP = re.compile(r"\[\d+\](?:[ \t]*\[\d+\])*")
_MARK = re.compile(r"\[(\d+)\]")
# Markers standing before the punctuation that ends their clause ("三百秒 [1]。",
# "It is 42 [1]."), with the space before them: the claim reads "三百秒。", as the source.
_MARKS_BEFORE_STOP = re.compile(r"[ \t]*\[\d+\](?:[ \t]*\[\d+\])*(?=[.,;:!?)\]}。，；：！？、）])")
_QUOTE_PAIRS = frozenset({"“”", '""', "‘’", "«»", "「」", "『』"})
# Punctuation ending the sentence before a claim, left when a claim starts at a marker.
_LEFTOVER = re.compile(r"^(?:[.,;:!?)\]}]+(?:\s+|$)|[。，；：！？）、]+\s*)+")
# Markdown marks; an underscore inside a name ("strict_parsing") is part of the name.
_MARKDOWN = re.compile(r"[*#>`]|(?<!\w)_+|_+(?!\w)|^\s*(?:[-+]|\d+\.)\s+", re.MULTILINE)
_VERDICT = re.compile(r"\b(UNSUPPORTED|PARTIAL|SUPPORTED)\b", re.IGNORECASE)
_QUOTE = re.compile(r"QUOTE\s*:\s*(.+)", re.IGNORECASE | re.DOTALL)
_MIN_QUOTE_WORDS = 3
_SYSTEM = (
    "You check whether a source supports a claim. Answer on two lines:\n"
    "VERDICT: SUPPORTED, PARTIAL or UNSUPPORTED\n"
    "QUOTE: the one sentence of the source that supports the claim, copied verbatim "
    "(write QUOTE: none when UNSUPPORTED).\n" + UNTRUSTED_NOTICE
)


class Verification(VerificationCounts):
    """What :func:`verify` found and the text it left.

    ``text`` is the verified text: every marker resolves, and every unsupported
    citation is removed or flagged. ``markers_checked`` counts citation numbers read
    (after expanding groups and ranges), ``markers_removed`` those resolving to no
    entry. ``supported``/``partial``/``unsupported`` count ``citations``;
    ``undecided`` counts citations the cheap checks could not settle (each costs one
    model call when a model is given); ``model_calls`` counts the calls made.
    """

    text: str
    citations: list[CitationCheck] = Field(default_factory=list)
    #: Source numbers cited but not checked: their text is not at hand (a material
    #: whose text the history did not keep). Their markers stay as they are.
    unchecked_numbers: list[int] = Field(default_factory=list)


@dataclass(frozen=True)
class _Entry:
    number: int
    title: str
    text: str


_SHAPE = "each source is an object with number, title, url and snippet"


def _preview(value: object) -> str:
    """A short repr of a bad value for an error message (a value can be megabytes)."""
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _number(item: Mapping[str, Any], position: int) -> int:
    """The entry's ``number``: an int, an integral float, or a string ``int()`` reads.

    Checked by type rather than by trying ``int()`` on anything: ``int(True)`` and
    ``int(1.5)`` would quietly give a source the wrong number, and ``int(1e400)`` raises
    ``OverflowError``, which no caller expects.
    """
    if "number" not in item:
        raise InputError(f"source entry {position} has no 'number'; {_SHAPE}")
    value = item["number"]
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        try:
            number = int(value)
        except ValueError:
            number = None
    if number is None:
        raise InputError(f"source entry {position} needs an integer 'number', not "
                         f"{_preview(value)}; {_SHAPE}")
    return number


def _text(item: Mapping[str, Any], key: str, position: int) -> str:
    """Field ``key`` as text; numbers are written out, lists and objects are refused."""
    value = item[key]
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    kind = "an object" if isinstance(value, Mapping) else (
        "a list" if isinstance(value, list | tuple) else f"a {type(value).__name__}")
    raise InputError(f"source entry {position} has {kind} as {key!r}, not text; {_SHAPE}")


def _entry(item: Source | Mapping[str, Any], position: int) -> _Entry:
    """``item`` (1-based ``position`` in the entries, for messages) as an ``_Entry``."""
    if isinstance(item, Source):
        return _Entry(item.number, item.title, item.text)
    if not isinstance(item, Mapping):
        raise InputError(f"source entry {position} is {_preview(item)}, not an object; "
                         f"{_SHAPE}")
    number = _number(item, position)
    text = next((_text(item, k, position) for k in ("text", "full_text", "snippet")
                 if item.get(k)), "")
    title = _text(item, "title", position) if item.get("title") else ""
    return _Entry(number, title, text)


def _claim(text: str) -> str:
    """The claim ``text`` makes: markers and Markdown marks gone, whitespace collapsed,
    and no punctuation left over from the sentence before (``"PEP 305 [1]. csv - ..."``
    gives ``"csv - ..."`` for the second marker, not ``". csv - ..."``, whose stray
    "." would pull the evidence one character early), no space left where a marker
    stood before a stop (``"三百秒 [1]。"`` reads ``"三百秒。"``: a stray space would
    push a CJK quote one character into the next sentence), and a passage quoted whole
    (``“...”``, as the passages of a fallback answer are) is checked without its marks."""
    unmarked = _MARK.sub("", _MARKS_BEFORE_STOP.sub("", text))
    claim = _LEFTOVER.sub("", " ".join(_MARKDOWN.sub("", unmarked).split()))
    if len(claim) > 2 and claim[0] + claim[-1] in _QUOTE_PAIRS:  # a passage quoted whole
        claim = claim[1:-1].strip()
    return claim


def _has_three_content_words(claim: str) -> bool:
    """``len(content_words(claim)) >= 3``, stopping at the third distinct word.

    Asked once per marker group; most claims answer within their first few words, so
    the whole claim need not be lower-cased and collected into a set each time.
    """
    seen: set[str] = set()
    for match in WORD.finditer(claim):
        word = match.group()
        if len(word) >= 3:
            word = word.lower()
            if word not in STOPWORDS:
                seen.add(word)
                if len(seen) >= 3:
                    return True
    return False


def _claims(text: str, prose: str) -> list[tuple[re.Match[str], str]]:
    """Each marker group in ``text`` with the claim it is attached to.

    ``prose`` is ``prose_only(text)``, passed in because the caller needs it too.
    """
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
    if not sentences:
        sentences.append((0, len(text)))
    # A whole sentence as a claim, made once per sentence: a long line of short cited
    # fragments ("a [1] b [2] ...") would otherwise rebuild it for every marker group.
    whole: dict[int, str] = {}

    def sentence_claim(at: int) -> str:
        if at not in whole:
            whole[at] = _claim(text[sentences[at][0]:sentences[at][1]])
        return whole[at]

    found: list[tuple[re.Match[str], str]] = []
    index = 0
    boundary = 0
    for group in _GROUP.finditer(prose):
        while index + 1 < len(sentences) and group.start() >= sentences[index + 1][0]:
            index += 1
            boundary = sentences[index][0]
        if group.start() == sentences[index][0] and index > 0:
            # "Claim. [2] Next sentence": the marker belongs to the claim before it.
            claim = sentence_claim(index - 1)
        else:
            claim = _claim(text[boundary:group.start()])
            if not _has_three_content_words(claim):
                claim = sentence_claim(index)
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


def model_verdict(model: Completer, claim: str,
                  source: Source | Mapping[str, Any]) -> Evidence:
    """The model's verdict on ``claim`` against one source: the call made for undecided
    citations, public for attribution, which has a claim but no citation yet.

    Counts only with a quote found verbatim in the source (else "unsupported"); a failed
    call raises :class:`~deepcite.errors.ModelError`.
    """
    entry = _entry(source, 1)
    return _ask(model, claim, entry, SourceIndex(entry.text))


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


def _check(claim: str, number: int, entry: _Entry, index: SourceIndex,
           model: Completer | None, calls: list[int],
           unsupported: Literal["remove", "flag"]) -> tuple[CitationCheck, bool, str]:
    """The verdict on citing ``number`` for ``claim``, whether it was undecided by the
    cheap checks, and the marker text that replaces ``[number]`` ('' when removed)."""
    evidence, was_undecided = _decide(claim, entry, index, model, calls)
    outcome: Outcome = evidence.outcome or "unsupported"
    has_span = outcome != "unsupported" and evidence.start is not None
    quote = entry.text[evidence.start:evidence.end] if has_span else None
    check = CitationCheck(
        number=number, sentence=claim, outcome=outcome, method=evidence.method,
        source_number=number if has_span else None,
        start=evidence.start if has_span else None,
        end=evidence.end if has_span else None, quote=quote)
    if outcome != "unsupported":
        marker = f"[{number}]"
    elif unsupported == "flag":
        marker = f"[{number}]{FLAG}"
    else:
        marker = ""
    return check, was_undecided, marker


def _splice(text: str, replacements: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, new)`` span, in order and disjoint, replaced.

    Built in one pass: re-slicing the whole text once per marker group made
    verification quadratic in the report's length (minutes for a few megabytes).
    """
    parts: list[str] = []
    last = 0
    for start, end, new in replacements:
        parts.append(text[last:start])
        parts.append(new)
        last = end
    parts.append(text[last:])
    return "".join(parts)


def verify(
    text: str,
    entries: Sequence[Source | Mapping[str, Any]],
    *,
    model: Completer | None = None,
    unsupported: Literal["remove", "flag"] = "remove",
) -> Verification:
    """Check every citation in ``text`` against ``entries``; see the module docstring."""
    by_number: dict[int, _Entry] = {}
    for position, item in enumerate(entries, 1):
        entry = _entry(item, position)
        by_number.setdefault(entry.number, entry)
    cleaned, removed = clean_markers(text, by_number)
    prose = prose_only(cleaned)
    resolved = len(_MARK.findall(prose))
    indexes: dict[int, SourceIndex] = {}
    # One decision per distinct (claim, number): a claim repeated across a long report
    # costs one check, and one model call at most.
    cache: dict[tuple[str, int], tuple[CitationCheck, bool, str]] = {}
    calls = [0]
    checks: list[CitationCheck] = []
    undecided = 0
    replacements: list[tuple[int, int, str]] = []
    unchecked: dict[int, None] = {}
    for group, claim in _claims(cleaned, prose):
        kept: list[str] = []
        for number in (int(n) for n in _MARK.findall(group.group(0))):
            if not by_number[number].text.strip():
                # nothing to check against (a stored material without its text): the
                # citation is neither confirmed nor refuted, so it stays, said so
                unchecked.setdefault(number)
                kept.append(f"[{number}]")
                continue
            decided = cache.get((claim, number))
            if decided is None:
                entry = by_number[number]
                index = indexes.get(number) or indexes.setdefault(
                    number, SourceIndex(entry.text))
                decided = _check(claim, number, entry, index, model, calls, unsupported)
                cache[(claim, number)] = decided
            check, was_undecided, marker = decided
            undecided += was_undecided
            checks.append(check)
            kept.append(marker)
        replacements.append((group.start(), group.end(), "".join(kept)))
    final, _ = clean_markers(_splice(cleaned, replacements), by_number)
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
        unchecked=len(unchecked),
        unchecked_numbers=list(unchecked),
    )


def anchored(checks: Sequence[CitationCheck], sources: Sequence[Source]) -> list[CitationCheck]:
    """``checks`` with every span true of ``sources``: ``text[start:end] == quote`` for
    the source the check names, in the result that carries them.

    A result put together from parts (a detailed report's, each verified against the
    sources of its own part) must still hold the one offset convention
    (``docs/citations.md``). A span that no longer holds is moved to the quote's
    occurrence nearest its old start; a quote the source lacks loses its span (the
    verdict stays).
    """
    texts = {source.number: source.text for source in sources}
    fixed: list[CitationCheck] = []
    for check in checks:
        text = texts.get(check.source_number) if check.source_number is not None else None
        start, end, quote = check.start, check.end, check.quote
        if text is None or quote is None or start is None or end is None or \
                text[start:end] == quote:
            fixed.append(check)
            continue
        at = nearest_occurrence(text, quote, start)
        update: dict[str, Any] = {"start": at, "end": at + len(quote)} if at >= 0 else {
            "source_number": None, "start": None, "end": None, "quote": None}
        fixed.append(check.model_copy(update=update))
    return fixed


def nearest_occurrence(text: str, quote: str, near: int) -> int:
    """The start of the occurrence of ``quote`` in ``text`` nearest ``near``, or -1."""
    after = text.find(quote, max(0, near - len(quote)))
    before = text.rfind(quote, 0, near + len(quote))
    found = [at for at in (after, before) if at >= 0]
    return min(found, key=lambda at: abs(at - near)) if found else -1
