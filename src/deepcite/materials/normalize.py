"""Validating, deduplicating and numbering the materials of one request.

Three keys make two materials the same, and the later one is dropped: the same explicit
``material_id`` (``duplicate_material_id``; ids differing only in case count as the
same, so that a model writing ``m1`` can never be ambiguous), the same url
(``duplicate_url``; local paths compared exactly as given, http(s) URLs through
:func:`~deepcite.search.urls.canonical_url`) and the same content
(``duplicate_content``; :func:`~deepcite.materials.content_hash`). A shared title is not
a key: two reports called "Annual report" with different text are two materials. Of
what remains the first :data:`~deepcite.materials.limits.MAX_MATERIALS` are kept in
input order (``over_limit`` for the rest). Drops are reported, never raised: they are
the user's duplicates, not errors. Invalid materials and an oversized request are
errors (:class:`~deepcite.errors.MaterialError`), because silently using part of what
the user asked for would be worse than saying so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from deepcite.errors import MaterialError
from deepcite.materials.limits import MAX_MATERIALS, MAX_TOTAL_CHARS
from deepcite.materials.model import DroppedMaterial, DropReason, UserMaterial, is_local_path
from deepcite.materials.model import validate_material as _validate
from deepcite.materials.tokens import content_hash
from deepcite.search.urls import canonical_url

AUTO_ID_PREFIX = "M"


def url_key(url: str) -> str:
    """The deduplication key of a url: local paths as given, web URLs canonical."""
    return url if is_local_path(url) else canonical_url(url)


def validate_materials(
    items: Iterable[UserMaterial | Mapping[str, Any]], *, max_total_chars: int = MAX_TOTAL_CHARS
) -> list[UserMaterial]:
    """Every item as a :class:`UserMaterial`; the first invalid one, or a total over
    ``max_total_chars`` characters of content, raises :class:`MaterialError`."""
    materials = [_validate(item, index) for index, item in enumerate(items)]
    total = sum(len(material.content) for material in materials)
    if total > max_total_chars:
        raise MaterialError(
            f"Materials hold {total:,} characters of content in all; at most "
            f"{max_total_chars:,} are accepted - leave some out or shorten them"
        )
    return materials


def _assign_ids(materials: list[UserMaterial]) -> list[UserMaterial]:
    taken = {m.material_id.casefold() for m in materials if m.material_id}
    counter = 0
    numbered = []
    for material in materials:
        if material.material_id is None:
            counter += 1
            while f"{AUTO_ID_PREFIX}{counter}".casefold() in taken:
                counter += 1
            material = material.model_copy(update={"material_id": f"{AUTO_ID_PREFIX}{counter}"})
        numbered.append(material)
    return numbered


def normalize_materials(
    items: Iterable[UserMaterial | Mapping[str, Any]],
    *,
    max_materials: int = MAX_MATERIALS,
    max_total_chars: int = MAX_TOTAL_CHARS,
) -> tuple[list[UserMaterial], list[DroppedMaterial]]:
    """Validate, deduplicate, cap and number ``items``; returns ``(kept, dropped)``.

    Every kept material has a ``material_id``: its own, or ``M1``, ``M2`` ... in input
    order, skipping any id a kept material already has. ``dropped`` holds the 0-based
    ``index`` and the reason of each material left out, in input order.
    """
    materials = validate_materials(items, max_total_chars=max_total_chars)
    ids: set[str] = set()
    urls: set[str] = set()
    hashes: set[str] = set()
    kept: list[UserMaterial] = []
    dropped: list[DroppedMaterial] = []
    for index, material in enumerate(materials):
        id_key = material.material_id.casefold() if material.material_id else None
        key_url = url_key(material.url)
        digest = content_hash(material.content)
        reason: DropReason | None = None
        if id_key is not None and id_key in ids:
            reason = "duplicate_material_id"
        elif key_url in urls:
            reason = "duplicate_url"
        elif digest in hashes:
            reason = "duplicate_content"
        elif len(kept) >= max_materials:
            reason = "over_limit"
        if reason is not None:
            dropped.append(DroppedMaterial(index=index, reason=reason))
            continue
        if id_key is not None:
            ids.add(id_key)
        urls.add(key_url)
        hashes.add(digest)
        kept.append(material)
    return _assign_ids(kept), dropped
