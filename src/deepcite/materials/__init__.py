"""User materials: documents handed in with a request, used and cited as evidence.

A user gives the documents they already have - papers, reports, notes - with their
question. Their text is evidence from the start: it is summarised (one material per
call, cached by content), judged for relevance by the call that analyses the question,
bound to outline sections, turned into citable passages, and web search looks only for
what the materials do not cover. A material's ``url`` names it and is never fetched.

Flow: :func:`normalize_materials` (validate, dedupe, cap, number) ->
:func:`prepare_materials` (summaries, budget, manifest, usage mode) ->
:func:`analysis_prompt` / :func:`parse_relevance` / :func:`with_relevance` ->
:func:`normalize_bindings` / :func:`choose_material_ids` per section ->
:func:`section_coverage` (may a section skip web search?) ->
:func:`material_passages` (evidence) -> :func:`log_section_route`.

Layering: this package imports types, llm (parsing), collections (loaders, lazily),
security, search.urls, errors and config - never research, report or cli.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcite._lazy import lazy_names
from deepcite.materials.analysis import prepare_materials, with_relevance
from deepcite.materials.bindings import (
    MaterialBinding,
    choose_material_ids,
    normalize_bindings,
    normalize_material_id,
)
from deepcite.materials.chunking import chunk_spans, chunk_text
from deepcite.materials.coverage import MaterialCoverage, SectionCoverage, section_coverage
from deepcite.materials.evidence import material_passages
from deepcite.materials.files import material_from_file, materials_from_json
from deepcite.materials.lexical import overlap_score
from deepcite.materials.limits import (
    BUDGET_TOKENS,
    CHUNK_OVERLAP_TOKENS,
    CHUNK_TOKENS,
    DIGEST_CHARS,
    DIRECT_TOKENS,
    MAX_CONCURRENCY,
    MAX_MATERIALS,
    MAX_TOTAL_CHARS,
    PASSAGE_CHARS,
    SINGLE_CALL_TOKENS,
    SUMMARY_MAX_TOKENS,
)
from deepcite.materials.model import DroppedMaterial, PageSpan, UserMaterial
from deepcite.materials.normalize import normalize_materials
from deepcite.materials.prepared import MaterialAnalysis, MaterialItem, SummaryKind, UsageMode
from deepcite.materials.prompts import analysis_prompt, material_context
from deepcite.materials.relevance_map import (
    Claim,
    MaterialRelevance,
    fallback_relevance,
    parse_relevance,
)
from deepcite.materials.routing import log_missing_material_evidence, log_section_route
from deepcite.materials.summaries import CachedSummary, CallLimits, SummaryCache
from deepcite.materials.summary_store import DiskSummaryCache, summary_cache_for
from deepcite.materials.tokens import content_hash, estimate_tokens

if TYPE_CHECKING:
    from deepcite.materials.usage import is_material_first, usage_mode

# Imported on first use: their phrase patterns cost every ask's start-up, and only a
# run with materials reads a question for them.
__getattr__, __dir__ = lazy_names(__name__, {
    "is_material_first": "deepcite.materials.usage",
    "usage_mode": "deepcite.materials.usage",
})

__all__ = [
    "BUDGET_TOKENS",
    "CHUNK_OVERLAP_TOKENS",
    "CHUNK_TOKENS",
    "DIGEST_CHARS",
    "DIRECT_TOKENS",
    "MAX_CONCURRENCY",
    "MAX_MATERIALS",
    "MAX_TOTAL_CHARS",
    "PASSAGE_CHARS",
    "SINGLE_CALL_TOKENS",
    "SUMMARY_MAX_TOKENS",
    "CachedSummary",
    "CallLimits",
    "Claim",
    "DiskSummaryCache",
    "DroppedMaterial",
    "MaterialAnalysis",
    "MaterialBinding",
    "MaterialCoverage",
    "MaterialItem",
    "MaterialRelevance",
    "PageSpan",
    "SectionCoverage",
    "SummaryCache",
    "SummaryKind",
    "UsageMode",
    "UserMaterial",
    "analysis_prompt",
    "choose_material_ids",
    "chunk_spans",
    "chunk_text",
    "content_hash",
    "estimate_tokens",
    "fallback_relevance",
    "is_material_first",
    "log_missing_material_evidence",
    "log_section_route",
    "material_context",
    "material_from_file",
    "material_passages",
    "materials_from_json",
    "normalize_bindings",
    "normalize_material_id",
    "normalize_materials",
    "overlap_score",
    "parse_relevance",
    "prepare_materials",
    "section_coverage",
    "summary_cache_for",
    "usage_mode",
    "with_relevance",
]
