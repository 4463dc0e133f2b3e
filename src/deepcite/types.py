"""Data that crosses module boundaries.

These are plain, typed records: search results as engines return them, sources as the
:class:`~deepcite.citations.SourceRegistry` numbers them, the events a run emits and the
result it returns. They import nothing else of deepcite so every layer can use them.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


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


class ResearchResult(_Record):
    """The outcome of one research run.

    ``answer`` is the Markdown body *without* a sources block; every ``[n]`` in it
    resolves to an entry of ``sources``. ``cancelled`` runs return what they had.
    """

    question: str
    answer: str
    sources: list[Source] = Field(default_factory=list)
    questions_by_iteration: dict[int, list[str]] = Field(default_factory=dict)
    findings: list[Finding] = Field(default_factory=list)
    metrics: RunMetrics = Field(default_factory=RunMetrics)
    warnings: list[str] = Field(default_factory=list)
    #: The machine-readable code of each warning, in the same order as ``warnings``
    #: (``unsupported_answer``: no citation of the answer is supported by its sources).
    warning_codes: list[str] = Field(default_factory=list)
    cancelled: bool = False
    error: str | None = None
    #: Counts from citation verification (markers_checked, markers_removed, supported,
    #: partial, unsupported, model_calls); empty when verification was off.
    verification: dict[str, int] = Field(default_factory=dict)
    #: One record per checked citation: number, sentence, outcome, method and evidence
    #: span (source_number, start, end, quote) where one was found.
    citation_checks: list[dict[str, Any]] = Field(default_factory=list)


# ---------------------------------------------------------------------------- events


class _Event(_Record):
    at: float = Field(default_factory=time.time)


class PhaseStarted(_Event):
    """A phase began: ``questions``, ``search``, ``synthesis`` ..."""

    kind: Literal["phase_started"] = "phase_started"
    phase: str
    iteration: int | None = None


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


class RunWarning(_Event):
    """Something degraded but the run goes on (a fallback was taken, an engine failed)."""

    kind: Literal["warning"] = "warning"
    code: str
    message: str


class Finished(_Event):
    """The run ended; ``cancelled`` or ``error`` say how."""

    kind: Literal["finished"] = "finished"
    cancelled: bool = False
    error: str | None = None


Event = Annotated[
    PhaseStarted | QuestionsGenerated | SearchDone | SourcesAdded | ModelCall | RunWarning
    | Finished,
    Field(discriminator="kind"),
]
