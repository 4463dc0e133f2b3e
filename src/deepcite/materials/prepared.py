"""The prepared materials of one run, as every later step reads them.

:func:`~deepcite.materials.prepare_materials` builds a :class:`MaterialAnalysis`;
:func:`~deepcite.materials.with_relevance` adds the model's relevance map to it. Both
are frozen pydantic records, so a run can keep, log or store them as they are.

Every item carries an :class:`EvidenceQuality`: what the model is really given for the
material (whole, summarised, only its head, a one-line digest) and how much of its text
that stands for. Claims judged from a head or a digest are claims about part of a
document, so the analysis prompt (via the manifest) and the run's notices say so.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from deepcite.materials.model import DroppedMaterial, UserMaterial
from deepcite.materials.relevance_map import MaterialRelevance
from deepcite.security.terminal import one_line

#: How a question uses the materials: ``required`` (it asks about them: material first),
#: ``supplementary`` or ``none`` (:func:`deepcite.materials.usage.usage_mode` decides).
UsageMode = Literal["required", "supplementary", "none"]

#: How a material's text reaches prompts: whole (``fulltext``), summarised in one call
#: (``summary``) or in chunks (``map_reduce``), cut to its head because summarising
#: failed or no model was given (``truncated``), or cut to a one-line digest because
#: the prompt budget was exceeded (``digest``).
SummaryKind = Literal["fulltext", "summary", "map_reduce", "truncated", "digest"]
#: What a digest was cut from.
DigestSource = Literal["fulltext", "summary", "map_reduce", "truncated"]


class EvidenceQuality(BaseModel):
    """What stands for a material in prompts, and how much of the material it covers.

    - ``kind``: the summary kind (see :data:`SummaryKind`).
    - ``content_chars``: the material's length.
    - ``basis_chars``: characters of the material the text was made from - all of it
      for the full text and for summaries (the summary calls read everything), the
      head's length for ``truncated``, about the digest's length for a digest of
      verbatim text.
    - ``text_chars``: characters of the text that stands for it in prompts.
    - ``truncated``: the model is given less than the material says: only its head,
      or a digest cut from a longer text.
    - ``digest_of``: for a digest, what it was cut from.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: SummaryKind
    content_chars: int = Field(ge=0)
    basis_chars: int = Field(ge=0)
    text_chars: int = Field(ge=0)
    truncated: bool
    digest_of: DigestSource | None = None

    @classmethod
    def of(cls, kind: SummaryKind, content: str, text: str) -> EvidenceQuality:
        """The quality of ``text`` standing for ``content`` as ``kind`` (not a digest:
        see :meth:`as_digest`)."""
        whole = len(content)
        if kind == "truncated":
            basis = min(whole, len(text))
            return cls(kind=kind, content_chars=whole, basis_chars=basis,
                       text_chars=len(text), truncated=basis < whole)
        if kind == "digest":  # a digest made without its source: assume the text itself
            return cls(kind=kind, content_chars=whole, basis_chars=min(whole, len(text)),
                       text_chars=len(text), truncated=len(text) < whole)
        return cls(kind=kind, content_chars=whole, basis_chars=whole, text_chars=len(text),
                   truncated=False)

    def as_digest(self, digest: str) -> EvidenceQuality:
        """This quality after its text was cut to the one-line ``digest``."""
        if self.kind == "digest":
            return self
        model_made = self.kind in ("summary", "map_reduce")
        basis = self.basis_chars if model_made else min(self.basis_chars, len(digest))
        return EvidenceQuality(
            kind="digest", content_chars=self.content_chars, basis_chars=basis,
            text_chars=len(digest), truncated=len(digest) < self.text_chars,
            digest_of=self.kind,
        )

    @property
    def seen_share(self) -> float:
        """The share (0 to 1) of the material the text was made from."""
        return 1.0 if not self.content_chars else self.basis_chars / self.content_chars

    @property
    def note(self) -> str:
        """One line for prompts and notices, e.g. ``head only: the first 16,000 of
        400,000 characters (4%)``. Counts only: never any of the material's text."""
        whole = f"{self.content_chars:,} characters"
        if self.kind == "fulltext":
            return f"full text ({whole})"
        if self.kind == "summary":
            return f"summary of the whole text ({whole})"
        if self.kind == "map_reduce":
            return f"summary of the whole text, summarised in parts ({whole})"
        if self.kind == "truncated":
            if not self.truncated:
                return f"full text ({whole})"
            return (f"head only: the first {self.basis_chars:,} of {whole} "
                    f"({_percent(self.seen_share)}); the rest was not summarised")
        source = {"fulltext": "full text", "summary": "summary", "map_reduce": "summary",
                  "truncated": "head"}.get(self.digest_of or "", "text")
        return (f"one-line digest of its {source} ({self.text_chars:,} of {whole}), "
                "cut to fit the prompt budget")


