"""Attribution: give uncited factual sentences the source they are plainly supported by.

Models often write a correct sentence lifted from a passage and forget the ``[n]``; an
edited report gains sentences nobody cited. After verification, :func:`attribute`
looks at every factual sentence that carries no valid citation and matches it against
the run's sources with the same cheap checks verification uses
(:meth:`deepcite.citations.support.SourceIndex.check`): an exact span, a fuzzy span
(rapidfuzz, score >= 90) or content-word overlap of at least 0.7 with one sentence or
sentence pair, always with the claim's numbers and names present. Only such *strong*
support adds a ``[n]``; "partial" support does not. When the cheap checks leave a
sentence undecided (a source shares at least 0.4 of its words, but no span or passage
supports it strongly) and a model is given, the model is asked about the best such
source with verification's own call (:func:`deepcite.citations.verify.model_verdict`):
its verdict counts only when "supported", with a quote found verbatim in the source.

What stays unsupported is listed (:attr:`Attribution.unsupported_sentences`) and, on
request, marked in the text with ``^(unsupported)``. Existing markers are never
renumbered, moved or removed: attribution only adds.

Which sentences are considered: prose sentences (not code, headings, tables, notes in
italics, questions) with at least three content words and no citation, or only
citations flagged ``^(unverified)``. With ``previous`` (an earlier version of the text)
sentences that already occur there are left alone, so re-attributing an edited report
touches only what changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deepcite.citations.cited_answer import Completer
from deepcite.citations.markers import prose_only
from deepcite.citations.support import Evidence, SourceIndex, key_terms
from deepcite.citations.verify import FLAG, model_verdict
from deepcite.errors import ModelError
from deepcite.text.sentences import sentence_spans, split_sentences
from deepcite.text.stem import stem, stems
from deepcite.text.words import WORD, content_words
from deepcite.types import Source

MIN_WORDS = 3
#: A source must share this share of a sentence's words to be asked about (model).
CANDIDATE_OVERLAP = 0.4
#: ... and this share to be checked cheaply: strong support (a fuzzy span, or 0.7 of the
#: words in one passage) cannot come from a source sharing fewer of the words.
CHECK_OVERLAP = 0.6
MAX_CANDIDATES = 3
UNSUPPORTED_MARK = "^(unsupported)"
_TRAILING_PUNCT = re.compile(r"([.!?:;]+)$")
_LEADING_MARKERS = re.compile(rf"^(?:\[\d+\](?:{re.escape(FLAG)})?\s*)+")
_MARKER = re.compile(rf"(?<!\\)\[(\d+)\]({re.escape(FLAG)})?")
_LIST_PREFIX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_METHOD_RANK = {"exact": 3, "fuzzy": 2, "overlap": 1, "model": 0}


@dataclass(frozen=True)
class Attribution:
    """What :func:`attribute` did.

    ``text`` is the answer with the added markers (and unsupported marks when asked);
    ``added`` holds each attributed sentence with the number it got; ``unsupported_
    sentences`` the considered sentences no source strongly supports; ``model_calls``
    the calls spent on undecided sentences.
    """

    text: str
    added: list[tuple[str, int]] = field(default_factory=list)
    unsupported_sentences: list[str] = field(default_factory=list)
    model_calls: int = 0


@dataclass
class _Source:
    number: int
    title: str
    text: str
    index: SourceIndex | None = None
    _stems: frozenset[str] | None = None
    _words: frozenset[str] | None = None
    _norm: str | None = None

    @property
    def stems(self) -> frozenset[str]:
        if self._stems is None:
            self._stems = frozenset(stems(self.text))
        return self._stems

    @property
    def words(self) -> frozenset[str]:
        """Every word, stemmed (stopwords too): what a claim's key terms are sought in."""
        if self._words is None:
            self._words = frozenset(stem(w.lower()) for w in WORD.findall(self.text))
        return self._words

    @property
    def norm(self) -> str:
        """Lower case, whitespace collapsed: what exact spans are looked up in."""
        if self._norm is None:
            self._norm = " ".join(self.text.split()).lower()
        return self._norm

    def checked(self) -> SourceIndex:
        if self.index is None:
            self.index = SourceIndex(self.text)
        return self.index


def _sources(entries: Sequence[Source | Mapping[str, Any]]) -> dict[int, _Source]:
    """Number -> source text; the first entry of a number wins, as in verification.

    Mappings (``deepcite verify --sources`` entries) are read leniently; verification
    has already refused malformed ones by the time attribution runs.
    """
    found: dict[int, _Source] = {}
    for item in entries:
        if isinstance(item, Source):
            found.setdefault(item.number, _Source(item.number, item.title, item.text))
            continue
        try:
            number = int(item["number"])
        except (KeyError, TypeError, ValueError):
            continue
        text = next((str(item[k]) for k in ("text", "full_text", "snippet") if item.get(k)), "")
        found.setdefault(number, _Source(number, str(item.get("title") or ""), text))
    return found


