"""The evaluation harness behind ``deepcite bench``: datasets, runs, grades, reports.

``records`` defines what crosses its parts; ``datasets`` loads SimpleQA-format tables and
SQuAD JSON; ``runner`` asks each question through the real research pipeline and
appends a :class:`QuestionResult` per question to ``results.jsonl``; ``judge`` grades
answers with the SimpleQA rubric on any configured model; ``summary`` aggregates;
``report`` writes tables and plots; ``compare`` sets runs side by side with bootstrap
intervals.
"""

from deepcite.evaluation.bench_schema import (
    BenchConfig,
    Dataset,
    Document,
    EvalItem,
    QuestionResult,
)

__all__ = ["BenchConfig", "Dataset", "Document", "EvalItem", "QuestionResult"]
