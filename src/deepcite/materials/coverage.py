"""Whether a section's bound materials already cover it, decided without a model.

A bound material *covers* its part of a section only when all four hold: its text is
usable (there is some, and it is not a mere digest - a ``truncated`` head is real text
and counts), the relevance map gives it claims, its relevance is ``direct`` or
``partial``, and it lists no research gaps. Anything else is ``needs_review``, with the
reasons. A section is ``fully_covered`` when it has at least one binding and every one
covers; only then may a material-first run skip web search for it. The materials'
gaps are collected as the section's search leads. Fallback relevance (no semantic
judgement) never covers: it has no claims and the gap "needs verification".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from deepcite.materials.bindings import MaterialBinding
from deepcite.materials.prepared import MaterialAnalysis

CoverageStatus = Literal["covered", "needs_review"]


class MaterialCoverage(BaseModel):
    """The verdict on one bound material; ``reasons`` say what keeps it from covering."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    material_id: str
    status: CoverageStatus
    reasons: list[str] = Field(default_factory=list)


class SectionCoverage(BaseModel):
    """The verdicts on a section's bound materials, and the gaps left to search."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    materials: list[MaterialCoverage] = Field(default_factory=list)
    fully_covered: bool = False
    gaps: list[str] = Field(default_factory=list)

    @property
    def covered_ids(self) -> list[str]:
        """Ids of the materials that cover their part."""
        return [m.material_id for m in self.materials if m.status == "covered"]

    @property
    def review_ids(self) -> list[str]:
        """Ids of the materials that need review (web search)."""
        return [m.material_id for m in self.materials if m.status == "needs_review"]


def _reasons(material_id: str, analysis: MaterialAnalysis) -> tuple[list[str], list[str]]:
    """Why ``material_id`` does not cover (empty: it does), and its gaps."""
    item = analysis.item(material_id)
    if item is None:
        return ["not a prepared material"], []
    reasons: list[str] = []
    if not item.summary.strip() or item.summary_kind == "digest":
        reasons.append("no usable text" if item.summary_kind != "digest"
                       else "only a digest fits the prompt")
    record = analysis.relevance_of(material_id)
    if record is None:
        return [*reasons, "no relevance analysis"], []
    if not record.claims:
        reasons.append("no supported claims")
    if record.relevance not in ("direct", "partial"):
        reasons.append(f"relevance is {record.relevance}")
    if record.gaps:
        reasons.append("research gaps remain")
    return reasons, list(record.gaps)


def section_coverage(
    bindings: Iterable[MaterialBinding | str], analysis: MaterialAnalysis
) -> SectionCoverage:
    """The coverage of a section bound to ``bindings`` (bindings or bare ids)."""
    verdicts: list[MaterialCoverage] = []
    gaps: list[str] = []
    seen: set[str] = set()
    for binding in bindings:
        material_id = binding.material_id if isinstance(binding, MaterialBinding) else binding
        if material_id in seen:
            continue
        seen.add(material_id)
        reasons, material_gaps = _reasons(material_id, analysis)
        verdicts.append(MaterialCoverage(
            material_id=material_id, status="needs_review" if reasons else "covered",
            reasons=reasons,
        ))
        gaps.extend(gap for gap in material_gaps if gap not in gaps)
    return SectionCoverage(
        materials=verdicts,
        fully_covered=bool(verdicts) and all(v.status == "covered" for v in verdicts),
        gaps=gaps,
    )
