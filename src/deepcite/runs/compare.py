"""Comparing two runs: what sources and claims one has that the other has not.

:func:`compare_runs` takes two stored runs (or two bare results) and says

* **sources** gained (in B, not in A), lost (in A, not in B) and kept, matched by
  canonical URL (:func:`deepcite.search.urls.canonical_url`, the registry's own key) -
  passages of one document sharing a URL pair by identical snippet first, then in
  number order - with the number each kept source has in both (A's [3] is B's [5]);
* **claims**: the cited sentences of both answers (their citation checks), matched on
  the sentence as :func:`deepcite.citations.attribution.sentence_key` compares them: a
  claim's *support* is its best verdict (supported, partial, unsupported); claims whose
  support changed, claims lost and gained, and single citations of one claim whose
  verdict changed (matched through the source number mapping);
* **verdicts** of two document checks: their claims matched on the claim's text as
  ``sentence_key`` compares it, each claim whose verdict differs (or that only one check
  has: a claim added or removed between two versions of a document), with the notes
  that say why;
* **headline figures** side by side (verification counts, sources, model calls, tokens,
  wall seconds) with question, mode, strategy, handler and model;
* **settings**: the dotted keys whose values differ between the two settings snapshots
  (stored runs only; a bare result has none). Secrets never show: snapshots hold none,
  and any key named like a credential, or a password in a URL, is hidden again here.

:func:`deepcite.runs.compare_markdown.comparison_markdown` renders the comparison for a
terminal or a Markdown file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from deepcite.citations.attribution import sentence_key
from deepcite.search.urls import canonical_url
from deepcite.store.read_models import RunStatus, StoredRun
from deepcite.types import (
    CitationCheck,
    CitationOutcome,
    ClaimVerdict,
    ReportMode,
    ResearchResult,
    Source,
    Verdict,
    VerificationCounts,
)

__all__ = [
    "CitationChange",
    "ClaimChange",
    "ClaimRef",
    "DocumentSources",
    "KeptSource",
    "RunComparison",
    "RunSide",
    "SettingDifference",
    "SourceRef",
    "VerdictChange",
    "compare_runs",
    "document_key",
]

#: Best first: a claim's support is the best verdict any of its citations got.
_RANK: dict[CitationOutcome, int] = {"supported": 2, "partial": 1, "unsupported": 0}
#: Keys whose values are never shown (as the store's snapshot removes them, again).
_SECRET_KEY = re.compile(
    r"(?:^|[_-])(?:api[_-]?key|key|token|secret|password|passwd|pwd|credentials?|auth)$",
    re.IGNORECASE)
_URL_PASSWORD = re.compile(r"^([a-z][a-z0-9+.-]*://[^/@:\s]*):[^/\s]*@", re.IGNORECASE)
HIDDEN = "(hidden)"


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RunSide(_Record):
    """One run's headline: what it was, and what it cost and found.

    ``id``, ``status``, ``created_at`` and ``provider`` are ``None`` for a bare result
    (no stored run around it); ``model`` is the model the run recorded as answering
    (:attr:`ResearchResult.model`), else ``llm.model``, else the GGUF file's name, else
    ``None`` (a run stored before models were recorded, on the provider's default).
    """

    id: str | None = None
    status: RunStatus | None = None
    created_at: datetime | None = None
    question: str
    title: str | None = None
    mode: ReportMode
    strategy: str
    handler: str
    provider: str | None = None
    model: str | None = None
    sources: int
    verification: VerificationCounts | None
    citations: int
    unsupported_sentences: int
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    tokens: int
    wall_seconds: float
    cancelled: bool
    error: str | None = None


class SourceRef(_Record):
    """A source of one run, by its number there."""

    number: int
    title: str
    url: str


class KeptSource(_Record):
    """A source both runs have: ``a_number`` in A is ``b_number`` in B."""

    a_number: int
    b_number: int
    title: str
    url: str

    @property
    def renumbered(self) -> bool:
        return self.a_number != self.b_number


class ClaimRef(_Record):
    """A cited sentence of one run: its best verdict and the numbers it cites there."""

    sentence: str
    support: CitationOutcome
    numbers: list[int]


class ClaimChange(_Record):
    """A sentence both runs cite whose support (best verdict) differs."""

    sentence: str
    a_support: CitationOutcome
    b_support: CitationOutcome
    a_numbers: list[int]
    b_numbers: list[int]


class CitationChange(_Record):
    """One citation both runs make - the same sentence citing the same source (A's
    ``a_number`` is B's ``b_number``) - with a different verdict."""

    sentence: str
    a_number: int
    b_number: int
    a_outcome: CitationOutcome
    b_outcome: CitationOutcome


class VerdictChange(_Record):
    """A claim of two document checks whose verdict differs: ``None`` on the side that
    does not have the claim (it was added to or removed from the document)."""

    text: str
    a_verdict: Verdict | None = None
    b_verdict: Verdict | None = None
    a_note: str = ""
    b_note: str = ""


class SettingDifference(_Record):
    """A dotted settings key whose value differs; ``only_in`` when the other snapshot
    lacks the key (a newer or older deepcite). Secret values show as ``(hidden)``."""

    key: str
    a: JsonValue = None
    b: JsonValue = None
    only_in: Literal["a", "b"] | None = None


class DocumentSources(_Record):
    """One document of a comparison with all its passages: a run cites a document once
    per passage it took, so a list of sources names it once here, with the numbers its
    passages have in A and in B (empty where that run has none of them)."""

    title: str
    url: str
    a_numbers: list[int]
    b_numbers: list[int]
    #: Lost or gained passages of a document whose other passages both runs cite.
    also_kept: bool = False

    @property
    def renumbered(self) -> bool:
        return bool(self.a_numbers and self.b_numbers) and self.a_numbers != self.b_numbers


def document_key(title: str, url: str) -> str:
    """What makes two passages one document: its canonical URL, else its title."""
    return canonical_url(url) if url else f"title:{title}"


def _documents(passages: Iterable[tuple[str, str, int | None, int | None]],
               kept: Iterable[KeptSource] = ()) -> list[DocumentSources]:
    """Passages ``(title, url, a_number, b_number)`` grouped by document (canonical URL,
    else title), in the order of their first passage; those also among ``kept`` say so."""
    kept_keys = {document_key(k.title, k.url) for k in kept}
    groups: dict[str, tuple[str, str, list[int], list[int]]] = {}
    for title, url, a_number, b_number in passages:
        key = document_key(title, url)
        group = groups.setdefault(key, (title, url, [], []))
        if a_number is not None:
            group[2].append(a_number)
        if b_number is not None:
            group[3].append(b_number)
    return [DocumentSources(title=title, url=url, a_numbers=sorted(a), b_numbers=sorted(b),
                            also_kept=key in kept_keys)
            for key, (title, url, a, b) in groups.items()]


class RunComparison(_Record):
    """What :func:`compare_runs` found; see the module docstring."""

    a: RunSide
    b: RunSide
    same_question: bool
    sources_gained: list[SourceRef]
    sources_lost: list[SourceRef]
    sources_kept: list[KeptSource]
    claims_changed: list[ClaimChange]
    claims_lost: list[ClaimRef]
    claims_gained: list[ClaimRef]
    claims_unchanged: int
    citations_changed: list[CitationChange]
    #: Claims of two document checks whose verdict changed, added or removed (empty
    #: unless both runs are checks), and how many kept their verdict.
    verdicts_changed: list[VerdictChange] = Field(default_factory=list)
    verdicts_unchanged: int = 0
    #: Whether both were stored runs, so their settings could be compared.
    settings_compared: bool
    settings_differences: list[SettingDifference]

    def b_number(self, a_number: int) -> int | None:
        """The number B gives A's source ``a_number`` (``None``: B lacks that source)."""
        return next((k.b_number for k in self.sources_kept if k.a_number == a_number), None)

    def kept_documents(self) -> list[DocumentSources]:
        """:attr:`sources_kept` by document: each document once, with its passages'
        numbers in A and in B."""
        return _documents((k.title, k.url, k.a_number, k.b_number) for k in self.sources_kept)

    def lost_documents(self) -> list[DocumentSources]:
        """:attr:`sources_lost` by document (numbers in A only)."""
        return _documents(((s.title, s.url, s.number, None) for s in self.sources_lost),
                          self.sources_kept)

    def gained_documents(self) -> list[DocumentSources]:
        """:attr:`sources_gained` by document (numbers in B only)."""
        return _documents(((s.title, s.url, None, s.number) for s in self.sources_gained),
                          self.sources_kept)


# ------------------------------------------------------------------- comparing


def compare_runs(a: StoredRun | ResearchResult, b: StoredRun | ResearchResult
                 ) -> RunComparison:
    """Compare run ``a`` with run ``b`` (stored runs or bare results); see the module
    docstring for what is matched and how."""
    result_a, result_b = _result(a), _result(b)
    gained, lost, kept = _match_sources(result_a.sources, result_b.sources)
    mapping = {k.a_number: k.b_number for k in kept}
    changed, claims_lost, claims_gained, unchanged, citations = _match_claims(
        result_a.citation_checks, result_b.citation_checks, mapping)
    verdicts, same_verdicts = ((_match_verdicts(result_a.claims, result_b.claims))
                               if result_a.mode == result_b.mode == "check" else ([], 0))
    both_stored = isinstance(a, StoredRun) and isinstance(b, StoredRun)
    settings = (_settings_differences(a.settings, b.settings)
                if isinstance(a, StoredRun) and isinstance(b, StoredRun) else [])
    return RunComparison(
        a=_side(a), b=_side(b),
        same_question=" ".join(result_a.question.split()).casefold()
        == " ".join(result_b.question.split()).casefold(),
        sources_gained=gained, sources_lost=lost, sources_kept=kept,
        claims_changed=changed, claims_lost=claims_lost, claims_gained=claims_gained,
        claims_unchanged=unchanged, citations_changed=citations,
        verdicts_changed=verdicts, verdicts_unchanged=same_verdicts,
        settings_compared=both_stored, settings_differences=settings)


def _result(run: StoredRun | ResearchResult) -> ResearchResult:
    return run.result if isinstance(run, StoredRun) else run


def _side(run: StoredRun | ResearchResult) -> RunSide:
    result = _result(run)
    metrics = result.metrics
    provider = model = None
    stored = run if isinstance(run, StoredRun) else None
    if stored is not None:
        llm = stored.settings.get("llm")
        if isinstance(llm, Mapping):
            provider = _text(llm.get("provider"))
            model = _text(llm.get("model"))
            gguf = _text(llm.get("gguf_path"))
            if model is None and gguf:
                model = re.split(r"[\\/]", gguf)[-1]
    model = result.metrics.model or model  # what answered, where the settings say ``auto``
    return RunSide(
        id=stored.id if stored else None, status=stored.status if stored else None,
        created_at=stored.created_at if stored else None,
        question=result.question, title=result.title, mode=result.mode,
        strategy=result.strategy, handler=result.handler, provider=provider, model=model,
        sources=len(result.sources), verification=result.verification,
        citations=len(result.citation_checks),
        unsupported_sentences=len(result.unsupported_sentences),
        model_calls=metrics.model_calls, prompt_tokens=metrics.prompt_tokens,
        completion_tokens=metrics.completion_tokens,
        tokens=metrics.prompt_tokens + metrics.completion_tokens,
        wall_seconds=metrics.wall_seconds, cancelled=result.cancelled, error=result.error)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _source_key(source: Source) -> str:
    return canonical_url(source.url or source.canonical_url)


def _snippet_key(source: Source) -> str:
    return " ".join(source.snippet.split())


def _match_sources(a: list[Source], b: list[Source]
                   ) -> tuple[list[SourceRef], list[SourceRef], list[KeptSource]]:
    """Gained, lost and kept sources (see the module docstring for the matching)."""
    by_url_b: dict[str, list[Source]] = {}
    for source in sorted(b, key=lambda s: s.number):
        by_url_b.setdefault(_source_key(source), []).append(source)
    kept: list[KeptSource] = []
    unmatched_a: list[Source] = []
    by_url_a: dict[str, list[Source]] = {}
    for source in sorted(a, key=lambda s: s.number):
        by_url_a.setdefault(_source_key(source), []).append(source)
    for url, group in by_url_a.items():
        candidates = by_url_b.get(url, [])
        rest: list[Source] = []
        for source in group:  # the same passage first ...
            twin = next((c for c in candidates if _snippet_key(c) == _snippet_key(source)),
                        None)
            if twin is None:
                rest.append(source)
            else:
                candidates.remove(twin)
                kept.append(_kept(source, twin))
        for source in rest:  # ... then other passages of the document, in number order
            if candidates:
                kept.append(_kept(source, candidates.pop(0)))
            else:
                unmatched_a.append(source)
    gained = sorted((s for group in by_url_b.values() for s in group), key=lambda s: s.number)
    kept.sort(key=lambda k: k.a_number)
    unmatched_a.sort(key=lambda s: s.number)
    return [_ref(s) for s in gained], [_ref(s) for s in unmatched_a], kept


def _kept(a: Source, b: Source) -> KeptSource:
    return KeptSource(a_number=a.number, b_number=b.number, title=b.title or a.title,
                      url=b.url or a.url)


def _ref(source: Source) -> SourceRef:
    return SourceRef(number=source.number, title=source.title, url=source.url)


class _Claim:
    """The citation checks of one sentence, in one run."""

    def __init__(self, sentence: str) -> None:
        self.sentence = sentence
        self.verdicts: dict[int, CitationOutcome] = {}

    def add(self, check: CitationCheck) -> None:
        known = self.verdicts.get(check.number)
        if known is None or _RANK[check.outcome] > _RANK[known]:
            self.verdicts[check.number] = check.outcome

    @property
    def support(self) -> CitationOutcome:
        return max(self.verdicts.values(), key=lambda outcome: _RANK[outcome])

    @property
    def numbers(self) -> list[int]:
        return sorted(self.verdicts)

    def ref(self) -> ClaimRef:
        return ClaimRef(sentence=self.sentence, support=self.support, numbers=self.numbers)


def _claims(checks: Iterable[CitationCheck]) -> dict[str, _Claim]:
    claims: dict[str, _Claim] = {}
    for check in checks:
        key = sentence_key(check.sentence)
        if key:
            claims.setdefault(key, _Claim(check.sentence)).add(check)
    return claims


def _match_claims(a: list[CitationCheck], b: list[CitationCheck], mapping: dict[int, int]
                  ) -> tuple[list[ClaimChange], list[ClaimRef], list[ClaimRef], int,
                             list[CitationChange]]:
    claims_a, claims_b = _claims(a), _claims(b)
    changed: list[ClaimChange] = []
    citations: list[CitationChange] = []
    unchanged = 0
    for key, claim in claims_a.items():
        other = claims_b.get(key)
        if other is None:
            continue
        if claim.support != other.support:
            changed.append(ClaimChange(sentence=claim.sentence, a_support=claim.support,
                                       b_support=other.support, a_numbers=claim.numbers,
                                       b_numbers=other.numbers))
        else:
            unchanged += 1
        for number, outcome in sorted(claim.verdicts.items()):
            mapped = mapping.get(number)
            theirs = other.verdicts.get(mapped) if mapped is not None else None
            if mapped is not None and theirs is not None and theirs != outcome:
                citations.append(CitationChange(sentence=claim.sentence, a_number=number,
                                                b_number=mapped, a_outcome=outcome,
                                                b_outcome=theirs))
    lost = [claim.ref() for key, claim in claims_a.items() if key not in claims_b]
    gained = [claim.ref() for key, claim in claims_b.items() if key not in claims_a]
    return changed, lost, gained, unchanged, citations


def _match_verdicts(a: list[ClaimVerdict], b: list[ClaimVerdict]
                    ) -> tuple[list[VerdictChange], int]:
    """The claims whose verdict differs between two checks, in A's order then B's new
    ones, and how many kept theirs; claims are matched by their text (``sentence_key``:
    case, spacing and punctuation aside), a repeated claim by its first occurrence."""
    by_key_b: dict[str, ClaimVerdict] = {}
    for claim in b:
        by_key_b.setdefault(sentence_key(claim.text) or claim.text, claim)
    changes: list[VerdictChange] = []
    unchanged = 0
    seen: set[str] = set()
    for claim in a:
        key = sentence_key(claim.text) or claim.text
        if key in seen:
            continue
        seen.add(key)
        other = by_key_b.get(key)
        if other is not None and other.verdict == claim.verdict:
            unchanged += 1
            continue
        changes.append(VerdictChange(
            text=claim.text, a_verdict=claim.verdict, a_note=claim.note,
            b_verdict=other.verdict if other is not None else None,
            b_note=other.note if other is not None else ""))
    changes += [VerdictChange(text=claim.text, b_verdict=claim.verdict, b_note=claim.note)
                for key, claim in by_key_b.items() if key not in seen]
    return changes, unchanged


def _flatten(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            yield from _flatten(value, f"{dotted}.")
        else:
            yield dotted, value


def _shown(key: str, value: Any) -> JsonValue:
    """``value`` as it may be shown: hidden for a credential-like key, URL passwords
    removed, anything that is not JSON data written as text."""
    if value is not None and _SECRET_KEY.search(key.rsplit(".", 1)[-1]):
        return HIDDEN
    if isinstance(value, str):
        return _URL_PASSWORD.sub(r"\1@", value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, list | tuple):
        return [_shown(key, item) for item in value]
    if isinstance(value, Mapping):  # an empty table (non-empty ones are flattened)
        return {str(k): _shown(f"{key}.{k}", v) for k, v in value.items()}
    return str(value)


def _settings_differences(a: Mapping[str, Any], b: Mapping[str, Any]
                          ) -> list[SettingDifference]:
    flat_a, flat_b = dict(_flatten(a)), dict(_flatten(b))
    differences: list[SettingDifference] = []
    for key in sorted(flat_a.keys() | flat_b.keys()):
        if key not in flat_b:
            differences.append(SettingDifference(key=key, a=_shown(key, flat_a[key]),
                                                 only_in="a"))
        elif key not in flat_a:
            differences.append(SettingDifference(key=key, b=_shown(key, flat_b[key]),
                                                 only_in="b"))
        elif flat_a[key] != flat_b[key]:
            differences.append(SettingDifference(key=key, a=_shown(key, flat_a[key]),
                                                 b=_shown(key, flat_b[key])))
    return differences
