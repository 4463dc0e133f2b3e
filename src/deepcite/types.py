"""Data that crosses module boundaries.

These are plain, typed records: search results as engines return them, sources as the
:class:`~deepcite.citations.SourceNumbering` numbers them, the events a run emits and the
result it returns. They import nothing else of deepcite so every layer can use them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SearchResult(_Record):
    """One hit from a search engine, before it becomes a numbered source.

    ``title``, ``url`` and ``snippet`` are always present and non-empty: engines drop
    half-filled hits instead of passing them on. ``metadata`` carries what an engine
    knows beyond that (collection, path, page, offsets, score, doi, authors ...).
    """

    title: str = Field(min_length=1)
    url: str = Field(min_length=1)
    snippet: str = Field(min_length=1)
    engine: str
    full_text: str | None = None
    published: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class Source(_Record):
    """A search result that entered the registry and got its permanent number ``n``."""

    number: int = Field(ge=1)
    title: str
    url: str
    canonical_url: str
    snippet: str
    engine: str
    full_text: str | None = None
    published: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def text(self) -> str:
        """The fullest text known for this source: full text when fetched, else the snippet."""
        return self.full_text or self.snippet


#: The phases a run announces in :class:`PhaseStarted` (and names findings after).
#: ``index`` (building the demo collection's index), ``materials`` (analysing the
#: user's materials) and ``outline`` (a detailed report's outline) come without
#: ``step``/``total``: they are the run's own steps, not a strategy's. ``check`` is one
#: claim of a document check, ``step`` of ``total`` the claim's number of all of them.
PhaseName = Literal["questions", "search", "relevance", "topics", "agent", "synthesis",
                    "index", "materials", "outline", "verify", "check"]

#: The machine-readable code of every warning a run can give (:class:`RunWarning`,
#: :class:`RunNotice`). Front ends and scripts match on these, so a new warning gets a
#: new code here rather than reusing a near one.
WarningCode = Literal[
    "agent_budget",           # the agent used all its turns without answering
    "budget",                 # a run budget (research.max_*) stopped the run early
    "cancelled",              # the run was cancelled (by its user, or its client went away)
    "claim_failed",           # one claim of a check could not be judged; the rest were
    "engine_failed",          # one search on one engine failed
    "engine_skipped",         # an engine is skipped (circuit open, unavailable offline)
    "fetch_failed",           # a page's full text could not be fetched
    "followups_unusable",     # the model's follow-up queries were unusable
    "handler",                # the citation handler name was unknown; standard was used
    "outline_fallback",       # the model's outline was unusable; a default one was used
    "invalid_citations",      # citations to sources that do not exist were removed
    "materials",              # a material was left out, or the materials' analysis failed
    "materials_ignored",      # materials were given with materials_enabled false
    "no_engines",             # nothing to search
    "other",                  # a stored warning from before codes (or a code since removed)
    "questions_unusable",     # the model's queries were unusable; the question was searched
    "relevance_unusable",     # the relevance filter's reply was unusable; all results kept
    "reply_cut",              # a model reply was cut at the token limit and kept as it came
    "run_failed",             # the run stopped with an error; passages are returned
    "strategy",               # the strategy name was unknown or replaced
    "synthesis_fallback",     # the model's answer was unusable; quoted passages instead
    "topics_unusable",        # the topic grouping was unusable; grouped by document
    "uncited_answer",         # the model cited nothing; passages were appended
    "unsupported_answer",     # no citation of the answer is supported by its sources
    "unsupported_citations",  # verification removed or flagged unsupported citations
    "verify_failed",          # verification itself failed; the answer is unchecked
]

_WARNING_CODES = frozenset(get_args(WarningCode))

CitationOutcome = Literal["supported", "partial", "unsupported"]
CitationMethod = Literal["exact", "fuzzy", "overlap", "model", "none"]


class Finding(_Record):
    """What one phase of a run produced, kept so users can see how an answer came about."""

    phase: str
    question: str
    content: str


class RunMetrics(_Record):
    """Cost of one run. Seconds are wall-clock; tokens as the provider reports them."""

    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0
    search_seconds: float = 0.0
    searches: int = 0
    wall_seconds: float = 0.0
    #: Prompt tokens the provider read from its prompt cache (part of prompt_tokens).
    cached_tokens: int = 0
    #: The model whose calls these are (:attr:`deepcite.llm.client.ChatClient.model_label`):
    #: what answered, where the settings may only say ``auto``. ``None`` in runs stored
    #: before it was recorded; with ``model_calls == 0`` nothing was asked of it.
    model: str | None = None


class CitationCheck(_Record):
    """The verdict on one citation: source ``number`` cited for ``sentence``.

    ``source_number``/``start``/``end``/``quote`` give the evidence span (character
    offsets into that source's text, ``text[start:end] == quote``) when one was found;
    they are ``None`` otherwise (always for unsupported citations). Defined here, not
    in the verifier, so results can carry it without importing the citation package.
    """

    number: int
    sentence: str
    outcome: CitationOutcome
    method: CitationMethod
    source_number: int | None = None
    start: int | None = None
    end: int | None = None
    quote: str | None = None


class VerificationCounts(_Record):
    """What citation verification counted for one answer.

    ``markers_checked`` counts citation numbers read, ``markers_removed`` those that
    resolved to no source; ``supported``/``partial``/``unsupported`` count the verdicts;
    ``undecided`` those the cheap checks could not settle; ``model_calls`` the calls
    verification made; ``unchecked`` the cited sources with no text to check against.
    """

    markers_checked: int = 0
    markers_removed: int = 0
    supported: int = 0
    partial: int = 0
    unsupported: int = 0
    undecided: int = 0
    model_calls: int = 0
    #: Citations of sources whose text was not at hand, kept without a check.
    unchecked: int = 0

    @classmethod
    def total(cls, counts: Sequence[VerificationCounts]) -> VerificationCounts:
        """The counts of several answers added up (a report's parts)."""
        return cls(**{name: sum(int(c.model_dump()[name]) for c in counts)
                      for name in cls.model_fields})


#: What a run produced: a quick answer, a detailed report of researched sections, or a
#: document checked claim by claim (``check``: its ``answer`` is the annotated document,
#: its ``claims`` the verdicts).
ReportMode = Literal["quick", "detailed", "check"]


class OutlineEntry(_Record):
    """One heading of a detailed report's outline.

    ``level`` 1 is a section, 2 a subsection of the section before it; ``purpose`` is
    the one line saying what the part must cover (it steers that part's research);
    ``materials`` the user's materials bound to it.
    """

    title: str = Field(min_length=1)
    purpose: str = ""
    level: Literal[1, 2] = 1
    #: Ids of the user's materials this part is written from (its bindings); empty when
    #: it names none (a subsection then inherits its section's).
    materials: list[str] = Field(default_factory=list)


#: A claim's verdict in a document check (``deepcite check``, issue 48): the sources
#: state it (``supported``), state part of it (``partly_supported``), state something
#: else for the same thing - another number, date, name, or the opposite
#: (``contradicted``) - or say nothing of it (``not_found``).
Verdict = Literal["supported", "partly_supported", "contradicted", "not_found"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)


class ClaimEvidence(_Record):
    """A quote of source ``number`` that decided a claim's verdict, found verbatim in
    the source's text at ``start``..``end`` (character offsets, when known)."""

    number: int = Field(ge=1)
    quote: str
    start: int | None = None
    end: int | None = None


class ClaimVerdict(_Record):
    """One checkable claim of a checked document and what the sources say of it.

    ``start``/``end`` are character offsets into the document as given, so front ends
    can mark the claim in place; ``citations`` are source numbers of the result's
    ``sources``; ``note`` says why, naming the source's own value when it contradicts
    ("draft: 30 days; source [2]: 90 days").
    """

    number: int = Field(ge=1)
    text: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    verdict: Verdict
    citations: list[int] = Field(default_factory=list)
    evidence: list[ClaimEvidence] = Field(default_factory=list)
    note: str = ""


class RunNotice(_Record):
    """One warning of a result: its machine-readable ``code`` and the ``message`` for
    people (the same pair a :class:`RunWarning` event carried while the run went on)."""

    code: WarningCode
    message: str


def _notices(messages: Sequence[Any], codes: Sequence[Any]) -> list[Any]:
    """The old two-list shape of warnings (``warnings`` strings, ``warning_codes`` in the
    same order) as :class:`RunNotice` data; a message without a known code is ``other``.
    Items already in the new shape pass through."""
    notices: list[Any] = []
    for index, item in enumerate(messages):
        if not isinstance(item, str):
            notices.append(item)
            continue
        code = codes[index] if index < len(codes) else None
        known = isinstance(code, str) and code in _WARNING_CODES
        notices.append({"code": code if known else "other", "message": item})
    return notices


class ResearchResult(_Record):
    """The outcome of one research run.

    ``answer`` is the Markdown body *without* a sources block; every ``[n]`` in it
    resolves to an entry of ``sources``. ``cancelled`` runs return what they had.
    ``strategy`` and ``handler`` name what really ran: an unknown name falls back (with
    a warning), and the result says the fallback, not the name that was asked for.
    """

    question: str
    answer: str
    strategy: str
    handler: str
    sources: list[Source] = Field(default_factory=list)
    questions_by_iteration: dict[int, list[str]] = Field(default_factory=dict)
    findings: list[Finding] = Field(default_factory=list)
    metrics: RunMetrics = Field(default_factory=RunMetrics)
    #: What degraded during the run, in the order it happened, each with its code
    #: (``unsupported_answer``: no citation of the answer is supported by its sources).
    warnings: list[RunNotice] = Field(default_factory=list)
    cancelled: bool = False
    error: str | None = None
    #: Counts from citation verification; ``None`` when verification was off.
    verification: VerificationCounts | None = None
    #: One record per checked citation, with its evidence span where one was found.
    citation_checks: list[CitationCheck] = Field(default_factory=list)
    #: Factual sentences of the answer that no source strongly supports, after
    #: verification and attribution (marked in the text with
    #: ``citations.mark_unsupported``).
    unsupported_sentences: list[str] = Field(default_factory=list)
    #: ``quick`` for one answer; ``detailed`` for a report, whose ``answer`` is its
    #: contents list and sections and whose ``sources`` are those of the whole report;
    #: ``check`` for a checked document, whose ``answer`` is the document annotated
    #: claim by claim and whose ``claims`` are the verdicts.
    mode: ReportMode = "quick"
    #: The report's title (detailed reports); front ends and exports fall back to the
    #: question when it is ``None``.
    title: str | None = None
    #: The outline a detailed report was written to (empty for quick answers).
    outline: list[OutlineEntry] = Field(default_factory=list)
    #: A document check's claims, in document order (empty for other runs).
    claims: list[ClaimVerdict] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _read_old_warnings(cls, data: Any) -> Any:
        """Read results stored or exported before warnings were one list: ``warnings``
        as strings with their codes in a parallel ``warning_codes`` (which is dropped)."""
        if not isinstance(data, dict):
            return data
        warnings = data.get("warnings")
        old = isinstance(warnings, list) and any(isinstance(w, str) for w in warnings)
        if not old and "warning_codes" not in data:
            return data
        data = dict(data)
        codes = data.pop("warning_codes", None)
        if isinstance(warnings, list):
            data["warnings"] = _notices(warnings, codes if isinstance(codes, list) else [])
        return data

    def with_warnings(self, warnings: Sequence[tuple[WarningCode, str]]) -> ResearchResult:
        """This result with ``warnings`` (code, message) put before its own: notices
        raised before or around the run (materials switched off, analysed)."""
        if not warnings:
            return self
        added = [RunNotice(code=code, message=message) for code, message in warnings]
        return self.model_copy(update={"warnings": [*added, *self.warnings]})


# ---------------------------------------------------------------------------- events


class _Event(_Record):
    at: float = Field(default_factory=time.time)


class PhaseStarted(_Event):
    """A phase began: ``questions``, ``search``, ``synthesis`` ...

    ``step`` of ``total`` counts the phases the strategy planned, so a front end can
    show how far the run is (``total`` is an upper bound: a run that stops searching
    early jumps to its last step, the answer). ``iterations`` is the strategy's own
    iteration count, which need not be ``research.iterations``.
    """

    kind: Literal["phase_started"] = "phase_started"
    phase: PhaseName
    iteration: int | None = None
    iterations: int | None = None
    step: int | None = None
    total: int | None = None


class QuestionsGenerated(_Event):
    """The queries an iteration will search."""

    kind: Literal["questions_generated"] = "questions_generated"
    iteration: int
    questions: list[str]


class SearchDone(_Event):
    """One query finished on one engine (``error`` set when it failed)."""

    kind: Literal["search_done"] = "search_done"
    iteration: int
    query: str
    engine: str
    results: int
    seconds: float
    error: str | None = None


class SourcesAdded(_Event):
    """Sources entered the registry with these numbers; ``total`` is the registry size."""

    kind: Literal["sources_added"] = "sources_added"
    numbers: list[int]
    total: int


class ModelCall(_Event):
    """One chat model call completed."""

    kind: Literal["model_call"] = "model_call"
    purpose: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached_tokens: int = 0


class RunWarning(_Event):
    """Something degraded but the run goes on (a fallback was taken, an engine failed)."""

    kind: Literal["warning"] = "warning"
    code: WarningCode
    message: str


class OutlineReady(_Event):
    """A detailed report's outline is settled; ``sections`` are the parts to research."""

    kind: Literal["outline_ready"] = "outline_ready"
    entries: list[OutlineEntry]
    fallback: bool = False


class SectionStarted(_Event):
    """A detailed report starts researching part ``index`` of ``total`` (1-based)."""

    kind: Literal["section_started"] = "section_started"
    index: int
    total: int
    title: str


class Finished(_Event):
    """The run ended; ``cancelled`` or ``error`` say how."""

    kind: Literal["finished"] = "finished"
    cancelled: bool = False
    error: str | None = None


Event = Annotated[
    PhaseStarted | QuestionsGenerated | SearchDone | SourcesAdded | ModelCall | RunWarning
    | OutlineReady | SectionStarted | Finished,
    Field(discriminator="kind"),
]
