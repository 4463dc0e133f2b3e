"""Preparing a request's materials for a run, and applying the model's judgement of them.

:func:`prepare_materials` does everything that needs no question analysis: validate and
deduplicate (:func:`~deepcite.materials.normalize_materials`), summarise (with the
cache), fit the prompt budget, note each material's evidence quality (what the model is
given for it and how much of it that covers: the manifest line says it, so the analysis
call judges a head-only material as such), write the manifest, decide the usage mode. Nothing is
dropped for sharing no words with the question. The relevance map comes later, from
the reply of the call that analyses the question (:func:`~deepcite.materials.analysis_prompt`),
through :func:`with_relevance`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from deepcite.materials.limits import (
    BUDGET_TOKENS,
    DIRECT_TOKENS,
    MAX_CONCURRENCY,
    MAX_MATERIALS,
    MAX_TOTAL_CHARS,
)
from deepcite.materials.model import UserMaterial
from deepcite.materials.normalize import normalize_materials
from deepcite.materials.prepared import (
    EvidenceQuality,
    MaterialAnalysis,
    MaterialItem,
    UsageMode,
)
from deepcite.materials.prompt_fit import fit_budget, manifest_line, prompt_tokens
from deepcite.materials.relevance_map import MaterialRelevance, fallback_relevance
from deepcite.materials.summaries import CachedSummary, CallLimits, Completer, summarise_all
from deepcite.materials.tokens import content_hash, estimate_tokens

if TYPE_CHECKING:
    from deepcite.config import Settings

logger = logging.getLogger("deepcite.materials")


def prepare_materials(
    question: str,
    materials: Iterable[UserMaterial | Mapping[str, Any]],
    settings: Settings | None = None,
    cache: MutableMapping[str, CachedSummary] | None = None,
    client: Completer | None = None,
    *,
    budget_tokens: int = BUDGET_TOKENS,
    max_materials: int = MAX_MATERIALS,
    max_total_chars: int = MAX_TOTAL_CHARS,
    max_concurrency: int = MAX_CONCURRENCY,
    direct_tokens: int = DIRECT_TOKENS,
    limits: CallLimits | None = None,
) -> MaterialAnalysis:
    """Normalise, summarise and budget ``materials`` for ``question``.

    No setting changes the result (the limits are module constants with the keyword
    overrides above); ``settings.security.redact_material_text`` keeps error details,
    which may echo a prompt, out of the log lines of failed summaries. ``cache``
    (usually a :class:`~deepcite.materials.SummaryCache` the caller keeps between turns)
    supplies and receives summaries by content hash. ``client`` makes the summary
    calls; without one, long materials are cut to their head. ``limits`` overrides the
    call sizes, which otherwise shrink to ``client``'s prompt budget. Raises
    :class:`~deepcite.errors.MaterialError` for an invalid material or too much content;
    a failed summary never raises.
    """
    redact = settings is not None and settings.security.redact_material_text
    kept, dropped = normalize_materials(
        materials, max_materials=max_materials, max_total_chars=max_total_chars
    )
    jobs = [(m, content_hash(m.content), estimate_tokens(m.content)) for m in kept]
    summaries = summarise_all(
        jobs, client, cache,
        limits=limits or CallLimits.for_client(client),
        max_concurrency=max_concurrency,
        direct_tokens=direct_tokens,
        redact=redact,
    )
    items = [
        MaterialItem(
            material=material, content_hash=digest, tokens=tokens, summary=summary.text,
            summary_kind=summary.kind, summary_tokens=estimate_tokens(summary.text),
            cached=summary.cached,
            evidence_quality=EvidenceQuality.of(summary.kind, material.content, summary.text),
        )
        for (material, digest, tokens), summary in zip(jobs, summaries, strict=True)
    ]
    items, downgraded = with_digest_quality(
        items, *fit_budget(question, items, budget_tokens))
    manifest = "\n".join(
        f"{manifest_line(item)} | evidence: {item.evidence_quality.note}" for item in items)
    analysis = MaterialAnalysis(
        items=items,
        dropped=dropped,
        downgraded_ids=downgraded,
        manifest=manifest,
        usage_mode=_usage_mode(question, bool(items)),
        summary_calls=sum(summary.calls for summary in summaries),
        budget_tokens=budget_tokens,
        prompt_tokens=prompt_tokens(items, manifest),
    )
    logger.info(
        "[MATERIAL_ROUTE] materials prepared: items=%d dropped=%d cached_reuse=%d "
        "summary_calls=%d downgraded=%d usage=%s",
        len(items), len(dropped), sum(item.cached for item in items), analysis.summary_calls,
        len(downgraded), analysis.usage_mode,
    )
    return analysis


def with_digest_quality(
    before: list[MaterialItem], after: list[MaterialItem], downgraded: list[str]
) -> tuple[list[MaterialItem], list[str]]:
    """``after`` (``before`` fitted to the budget, same order) with the evidence quality
    of every material cut to a digest saying what the digest was cut from."""
    cut = set(downgraded)
    fixed = [
        item.model_copy(update={"evidence_quality": old.evidence_quality.as_digest(item.summary)})
        if item.material_id in cut else item
        for old, item in zip(before, after, strict=True)
    ]
    return fixed, downgraded


def with_relevance(
    analysis: MaterialAnalysis, relevance: Iterable[MaterialRelevance] | None
) -> MaterialAnalysis:
    """``analysis`` with the model's relevance map applied, one record per item.

    Records for unknown ids are dropped (the first record of an id wins); items the map
    does not mention - or all of them, when ``relevance`` is ``None`` - get the
    conservative :func:`~deepcite.materials.fallback_relevance` record.
    """
    given: dict[str, MaterialRelevance] = {}
    for record in relevance or ():
        if analysis.item(record.material_id) is not None:
            given.setdefault(record.material_id, record)
    missing = [material_id for material_id in analysis.ids if material_id not in given]
    if missing:
        logger.info(
            "[MATERIAL_ROUTE] %s relevance map; generated %d fallback records.",
            "intent omitted" if not given else "partial", len(missing),
        )
    fallback = {record.material_id: record for record in fallback_relevance(missing)}
    records = [given.get(material_id) or fallback[material_id] for material_id in analysis.ids]
    return analysis.model_copy(update={"relevance": records})


def _usage_mode(question: str, has_materials: bool) -> UsageMode:
    """:func:`deepcite.materials.usage.usage_mode`, imported when materials are analysed:
    its phrase patterns took a tenth of a second of every ask's start-up."""
    from deepcite.materials.usage import usage_mode

    return usage_mode(question, has_materials)
