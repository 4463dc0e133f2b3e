"""The relevance map: what each material can support for this question.

The model call that analyses the question also judges the materials (no extra call):
per material a ``relevance`` (``direct``, ``partial``, ``contextual``, ``irrelevant``),
the ``claims`` it supports (with scope, an excerpt and a confidence), its
``limitations`` and the research ``gaps`` it leaves. Replies are read leniently
(:func:`deepcite.llm.parsing.parse_json_lenient`); ids are normalised and unknown ones
dropped. When the model gives no usable map, :func:`fallback_relevance` marks every
material ``contextual`` with no claims and the gap "needs verification" - conservative
on purpose, so that no section is declared covered without a semantic judgement.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from deepcite.llm.parsing import parse_json_lenient
from deepcite.materials.bindings import normalize_material_id

Relevance = Literal["direct", "partial", "contextual", "irrelevant"]
RELEVANCES: tuple[Relevance, ...] = ("direct", "partial", "contextual", "irrelevant")
FALLBACK_GAP = "needs verification"
DEFAULT_CONFIDENCE = 0.5
_WORD_CONFIDENCE = {"high": 0.9, "medium": 0.6, "moderate": 0.6, "low": 0.3}
_MAP_KEYS = ("materials", "material_relevance_map", "material_relevance", "relevance_map")
MAX_TEXT_CHARS = 1000


class Claim(BaseModel):
    """A claim a material supports: its ``scope`` (where it holds), an
    ``evidence_excerpt`` from the material, and the model's ``confidence`` (0 to 1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    claim: str = Field(min_length=1)
    scope: str = ""
    evidence_excerpt: str = ""
    confidence: float = Field(default=DEFAULT_CONFIDENCE, ge=0.0, le=1.0)


class MaterialRelevance(BaseModel):
    """How one material bears on the question; ``fallback`` when no model judged it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    material_id: str = Field(min_length=1)
    relevance: Relevance
    claims: list[Claim] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)
    fallback: bool = False


def fallback_relevance(ids: Iterable[str]) -> list[MaterialRelevance]:
    """Conservative records for ``ids``: contextual, no claims, gap "needs verification"."""
    return [
        MaterialRelevance(
            material_id=material_id, relevance="contextual", gaps=[FALLBACK_GAP], fallback=True
        )
        for material_id in dict.fromkeys(ids)
    ]


def _text(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return ""
    return " ".join(value.split())[:MAX_TEXT_CHARS]


def _texts(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    texts = [_text(item) for item in items]
    return list(dict.fromkeys(text for text in texts if text))


def _confidence(value: Any) -> float:
    if isinstance(value, str):
        word = value.strip().lower().rstrip("%")
        if word in _WORD_CONFIDENCE:
            return _WORD_CONFIDENCE[word]
        try:
            number = float(word)
        except ValueError:
            return DEFAULT_CONFIDENCE
        value = number / 100 if value.strip().endswith("%") else number
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return DEFAULT_CONFIDENCE
    if 1 < value <= 100:  # a percentage without its sign
        value = value / 100
    return min(1.0, max(0.0, float(value)))


def _claims(value: Any) -> list[Claim]:
    claims: list[Claim] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, str):
            item = {"claim": item}
        if not isinstance(item, dict):
            continue
        text = _text(item.get("claim") or item.get("text") or item.get("statement"))
        if text:
            claims.append(Claim(
                claim=text,
                scope=_text(item.get("scope")),
                evidence_excerpt=_text(item.get("evidence_excerpt") or item.get("excerpt")
                                       or item.get("evidence")),
                confidence=_confidence(item.get("confidence")),
            ))
    return claims


def _entries(value: Any) -> list[dict[str, Any]] | None:
    """The per-material objects of a parsed reply, each with its id under ``id``."""
    if isinstance(value, dict):
        inner = next((value[key] for key in _MAP_KEYS if key in value), None)
        if inner is None and any(k in value for k in ("id", "material_id")):
            inner = [value]  # a reply holding one material's record
        if inner is None:
            inner = value  # {"M1": {...}, "M2": {...}}
        value = inner
    if isinstance(value, dict):
        return [
            {**entry, "id": key} for key, entry in value.items() if isinstance(entry, dict)
        ]
    if isinstance(value, list):
        return [
            {**entry, "id": entry.get("id", entry.get("material_id"))}
            for entry in value if isinstance(entry, dict)
        ]
    return None


def parse_relevance(reply: str, known_ids: Iterable[str]) -> list[MaterialRelevance] | None:
    """The relevance map in ``reply``, or ``None`` when it holds none for a known material.

    Accepts ``{"materials": [...]}`` (or ``material_relevance_map`` ...), a bare list,
    or an object keyed by id. Unknown ids are dropped; a material named twice keeps its
    first record. An unknown ``relevance`` word is read as ``contextual``; confidences
    may be numbers, percentages or high/medium/low. Never raises.
    """
    entries = _entries(parse_json_lenient(reply)) if reply else None
    if not entries:
        return None
    known = list(known_ids)
    records: dict[str, MaterialRelevance] = {}
    for entry in entries:
        material_id = normalize_material_id(entry.get("id"), known)
        if material_id is None or material_id in records:
            continue
        relevance = _text(entry.get("relevance")).lower()
        records[material_id] = MaterialRelevance(
            material_id=material_id,
            relevance=next((r for r in RELEVANCES if r == relevance), "contextual"),
            claims=_claims(entry.get("claims", entry.get("supported_claims"))),
            limitations=_texts(entry.get("limitations")),
            gaps=_texts(entry.get("gaps", entry.get("research_gaps"))),
        )
    return list(records.values()) or None