_CODE_START = re.compile(
    r"^\s*(?:import|from|def|class|return|if|elif|else|for|while|with|try|except|print)\b"
    r"|^\s*[#>]|[{};]\s*$"
)
# A word of prose: letters of any script ("Börte", "Ögedei"), a number as facts are
# written ("115", "1,200", "46.1", "−8", "£250,000", "12%", "1187—1241"), or a unit
# ("°F", "km²"), in quotes or brackets and before a mark. Code tokens ("x=1", "f(x)",
# "a.b", "--flag") are none of these.
_PLAIN_WORD = re.compile(
    r"""^[("'\[“‘]*"""
    r"(?:[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*['’]?"
    r"|[−\-+]?[$£€¥]?\d[\d,]*(?:\.\d+)?%?(?:[–—-]\d+)?s?"
    r"|°[A-Z]|[^\W\d_]{1,3}[²³])"
    r"""[)\]"'”’]*[.,;:!?]?[)\]"'”’]*$"""
)


def looks_like_prose(line: str) -> bool:
    """Sentences, not code: mostly plain words and no statement-like start. A sentence
    dense with facts (dates, measures, names in other scripts) is prose: it is often
    the very sentence that answers "when", "how much" or "who"."""
    stripped = line.strip()
    if not stripped or "`" in stripped or _CODE_START.search(stripped):
        return False
    tokens = stripped.split()
    plain = sum(bool(_PLAIN_WORD.match(token)) for token in tokens)
    return plain / len(tokens) >= 0.7


def sentence_key(sentence: str) -> str:
    """A sentence without markers, marks, Markdown and case: what "the same" compares."""
    text = _MARKER.sub("", sentence).replace(UNSUPPORTED_MARK, "")
    return " ".join(re.sub(r"[*_`>#]", "", text).lower().split()).strip(" .!?:;")


def _claim(sentence: str) -> str:
    return " ".join(_MARKER.sub("", _LIST_PREFIX.sub("", sentence)).split())


def sentence_claim(sentence: str) -> str:
    """``sentence`` as :attr:`Attribution.unsupported_sentences` lists it: no list
    bullet, no citation marker, no unsupported mark, spaces collapsed - so a caller can
    find a listed sentence again in the answer."""
    return _claim(sentence.replace(UNSUPPORTED_MARK, ""))


def _names_a_source(sentence: str, titles: set[str]) -> bool:
    """Whether ``sentence`` is only a source's title, as a quoted passage's "(Super Bowl
    50, paragraph 44)" is: a document's heading repeats its title, so the title was
    found in the source and cited a second time, "[1] (Super Bowl 50, paragraph 44) [1]".
    A title names a source; it says nothing a source could support."""
    return sentence_key(sentence).strip("() ") in titles


def _title_keys(sources: Sequence[_Source]) -> set[str]:
    """The sources' titles as :func:`_names_a_source` compares them: keyed and without
    the brackets around them, which for a title ending in its own "(... documentation)"
    are its last character too."""
    return {sentence_key(source.title).strip("() ") for source in sources}


def _considered(sentence: str, claim: str) -> bool:
    """A factual prose sentence: enough content words, no question, not code or a note."""
    stripped = sentence.strip()
    if not claim or claim.endswith("?") or stripped.startswith(("_", "|", "#", ">")):
        return False
    if not looks_like_prose(_INLINE_CODE.sub("code", claim)):
        return False
    return len(content_words(claim)) >= MIN_WORDS


class _Matcher:
    """Finds the strongest support for a claim among the sources.

    Cheapest first: a source is looked at only when it shares enough of the claim's
    words (a strongly supported claim shares most of them), an exact span is a string
    search, and the full checks (:meth:`SourceIndex.check`, whose index costs more to
    build than the check itself) run only for the few best candidates, built once.
    """

    def __init__(self, sources: dict[int, _Source]) -> None:
        self.sources = sources
        self._stems = [(number, source.stems) for number, source in sources.items()]

    def strongest(self, claim: str) -> tuple[int | None, int | None]:
        """(supporting number or None, the best candidate left undecided or None)."""
        words = stems(claim)
        if not words:
            return None, None
        floor = CANDIDATE_OVERLAP * len(words)
        counts = [(len(words.intersection(found)), number) for number, found in self._stems]
        ranked = sorted(((c, -n) for c, n in counts if c >= floor), reverse=True)
        shares = [(count / len(words), -neg) for count, neg in ranked]
        if not shares:
            return None, None
        needle = " ".join(claim.split()).lower()
        for share, number in shares:
            if share < 1.0:
                break
            if needle in self.sources[number].norm:
                return number, None
        best: tuple[int, float, int] | None = None
        keys = key_terms(claim)
        for share, number in shares[:MAX_CANDIDATES]:
            if share < CHECK_OVERLAP:
                break
            if not keys <= self.sources[number].words:
                continue  # a name or number the source lacks: never strong support
            evidence: Evidence = self.sources[number].checked().check(claim)
            if evidence.outcome == "supported":
                key = (_METHOD_RANK.get(evidence.method, 0), evidence.score, -number)
                if best is None or key > best:
                    best = key
        if best is not None:
            return -best[2], None
        return None, shares[0][1]


