"""Runs built on the user's materials: analyse once, then give each run its evidence.

The materials library (:mod:`deepcite.materials`) knows materials; this module knows
runs. :func:`analyse_materials` prepares them for a question (normalise, summarise,
budget) and makes the one call that analyses the question against them, which returns
the relevance map (claims, gaps). :meth:`Materials.brief` then gives one run - a quick
answer, a report's summary or one of its parts - what it builds on:

- **evidence**: passages of the materials bound to the part (all usable ones for a
  quick answer), the best for the part's query first; they enter the source numbering as
  sources (engine ``user_material``, url as given) and are cited like any source;
- **what to search**: the analysis call also proposes web queries for the question,
  so a quick answer or a report's summary searches the question and those instead of
  asking the model for queries again (the analysis costs no extra call). In
  ``required`` mode (the user asked to build on the materials) a part its materials
  fully cover searches nothing, and one they do not searches only for their gaps; in
  ``supplementary`` mode a part searches as usual.

Each part's routing is logged as one ``[MATERIAL_ROUTE]`` line.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deepcite.errors import DeepciteError
from deepcite.llm.parsing import parse_json_lenient
from deepcite.materials import (
    MaterialAnalysis,
    SummaryCache,
    UserMaterial,
    analysis_prompt,
    choose_material_ids,
    log_section_route,
    material_passages,
    overlap_score,
    parse_relevance,
    prepare_materials,
    section_coverage,
    with_relevance,
)
from deepcite.materials.prompts import ANALYSIS_PURPOSE
from deepcite.materials.relevance import FALLBACK_GAP
from deepcite.research.researcher import Researcher
from deepcite.types import ResearchResult, SearchResult

logger = logging.getLogger(__name__)

#: Passages of one material given to one run at most (the best for its query).
PASSAGES_PER_MATERIAL = 4
#: Gaps searched for one part at most.
MAX_GAP_QUERIES = 3
#: The analysis call also proposes this many web queries for what the materials leave
#: open, so a run with materials asks for its queries in the same call (no extra one).
QUERIES_NOTE = (
    ' Also give up to 3 short web search queries for what the materials do not cover, '
    'as "queries": ["..."] next to "materials".'
)

MaterialInput = UserMaterial | Mapping[str, Any]


@dataclass(frozen=True)
class MaterialPlan:
    """What one run takes from the materials: its evidence and what it searches."""

    ids: list[str]
    evidence: tuple[SearchResult, ...]
    search_queries: tuple[str, ...] | None


@dataclass
class Materials:
    """The analysed materials of one request and their citable passages."""

    analysis: MaterialAnalysis
    passages: dict[str, list[SearchResult]]
    warnings: list[str]
    #: Web queries the analysis call proposed for the whole question (may be empty).
    queries: list[str] = dataclasses.field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        """Every kept material's id, in input order."""
        return self.analysis.ids

    @property
    def usable_ids(self) -> list[str]:
        """Materials the analysis did not judge irrelevant to the question."""
        irrelevant = {r.material_id for r in self.analysis.relevance
                      if r.relevance == "irrelevant"}
        return [i for i in self.ids if i not in irrelevant]

    @property
    def required(self) -> bool:
        """Whether the user asked to build on the materials (web only for gaps)."""
        return self.analysis.usage_mode == "required"

    def bound(self, declared: Sequence[str] | None, inherited: Sequence[str]) -> list[str]:
        """The materials a part uses: those it declares (known ids only), else those it
        inherits from its section."""
        return choose_material_ids(declared, inherited, self.ids)

    def plan(self, query: str, ids: Sequence[str], *, limit: int,
             whole_question: bool = False) -> MaterialPlan:
        """Evidence and searches for a run on ``query`` bound to ``ids``.

        ``whole_question`` (a quick answer, a report's summary) lets the run search the
        question and the queries the analysis call proposed, instead of asking the
        model for queries again.
        """
        evidence = self.evidence(query, ids, limit=limit)
        searches: tuple[str, ...] | None = None
        if whole_question and self.queries:
            searches = tuple(dict.fromkeys([query, *self.queries]))
        if self.required and ids:
            coverage = section_coverage(list(ids), self.analysis)
            if coverage.fully_covered:
                searches = ()
            else:
                gaps = [g for g in coverage.gaps if g and g != FALLBACK_GAP]
                searches = tuple(dict.fromkeys(gaps))[:MAX_GAP_QUERIES] or searches
        return MaterialPlan(list(ids), evidence, searches)

    def evidence(self, query: str, ids: Sequence[str], *, limit: int
                 ) -> tuple[SearchResult, ...]:
        """The best passages of the ``ids`` materials for ``query``: at most
        :data:`PASSAGES_PER_MATERIAL` each and ``limit`` in all, every material at
        least once (round robin), so no bound material is left out."""
        ranked = []
        for material_id in ids:
            passages = self.passages.get(material_id, [])
            scored = sorted(enumerate(passages),
                            key=lambda p: (-overlap_score(query, p[1].snippet), p[0]))
            ranked.append([p for _, p in scored[:PASSAGES_PER_MATERIAL]])
        chosen: list[SearchResult] = []
        for depth in range(PASSAGES_PER_MATERIAL):
            for passages in ranked:
                if depth < len(passages) and len(chosen) < max(limit, len(ranked)):
                    chosen.append(passages[depth])
        return tuple(chosen)


def analyse_materials(researcher: Researcher, question: str,
                      materials: Sequence[MaterialInput], *,
                      cache: SummaryCache | None = None) -> Materials:
    """Prepare ``materials`` for ``question`` and ask the model for the relevance map.

    The one analysis call (purpose ``material_analysis``) returns, per material, its relevance,
    the claims it supports and its gaps; an unusable reply gives every material the
    conservative fallback (contextual, a gap to verify), so nothing is skipped on a
    guess. Summaries of long materials are one call each (cached by content).
    """
    analysis = prepare_materials(question, materials, researcher.settings, cache,
                                 researcher.client)
    warnings = [f"Material {d.index + 1} was left out: {d.reason.replace('_', ' ')}"
                for d in analysis.dropped]
    relevance = None
    queries: list[str] = []
    if analysis.items:
        system, user = analysis_prompt(question, analysis,
                                       budget_chars=researcher.client.prompt_budget_chars)
        try:
            reply = researcher.client.complete(ANALYSIS_PURPOSE, system + QUERIES_NOTE, user)
            relevance = parse_relevance(reply, analysis.ids)
            queries = _queries(reply, researcher.settings.research.max_query_chars)
        except DeepciteError as exc:
            warnings.append(f"The materials could not be analysed ({exc}); all are used "
                            "as context")
    analysis = with_relevance(analysis, relevance)
    passages = {item.material_id: material_passages(item.material) for item in analysis.items}
    return Materials(analysis, passages, warnings, queries)


def _queries(reply: str, max_chars: int) -> list[str]:
    """The web queries of the analysis reply: short, distinct strings, at most three."""
    data = parse_json_lenient(reply)
    raw = data.get("queries") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        return []
    found = [" ".join(q.split()) for q in raw if isinstance(q, str)]
    return list(dict.fromkeys(q for q in found if 0 < len(q) <= max_chars))[:MAX_GAP_QUERIES]


def log_route(section: str, plan: MaterialPlan, declared: int,
              result: ResearchResult) -> None:
    """One ``[MATERIAL_ROUTE]`` line: what the part declared, used and was given."""
    material_docs = sum(1 for s in result.sources if s.engine == "user_material")
    log_section_route(section, declared, len(plan.ids), material_docs,
                      len(result.sources) - material_docs, plan.ids)
