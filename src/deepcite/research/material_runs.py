"""Runs built on the user's materials: analyse once, then give each run its evidence.

The materials library (:mod:`deepcite.materials`) knows materials; this module knows
runs. :func:`analyse_materials` prepares them for a question (normalise, summarise,
budget) and makes the one call that analyses the question against them, which returns
the relevance map (claims, gaps). :meth:`Materials.brief` then gives one run - a quick
answer, a report's summary or one of its parts - what it builds on:

- **evidence**: passages of the materials bound to the part (all usable ones for a
  quick answer), chosen by relevance to the part - ranked against the claims the part
  may make from them, whose excerpts are in the material's own language, so a Chinese
  paper answering an English question gives its relevant passages, not its first ones
  (:mod:`deepcite.materials.passage_rank`); a short material gives its full text. They
  enter the source numbering as sources (engine ``user_material``, url as given) and
  are cited and verified like any source;
- **the writing contract** (:mod:`deepcite.materials.contract`): each bound material's
  role in the part, the claims it may make from it with their scope, its summary (or
  full text) and the part's gaps, within a share of the model's prompt;
- **what to search**: the analysis call also proposes web queries for the question,
  so a quick answer or a report's summary searches the question and those instead of
  asking the model for queries again (the analysis costs no extra call). In
  ``required`` mode (the user asked to build on the materials) a part its materials
  fully cover searches nothing, and one they do not searches only for their gaps; in
  ``supplementary`` mode a part searches as usual.

Each part's routing is logged as one ``[MATERIAL_ROUTE]`` line, its contract as one
``[MATERIAL_CONTRACT]`` line (ids, roles, counts and cuts; never material text).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from deepcite.citations.handlers import AnswerStyle
from deepcite.errors import DeepciteError
from deepcite.llm.parsing import parse_json_lenient
from deepcite.materials import (
    Claim,
    MaterialAnalysis,
    MaterialBinding,
    SummaryCache,
    UserMaterial,
    analysis_prompt,
    choose_material_ids,
    log_section_route,
    material_passages,
    normalize_bindings,
    overlap_score,
    parse_relevance,
    prepare_materials,
    section_coverage,
    with_relevance,
)
from deepcite.materials.contract import ContractMaterial, WritingContract, build_contract, role_of
from deepcite.materials.evidence import material_title
from deepcite.materials.passage_rank import load_passage_encoder, rank_passages, summary_target
from deepcite.materials.prompts import ANALYSIS_PURPOSE
from deepcite.materials.relevance_map import FALLBACK_GAP
from deepcite.materials.routing import log_material_first
from deepcite.research.researcher import Researcher
from deepcite.security.terminal import one_line
from deepcite.types import ResearchResult, SearchResult

if TYPE_CHECKING:
    from deepcite.collections.index.embeddings import TextEncoder

logger = logging.getLogger(__name__)

#: Passages of one summarised material given to one run at most (the best for it).
PASSAGES_PER_MATERIAL = 4
#: Passages of a short material (used whole, ``fulltext``) given to one run at most:
#: its full text, as citable sources.
FULLTEXT_PASSAGES = 12
#: Share of the model's prompt budget the writing contract may take; the sources and
#: the written context share the rest.
CONTRACT_SHARE = 0.4
#: The contract's room when the caller gives no prompt budget.
UNBOUNDED_CHARS = 1_000_000
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
    """What one run takes from the materials: its evidence, what it searches, and the
    writing contract its writer is given (``None`` when no material is bound)."""

    ids: list[str]
    evidence: tuple[SearchResult, ...]
    search_queries: tuple[str, ...] | None
    contract: WritingContract | None = None
    bindings: tuple[MaterialBinding, ...] = ()

    def style(self, base: AnswerStyle | None) -> AnswerStyle | None:
        """``base`` (the default answer style when ``None``) with the contract after its
        system prompt; ``base`` itself when there is no contract."""
        if self.contract is None:
            return base
        base = base or AnswerStyle()
        return dataclasses.replace(base, system=f"{base.system}\n\n{self.contract.text}")


@dataclass
class Materials:
    """The analysed materials of one request and their citable passages."""

    analysis: MaterialAnalysis
    passages: dict[str, list[SearchResult]]
    warnings: list[str]
    #: Web queries the analysis call proposed for the whole question (may be empty).
    queries: list[str] = dataclasses.field(default_factory=list)
    #: Embeds passages and targets when dense retrieval is on (else lexical ranking).
    encoder: TextEncoder | None = None

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

    def bindings(self, ids: Sequence[str], declared: Sequence[object] = ()
                 ) -> list[MaterialBinding]:
        """One binding per id of ``ids``, with the role and claims ``declared`` gives it
        (the outline's bindings: :class:`MaterialBinding`, mappings or ids; others'
        are ignored), through :func:`normalize_bindings`."""
        wanted = set(ids)
        raw = [*(b for b in declared if _binding_id(b) in wanted), *ids]
        return [b for b in normalize_bindings(raw, self.ids) if b.material_id in wanted]

    def plan(self, query: str, ids: Sequence[str], *, limit: int,
             whole_question: bool = False, bindings: Sequence[object] = (),
             budget_chars: int | None = None) -> MaterialPlan:
        """Evidence, searches and writing contract for a run on ``query`` bound to ``ids``.

        ``whole_question`` (a quick answer, a report's summary) lets the run search the
        question and the queries the analysis call proposed, instead of asking the
        model for queries again. ``bindings`` are the outline's (roles, claims);
        ``budget_chars`` (the model's prompt budget) bounds the contract to
        :data:`CONTRACT_SHARE` of it.
        """
        chosen = self.bindings(ids, bindings)
        claims = {b.material_id: self._claims(query, b) for b in chosen}
        evidence = self.evidence(query, ids, limit=limit, claims=claims)
        searches: tuple[str, ...] | None = None
        if whole_question and self.queries:
            searches = tuple(dict.fromkeys([query, *self.queries]))
        coverage = section_coverage(list(ids), self.analysis) if ids else None
        if self.required and coverage is not None:
            if coverage.fully_covered:
                searches = ()
                log_material_first(coverage, self.analysis, section=query)
            else:
                gaps = [g for g in coverage.gaps if g and g != FALLBACK_GAP]
                searches = tuple(dict.fromkeys(gaps))[:MAX_GAP_QUERIES] or searches
        contract = None
        if chosen and coverage is not None:
            given = {p.metadata.get("material_id"): 0 for p in evidence}
            for p in evidence:
                given[p.metadata.get("material_id")] += 1
            parts = [self._contract_material(b, claims[b.material_id],
                                             given.get(b.material_id, 0)) for b in chosen]
            room = int(budget_chars * CONTRACT_SHARE) if budget_chars else UNBOUNDED_CHARS
            contract = build_contract([p for p in parts if p is not None], coverage.gaps,
                                      budget_chars=room)
        return MaterialPlan(list(ids), evidence, searches, contract, tuple(chosen))

    def evidence(self, query: str, ids: Sequence[str], *, limit: int,
                 claims: Mapping[str, Sequence[Claim]] | None = None
                 ) -> tuple[SearchResult, ...]:
        """The passages of the ``ids`` materials most relevant to the part, ``limit`` in
        all but every material at least once (round robin), so no bound material is
        left out: a short material (``fulltext``) gives all of its passages (at most
        :data:`FULLTEXT_PASSAGES`), a longer one its :data:`PASSAGES_PER_MATERIAL`
        best, ranked against the part's claims (:func:`rank_passages`)."""
        ranked = []
        for material_id in ids:
            passages = self.passages.get(material_id, [])
            item = self.analysis.item(material_id)
            if not passages or item is None:
                continue
            part_claims = (claims or {}).get(material_id) or ()
            excerpts = [c.evidence_excerpt for c in part_claims if c.evidence_excerpt]
            if not part_claims:
                excerpts = [summary_target(item.summary)]
            order = rank_passages([p.snippet for p in passages], excerpts=excerpts,
                                  claims=[f"{c.claim} {c.scope}" for c in part_claims],
                                  query=query, encoder=self.encoder)
            quota = (FULLTEXT_PASSAGES if item.summary_kind == "fulltext"
                     else PASSAGES_PER_MATERIAL)
            ranked.append([passages[i] for i in order[:quota]])
        chosen: list[SearchResult] = []
        depth_max = max((len(r) for r in ranked), default=0)
        for depth in range(depth_max):
            for passages in ranked:
                if depth < len(passages) and len(chosen) < max(limit, len(ranked)):
                    chosen.append(passages[depth])
        return tuple(chosen)

    def _claims(self, query: str, binding: MaterialBinding) -> list[Claim]:
        """The material's claims for this part: those the binding names first, then
        the rest by shared words with the part's query, then by confidence."""
        record = self.analysis.relevance_of(binding.material_id)
        if record is None:
            return []
        named = {c.casefold() for c in binding.claims}
        extra = [Claim(claim=c) for c in binding.claims
                 if all(c.casefold() != x.claim.casefold() for x in record.claims)]
        ordered = sorted(record.claims, key=lambda c: (
            c.claim.casefold() not in named, -overlap_score(query, f"{c.claim} {c.scope}"),
            -c.confidence))
        return [*ordered, *extra]

    def _contract_material(self, binding: MaterialBinding, claims: Sequence[Claim],
                           given: int) -> ContractMaterial | None:
        item = self.analysis.item(binding.material_id)
        if item is None:
            return None
        record = self.analysis.relevance_of(binding.material_id)
        relevance = record.relevance if record is not None else "contextual"
        return ContractMaterial(
            material_id=item.material_id, title=material_title(item.material),
            role=role_of(binding.role, relevance), relevance=relevance,
            text=item.summary, kind=item.summary_kind, claims=tuple(claims),
            limitations=tuple(record.limitations if record else ()),
            analysed=record is not None and not record.fallback,
            in_sources=given > 0 and given >= len(self.passages.get(item.material_id, [])),
        )


def _binding_id(binding: object) -> object:
    if isinstance(binding, MaterialBinding):
        return binding.material_id
    if isinstance(binding, Mapping):
        return binding.get("material_id", binding.get("id"))
    return binding


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
    warnings += analysis.evidence_notes()  # how much of each material the model saw
    passages = {item.material_id: material_passages(item.material) for item in analysis.items}
    encoder = load_passage_encoder(researcher.settings) if analysis.items else None
    return Materials(analysis, passages, warnings, queries, encoder)


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
    if plan.contract is not None:
        roles = ",".join(f"{m.material_id}:{m.role}" for m in plan.contract.materials)
        logger.info("[MATERIAL_CONTRACT] section=%r materials=%s claims=%d gaps=%d cut=%d",
                    one_line(section), roles or "-",
                    sum(len(m.claims) for m in plan.contract.materials),
                    len(plan.contract.gaps), len(plan.contract.cuts))
    log_section_route(section, declared, len(plan.ids), material_docs,
                      len(result.sources) - material_docs, plan.ids)
