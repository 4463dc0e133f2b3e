"""The records of an evaluation: dataset items, one result per question, a run's config.

They are the contract between the parts of :mod:`deepcite.evaluation`: loaders make
:class:`Dataset`; the runner writes one :class:`QuestionResult` per line of
``results.jsonl`` and the :class:`BenchConfig` to ``config.json``; the summary, the
report and the comparison read those files back. Field names are what the output
files use, so scripts can rely on them; a new field gets a default so older result
folders still load.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

#: The SimpleQA grader's three grades.
Grade = Literal["correct", "incorrect", "not_attempted"]

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
CONFIG_FILE = "config.json"
#: The retrieval cut-off of ``recall_at_5``.
RECALL_K = 5


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class EvalItem(_Record):
    """One question of a dataset.

    ``id`` is stable across loads of the same file (resuming matches on it). ``answers``
    holds every accepted gold answer (SQuAD has several, SimpleQA one).
    ``gold_passage`` names the passage that answers it, when known: a document's file
    name in the collection, its title, or its URL (:func:`deepcite.evaluation.metrics.
    is_gold` matches any of them). ``answerable`` is ``False`` when the dataset says the
    answer is not in the searched documents, ``None`` when it does not say.
    """

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    answers: list[str] = Field(min_length=1)
    gold_passage: str | None = None
    answerable: bool | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class Document(_Record):
    """A passage a dataset brings to be searched (SQuAD's paragraphs).

    ``name`` becomes the file name in the collection built from the dataset, and is
    what an item's ``gold_passage`` refers to.
    """

    name: str = Field(min_length=1)
    title: str = Field(min_length=1)
    text: str = Field(min_length=1)


class Dataset(_Record):
    """A loaded dataset: its questions, and the documents to index when it has any."""

    name: str
    format: Literal["squad", "simpleqa", "table"]
    items: list[EvalItem]
    documents: list[Document] = Field(default_factory=list)
    #: Rows left out because they had no question or no answer.
    skipped: int = 0


class CitedSource(_Record):
    """A source the answer cites, as it was numbered in the run."""

    number: int
    title: str
    url: str


class QuestionResult(_Record):
    """One question's outcome: a line of ``results.jsonl``.

    Quality: ``grade`` (the judge's, ``None`` without a judge or when its reply was
    unusable, then ``judge_error`` says why), ``em`` and ``f1`` of the answer's
    short answer against the best gold answer, ``contains_gold`` when a gold answer
    occurs anywhere in the answer, ``citation_hit`` (a cited source is the gold
    passage) and ``recall_at_5`` (the gold passage is among the run's first five
    documents), both ``None`` without a gold passage.

    Citations, from the verification step: ``citations`` markers in the answer, of
    which ``supported``/``partial``/``unsupported``; ``removed`` markers verification
    or the handler took out; ``fabricated_citations`` markers in the final answer that
    point at no source of the run (counted here from the answer text, not taken from
    the pipeline); ``unsupported_citations`` equals ``unsupported``; ``valid_citation``
    when at least one marker resolves and is supported or partial.

    ``wrong_type_lead``: the bold short answer leading the answer is not of the kind
    the question asks (a year for "how many"); ``None`` without a short answer or a
    kind.

    Refusal: ``refused`` when the answer says nothing was found instead of answering;
    ``gold_in_collection`` whether a gold answer occurs in the searched collections
    (``None`` when nothing local was searched).

    Cost: ``model_calls``, ``prompt_tokens``/``completion_tokens``/``tokens``,
    ``searches`` and wall ``seconds`` of the research run (the judge's calls are not
    counted). ``error`` holds a run's one-line error; the question still counts.
    """

    id: str
    index: int
    question: str
    gold: list[str]
    gold_passage: str | None = None
    answer: str
    grade: Grade | None = None
    judge_error: str | None = None
    em: float = 0.0
    f1: float = 0.0
    contains_gold: bool = False
    citation_hit: bool | None = None
    recall_at_5: bool | None = None
    cited: list[CitedSource] = Field(default_factory=list)
    citations: int = 0
    supported: int = 0
    partial: int = 0
    unsupported: int = 0
    removed: int = 0
    fabricated_citations: int = 0
    unsupported_citations: int = 0
    valid_citation: bool = False
    refused: bool = False
    wrong_type_lead: bool | None = None
    fallback: bool = False
    gold_in_collection: bool | None = None
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens: int = 0
    cached_tokens: int = 0
    searches: int = 0
    seconds: float = 0.0
    warning_codes: list[str] = Field(default_factory=list)
    error: str | None = None


class BenchConfig(_Record):
    """How a results folder was produced: ``config.json``, and the label in reports.

    ``label`` names the configuration in tables and plots (default: strategy,
    provider and model). ``settings`` is the run's settings snapshot without secrets.
    Resuming into a folder requires the same ``dataset``, ``sample`` and ``settings``.
    """

    label: str
    dataset: str
    dataset_format: str
    sample: dict[str, Any] = Field(default_factory=dict)
    strategy: str
    provider: str
    model: str
    judge: str | None = None
    collections: list[str] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)
    deepcite_version: str = ""
    created: float = 0.0