def _ask_model(model: Completer, claim: str, source: _Source) -> bool:
    """The model's verdict (verification's call): supported, with a verbatim quote."""
    entry = {"number": source.number, "title": source.title, "text": source.text}
    try:
        return model_verdict(model, claim, entry).outcome == "supported"
    except ModelError:
        return False  # no verdict: the sentence stays unsupported


def _insert(sentence: str, addition: str) -> str:
    """``sentence`` with `` addition`` before its final punctuation."""
    match = _TRAILING_PUNCT.search(sentence)
    if match:
        return f"{sentence[: match.start()].rstrip()} {addition}{match.group(1)}"
    return f"{sentence.rstrip()} {addition}"


def _has_valid_citation(text: str) -> bool:
    """Whether ``text`` cites a number that verification did not flag."""
    return any(not m.group(2) for m in _MARKER.finditer(prose_only(text)))


def attribute(
    answer: str,
    sources: Sequence[Source | Mapping[str, Any]],
    *,
    model: Completer | None = None,
    mark_unsupported: bool = False,
    previous: str | None = None,
) -> Attribution:
    """Cite uncited factual sentences of ``answer`` that a source strongly supports.

    See the module docstring. ``model`` is asked (one ``verify`` call each) only about
    sentences the cheap checks left without a verdict; ``mark_unsupported`` appends
    ``^(unsupported)`` to sentences that stay unsupported; ``previous`` restricts the
    work to sentences not already in that earlier text.
    """
    matcher = _Matcher(_sources(sources))
    titles = _title_keys(list(matcher.sources.values()))
    unchanged = set()
    if previous is not None:
        unchanged = {sentence_key(s) for ln in previous.splitlines() for s in split_sentences(ln)}
    added: list[tuple[str, int]] = []
    unsupported: list[str] = []
    calls = 0
    out: list[str] = []
    in_fence = False
    for line in answer.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            out.append(line)
            continue
        if in_fence or not line.strip():
            out.append(line)
            continue
        spans = sentence_spans(line)
        pieces = [line[s:e] for s, e in spans]
        cited = [False] * len(pieces)
        for i, piece in enumerate(pieces):
            lead = _LEADING_MARKERS.match(piece)
            if lead and i > 0 and _has_valid_citation(lead.group(0)):
                cited[i - 1] = True  # "Claim. [2] Next": the marker is the claim's
            own = piece[lead.end():] if lead else piece
            cited[i] = cited[i] or _has_valid_citation(own)
        new_pieces = list(pieces)
        for i, piece in enumerate(pieces):
            lead = _LEADING_MARKERS.match(piece)
            own = piece[lead.end():] if lead else piece
            claim = _claim(own)
            if cited[i] or not _considered(own, claim) or sentence_key(own) in unchanged \
                    or _names_a_source(own, titles):
                continue
            number, undecided = matcher.strongest(claim)
            if number is None and undecided is not None and model is not None:
                calls += 1
                if _ask_model(model, claim, matcher.sources[undecided]):
                    number = undecided
            if number is not None:
                new_pieces[i] = _insert(piece, f"[{number}]")
                added.append((claim, number))
            else:
                unsupported.append(claim)
                if mark_unsupported:
                    new_pieces[i] = _insert(piece, UNSUPPORTED_MARK)
        out.append(_rebuild(line, spans, new_pieces))
    return Attribution("\n".join(out), added, unsupported, calls)


def _rebuild(line: str, spans: list[tuple[int, int]], pieces: list[str]) -> str:
    parts: list[str] = []
    last = 0
    for (start, end), piece in zip(spans, pieces, strict=True):
        parts.append(line[last:start])
        parts.append(piece)
        last = end
    parts.append(line[last:])
    return "".join(parts)


def attribute_sentences(text: str, sources: list[Source]) -> tuple[str, int]:
    """Append ``[n]`` to uncited sentences a source strongly supports; returns the count.

    The answer toolkit's entry point (:func:`deepcite.citations.answer.finalise_reply`),
    kept for it: :func:`attribute` without a model, nothing marked.
    """
    result = attribute(text, sources)
    return result.text, len(result.added)


__all__ = [
    "UNSUPPORTED_MARK",
    "Attribution",
    "attribute",
    "attribute_sentences",
    "looks_like_prose",
    "sentence_claim",
    "sentence_key",
]
