"""Preparing a request's materials for a run, and applying the model's judgement of them.

:func:`prepare_materials` does everything that needs no question analysis: validate and
deduplicate (:func:`~deepcite.materials.normalize_materials`), summarise (with the
cache), fit the prompt budget, write the manifest, decide the usage mode. Nothing is
dropped for sharing no words with the question. The relevance map comes later, from
the reply of the call that analyses the question (:func:`~deepcite.materials.analysis_prompt`),
through :func:`with_relevance`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from deepcite.materials.budget import build_manifest, fit_budget, prompt_tokens
from deepcite.materials.limits import (
    BUDGET_TOKENS,
    DIRECT_TOKENS,
    MAX_CONCURRENCY,
    MAX_MATERIALS,
    MAX_TOTAL_CHARS,
)
from deepcite.materials.model import UserMaterial
from deepcite.materials.normalize import normalize_materials
from deepcite.materials.records import MaterialAnalysis, MaterialItem
from deepcite.materials.relevance import MaterialRelevance, fallback_relevance
from deepcite.materials.summaries import CachedSummary, CallLimits, Completer, summarise_all
from deepcite.materials.tokens import content_hash, estimate_tokens
from deepcite.materials.usage import usage_mode

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

    ``settings`` is accepted for the run's sake but no setting changes the result yet
    (the limits are module constants with the keyword overrides above). ``cache``
    (usually a :class:`~deepcite.materials.SummaryCache` the caller keeps between turns)
    supplies and receives summaries by content hash. ``client`` makes the summary
    calls; without one, long materials are cut to their head. ``limits`` overrides the
    call sizes, which otherwise shrink to ``client``'s prompt budget. Raises
    :class:`~deepcite.errors.MaterialError` for an invalid material or too much content;
    a failed summary never raises.
    """
    del settings  # no setting applies yet; see the docstring
    kept, dropped = normalize_materials(
        materials, max_materials=max_materials, max_total_chars=max_total_chars
    )
    jobs = [(m, content_hash(m.content), estimate_tokens(m.content)) for m in kept]
    summaries = summarise_all(
        jobs, client, cache,
        limits=limits or CallLimits.for_client(client),
        max_concurrency=max_concurrency,
        direct_tokens=direct_tokens,
    )
    items = [
        MaterialItem(
            material=material, content_hash=digest, tokens=tokens, summary=summary.text,
            summary_kind=summary.kind, summary_tokens=estimate_tokens(summary.text),
            cached=summary.cached,
        )
        for (material, digest, tokens), summary in zip(jobs, summaries, strict=True)
    ]
    items, downgraded = fit_budget(question, items, budget_tokens)
    manifest = build_manifest(items)
    analysis = MaterialAnalysis(
        items=items,
        dropped=dropped,
        downgraded_ids=downgraded,
        manifest=manifest,
        usage_mode=usage_mode(question, bool(items)),
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
