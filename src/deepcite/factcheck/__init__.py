"""Checking a document claim by claim against the run's sources (``deepcite check``).

A person's draft, a report from another tool, meeting notes: :func:`read_document`
reads the file, :func:`split_claims` finds its checkable claims with their offsets,
:func:`run_check` researches and judges each one with a
:class:`~deepcite.research.Researcher` - ``supported``, ``partly_supported``,
``contradicted`` (naming the source's own value) or ``not_found`` - and the renderers
show the result: :func:`render_markdown`, :func:`render_html`, :func:`render_docx`,
:func:`check_json`. ``docs/check.md`` describes what a check does and its limits.

The package sits between :mod:`deepcite.runs` (which records and runs a check like any
run) and :mod:`deepcite.research` (whose Researcher, searches and budget it uses):
``claims`` (what a claim is), ``value``, ``values``, ``units``, ``dates``, ``names``,
``negation`` (the values, names and denials a text states and how two compare),
``terms`` (the words a claim and a sentence share), ``meaning`` (how close in meaning,
with the embeddings extra), ``passages`` (the sentences a claim is matched to),
``conflicts`` (where they disagree), ``restrictions`` (their scopes), ``judge`` (a verdict
without a model), ``model_judge`` (a capable model's,
for claims left undecided), ``check`` (the run), ``render`` (the outputs) and
``document`` (a file's text).
"""

from deepcite.factcheck.check import run_check
from deepcite.factcheck.claims import Claim, split_claims
from deepcite.factcheck.document import read_document
from deepcite.factcheck.render import (
    VERDICT_LABELS,
    check_json,
    counts,
    render_docx,
    render_html,
    render_markdown,
)

__all__ = ["VERDICT_LABELS", "Claim", "check_json", "counts", "read_document",
           "render_docx", "render_html", "render_markdown", "run_check", "split_claims"]