def _percent(share: float) -> str:
    """``share`` as a whole percentage, never rounded up to 100% or down to 0%."""
    value = round(share * 100)
    return f"{min(99, max(1, value))}%" if 0 < share < 1 else f"{value}%"


class MaterialItem(BaseModel):
    """One kept material and the text that stands for it in prompts.

    ``tokens`` estimates the whole content, ``summary_tokens`` the ``summary``;
    ``cached`` says the summary came from the :class:`~deepcite.materials.SummaryCache`
    (no call was made for it in this run). ``evidence_quality`` is derived from the
    kind and texts when not given; a copy that changes them (``model_copy``) must
    give it again (:func:`~deepcite.materials.prepare_materials` does after budgeting).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    material: UserMaterial
    content_hash: str
    tokens: int
    summary: str
    summary_kind: SummaryKind
    summary_tokens: int = 0
    cached: bool = False
    evidence_quality: EvidenceQuality

    @model_validator(mode="before")
    @classmethod
    def _derive_quality(cls, data: Any) -> Any:
        """Fill ``evidence_quality`` from ``summary_kind``, the content and the summary."""
        if not isinstance(data, dict) or data.get("evidence_quality") is not None:
            return data
        material = data.get("material")
        content = (material.content if isinstance(material, UserMaterial)
                   else str(material.get("content", "")) if isinstance(material, dict) else "")
        kind = data.get("summary_kind")
        if kind not in ("fulltext", "summary", "map_reduce", "truncated", "digest"):
            return data  # the field validation says what is wrong
        return {**data, "evidence_quality": EvidenceQuality.of(
            kind, content, str(data.get("summary", "")))}

    @property
    def material_id(self) -> str:
        """The material's id (always set once materials are normalised)."""
        return self.material.material_id or ""


class MaterialAnalysis(BaseModel):
    """Everything a run knows about its materials.

    - ``items``: the kept materials in input order, with their summaries.
    - ``dropped``: what normalisation left out (position and reason only).
    - ``downgraded_ids``: materials cut to a digest to fit ``budget_tokens``.
    - ``manifest``: one line per material (id, title, url, dates, how it is given);
      never compressed, so ids, titles and links reach every prompt verbatim.
    - ``usage_mode``: ``required`` (material first), ``supplementary`` or ``none``.
    - ``relevance``: the model's map, one record per item once
      :func:`~deepcite.materials.with_relevance` applied it; empty before.
    - ``summary_calls``: model calls made for summaries in this run (cache hits: none).
    - ``prompt_tokens``: estimated tokens of manifest plus summaries, after downgrades.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    items: list[MaterialItem] = Field(default_factory=list)
    dropped: list[DroppedMaterial] = Field(default_factory=list)
    downgraded_ids: list[str] = Field(default_factory=list)
    manifest: str = ""
    usage_mode: UsageMode = "none"
    relevance: list[MaterialRelevance] = Field(default_factory=list)
    summary_calls: int = 0
    budget_tokens: int = 0
    prompt_tokens: int = 0

    @property
    def ids(self) -> list[str]:
        """The ids of the kept materials, in order."""
        return [item.material_id for item in self.items]

    def item(self, material_id: str) -> MaterialItem | None:
        """The item with this exact id, or ``None``."""
        return next((item for item in self.items if item.material_id == material_id), None)

    def relevance_of(self, material_id: str) -> MaterialRelevance | None:
        """The relevance record of this id, or ``None`` when none was applied."""
        return next((r for r in self.relevance if r.material_id == material_id), None)

    def evidence_notes(self) -> list[str]:
        """One notice per material not given whole to the model, in input order:
        ``Material M2 ('Title') reached the model as head only: the first ...``.

        A user reading a report written from a summary or from a document's first
        pages needs to know it; materials given whole get no notice.
        """
        notes = []
        for item in self.items:
            quality = item.evidence_quality
            if quality.kind == "fulltext" or (quality.kind == "truncated"
                                              and not quality.truncated):
                continue
            title = one_line(item.material.title or item.material.url)
            if len(title) > 60:
                title = title[:57] + "..."
            notes.append(f"Material {item.material_id} ({title!r}) reached the model as "
                         f"{quality.note}")
        return notes
