"""The prepared materials of one run, as every later step reads them.

:func:`~deepcite.materials.prepare_materials` builds a :class:`MaterialAnalysis`;
:func:`~deepcite.materials.with_relevance` adds the model's relevance map to it. Both
are frozen pydantic records, so a run can keep, log or store them as they are.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from deepcite.materials.model import DroppedMaterial, UserMaterial
from deepcite.materials.relevance import MaterialRelevance
from deepcite.materials.usage import UsageMode

#: How a material's text reaches prompts: whole (``fulltext``), summarised in one call
#: (``summary``) or in chunks (``map_reduce``), cut to its head because summarising
#: failed or no model was given (``truncated``), or cut to a one-line digest because
#: the prompt budget was exceeded (``digest``).
SummaryKind = Literal["fulltext", "summary", "map_reduce", "truncated", "digest"]


class MaterialItem(BaseModel):
    """One kept material and the text that stands for it in prompts.

    ``tokens`` estimates the whole content, ``summary_tokens`` the ``summary``;
    ``cached`` says the summary came from the :class:`~deepcite.materials.SummaryCache`
    (no call was made for it in this run).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    material: UserMaterial
    content_hash: str
    tokens: int
    summary: str
    summary_kind: SummaryKind
    summary_tokens: int = 0
    cached: bool = False

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
