"""Which materials an outline section uses, as the model wrote it and as we trust it.

Models copy ids the way the prompt showed them - ``[M1]``, ``[[M1]]``, `` m1 `` - and
sometimes invent ids. An id is accepted only when, once the brackets and whitespace
around it are gone, it matches a known id exactly; failing that, it may match one
known id ignoring case (``m1`` -> ``M1``), which is never ambiguous because
:func:`~deepcite.materials.normalize_materials` treats ids differing only in case as
duplicates. Anything else is dropped rather than guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

_BRACKETS = "[]【】()（）<>《》{}\"'`"


class MaterialBinding(BaseModel):
    """A section's use of one material: the ``role`` it plays there (free text such as
    ``primary`` or ``background``; empty when the model gave none) and the ``claims``
    the section may draw from it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    material_id: str = Field(min_length=1)
    role: str = ""
    claims: list[str] = Field(default_factory=list)


def normalize_material_id(raw: object, known_ids: Iterable[str]) -> str | None:
    """The known id ``raw`` names, or ``None`` (see the module docstring for the rule)."""
    if not isinstance(raw, str | int) or isinstance(raw, bool):
        return None
    text = str(raw).strip()
    while text and (text[0] in _BRACKETS or text[-1] in _BRACKETS):
        text = text.strip(_BRACKETS).strip()
    if not text:
        return None
    known = list(known_ids)
    if text in known:
        return text
    folded = [known_id for known_id in known if known_id.casefold() == text.casefold()]
    return folded[0] if len(folded) == 1 else None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        return []
    return [" ".join(item.split()) for item in value if isinstance(item, str) and item.strip()]


def normalize_bindings(raw_list: Any, known_ids: Iterable[str]) -> list[MaterialBinding]:
    """The usable bindings of ``raw_list``, one per material, in first-seen order.

    Entries may be :class:`MaterialBinding`, mappings (``material_id`` or ``id``, plus
    optional ``role`` and ``claims``) or bare id strings. Unknown ids are dropped; a
    material bound twice is merged (the first non-empty role, the claims of both
    without repeats). Anything that is not a list gives no bindings.
    """
    if not isinstance(raw_list, list | tuple):
        return []
    known = list(known_ids)
    merged: dict[str, tuple[str, list[str]]] = {}
    for entry in raw_list:
        if isinstance(entry, MaterialBinding):
            raw_id: Any = entry.material_id
            role, claims = entry.role, list(entry.claims)
        elif isinstance(entry, dict):
            raw_id = entry.get("material_id", entry.get("id"))
            role = str(entry.get("role") or "")
            claims = _strings(entry.get("claims"))
        else:
            raw_id, role, claims = entry, "", []
        material_id = normalize_material_id(raw_id, known)
        if material_id is None:
            continue
        role = " ".join(str(role).split())
        old_role, old_claims = merged.get(material_id, ("", []))
        merged[material_id] = (
            old_role or role, old_claims + [claim for claim in claims if claim not in old_claims]
        )
    return [
        MaterialBinding(material_id=material_id, role=role, claims=claims)
        for material_id, (role, claims) in merged.items()
    ]


def choose_material_ids(
    declared: Sequence[str] | None, bound: Sequence[str], known: Sequence[str]
) -> list[str]:
    """The materials a planned section will use.

    Only ``known`` ids survive (normalised, without repeats). When no materials were
    declared to the planner (``known`` empty), whatever it wrote is cleared. When it
    names none it can use - it omitted the field, or every id it gave is invented - the
    section inherits its outline ``bound`` ids.
    """
    if not known:
        return []

    def usable(ids: Iterable[str]) -> list[str]:
        chosen: list[str] = []
        for raw in ids:
            material_id = normalize_material_id(raw, known)
            if material_id is not None and material_id not in chosen:
                chosen.append(material_id)
        return chosen

    return usable(declared or []) or usable(bound)
