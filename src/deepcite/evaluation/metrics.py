"""Deterministic scores that need no judge: exact match, token F1, gold passages, refusal.

Exact match and F1 follow the SQuAD evaluation script's definitions: answers are
normalised (lower case, punctuation and the articles a/an/the removed, whitespace
collapsed) and a prediction scores the best over all gold answers. Our answers are
paragraphs, not spans, so the prediction scored is the answer's **short answer** when
it leads with one (``**...**`` on the first line, as the grounded path writes it) and
otherwise its first sentence with citations stripped; a whole paragraph would get an
F1 near zero against a two-word gold answer however right it is.
"""

from __future__ import annotations

import math
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

from deepcite.citations.answer_type import answer_type, of_kind
from deepcite.text.sentences import split_sentences
from deepcite.text.words import content_words
from deepcite.types import Source

_PUNCTUATION = set(string.punctuation) | {"\u2018", "\u2019", "\u201c", "\u201d", "\u2013",
                                          "\u2014", "\u2026"}
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SHORT = re.compile(r"^\s*(?:\*\*|__)(.+?)(?:\*\*|__)")
_MARKER = re.compile(r"\[\d+(?:\s*[,\u2013-]\s*\d+)*\]")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:!?])")

#: Phrases that open an answer which says it has none: ours (the "no sources" answer,
#: the grounded path's "no sentence answers this") and common model wordings.
REFUSAL_PATTERNS = re.compile(
    r"^\W*(?:no sources were found|no sentence of the sources answers|"
    r"no source (?:found|answers)|"
    r"the (?:provided |given |available |retrieved )?sources? (?:found )?"
    r"(?:do(?:es)? not|don't|doesn't|did not) (?:answer|say|mention|contain|state|cover|"
    r"provide|give|include)|"
    r"none of the sources (?:say|says|mention|mentions|answer|answers|give|gives|state|"
    r"states|contain|contains|provide|provides)|"
    r"nothing (?:was )?found|no (?:relevant )?(?:information|answer) "
    r"(?:was|could be) found|i (?:do not|don't) know|i could not find|i cannot (?:answer|"
    r"find|determine)|(?:the|this) (?:answer|information) (?:is not|isn't|cannot be) "
    r"(?:found|determined|given|known))",
    re.IGNORECASE,
)


def normalise(text: str) -> str:
    """SQuAD's answer normalisation (punctuation deleted, so "U.S." is "us" and "1,000"
    is "1000"), plus Unicode compatibility folding."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def prediction(answer: str) -> str:
    """The part of an answer that is scored: its bold short answer, else first sentence."""
    text = answer.strip()
    short = short_answer(text)
    if short is not None:
        return short
    bare = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", " ".join(_MARKER.sub("", text).split()))
    return next(iter(split_sentences(bare)), "")


def short_answer(answer: str) -> str | None:
    """The answer's bold short answer (``**...**`` leading it), or ``None``."""
    lead = _SHORT.match(answer.strip())
    return lead.group(1).strip() if lead else None


def wrong_type_lead(answer: str, question: str) -> bool | None:
    """Whether the answer leads with a short answer not of the kind ``question`` asks
    (a year for "how many", a percentage for "how much money", a place for "who").

    ``None`` when there is no short answer or the question asks for no particular kind;
    the kinds are :mod:`deepcite.citations.answer_type`'s.
    """
    short = short_answer(answer)
    kind = answer_type(question)
    if short is None or kind == "other":
        return None
    return not of_kind(kind, short, question)


def exact_match(predicted: str, golds: Sequence[str]) -> float:
    """1.0 when the normalised prediction equals a normalised gold answer."""
    norm = normalise(predicted)
    return 1.0 if any(norm == normalise(g) for g in golds) else 0.0


def _f1(predicted: list[str], gold: list[str]) -> float:
    common = Counter(predicted) & Counter(gold)
    same = sum(common.values())
    if not predicted or not gold:
        return float(predicted == gold)
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def token_f1(predicted: str, golds: Sequence[str]) -> float:
    """The best token-overlap F1 of the prediction against any gold answer."""
    tokens = normalise(predicted).split()
    return max((_f1(tokens, normalise(g).split()) for g in golds), default=0.0)


def _spaced(text: str) -> str:
    """:func:`normalise` with punctuation as spaces, so "Six-time" holds "six"."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return normalise("".join(" " if ch in _PUNCTUATION else ch for ch in folded))


def contains_gold(text: str, golds: Sequence[str]) -> bool:
    """Whether a gold answer occurs in ``text`` as whole words (normalised; punctuation
    deleted as SQuAD does, or read as a space: "Six-time" holds "Six")."""
    forms = (f" {normalise(text)} ", f" {_spaced(text)} ")
    wanted = {g for x in golds for g in (normalise(x), _spaced(x)) if g}
    return any(f" {g} " in form for g in wanted for form in forms)


def holds_answer(text: str, question: str, golds: Sequence[str], *,
                 min_share: float = 0.3) -> bool:
    """Whether ``text`` answers ``question``: it holds a gold answer and a good share of
    the question's content words (a year or a name alone turns up by chance in any
    large collection; next to the question's own words it is the answer)."""
    if not contains_gold(text, golds):
        return False
    gold_words = set().union(*(content_words(g) for g in golds))
    asked = content_words(question) - gold_words
    if not asked:
        return True
    found = content_words(text)
    return len(asked & found) >= min_share * len(asked)


def source_names(source: Source) -> set[str]:
    """Everything a gold passage id may be matched against: url, title, file name."""
    names = {source.url, source.canonical_url, source.title}
    path = source.metadata.get("path")
    for value in (path, source.url.split("#", 1)[0]):
        if isinstance(value, str) and value:
            names.add(value.rstrip("/").rsplit("/", 1)[-1])
    document_title = source.metadata.get("document_title")
    if isinstance(document_title, str):
        names.add(document_title)
    return {n for n in names if n}


def is_gold(source: Source, gold_passage: str) -> bool:
    """Whether ``source`` is (a chunk of) the gold passage."""
    return gold_passage in source_names(source)


def recall_at(sources: Sequence[Source], gold_passage: str, k: int) -> bool:
    """Whether the gold passage is among the first ``k`` distinct documents retrieved."""
    seen: list[str] = []
    for source in sorted(sources, key=lambda s: s.number):
        key = source.canonical_url.split("#", 1)[0]
        if key not in seen:
            seen.append(key)
            if len(seen) > k:
                return False
        if is_gold(source, gold_passage):
            return True
    return False


def is_refusal(answer: str) -> bool:
    """Whether the answer says it found nothing instead of answering."""
    return bool(REFUSAL_PATTERNS.match(answer.strip().replace("\u2019", "'")))


def percentile(values: Iterable[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; 0.0 for no values."""
    data = sorted(values)
    if not data:
        return 0.0
    position = (len(data) - 1) * q / 100.0
    low, high = math.floor(position), math.ceil(position)
    return data[low] + (data[high] - data[low]) * (position - low)
