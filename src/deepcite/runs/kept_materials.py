"""The text of a stored run's material citations: kept, handed in again, or missing.

The history keeps the passages of the user's materials a run cites (``store.
keep_material_text``, the default) and nothing of their text otherwise (see
:func:`deepcite.store.convert.source_rows`). A follow-up or a replay checks those
citations again, so it needs the text back: a passage the history dropped is taken
from the same material handed in again - matched by url, else by ``material_id``, cut
at the stored offsets and accepted only when its digest is the stored one (a changed
material is not the one that was cited). A cited passage with no text either way is
named to the user, never checked against nothing: an empty source supports nothing,
and verification would remove every citation of it without saying why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from deepcite.materials import UserMaterial
from deepcite.store.convert import (
    PASSAGE_SHA256,
    TEXT_KEPT,
    USER_MATERIAL,
    cited_sources,
    passage_digest,
)
from deepcite.types import ResearchResult, Source

__all__ = ["missing_text", "restore_material_text", "unchecked_notice"]


def _textless(source: Source) -> bool:
    return source.engine == USER_MATERIAL and not source.text.strip()


def _offset(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _match(source: Source, materials: Sequence[UserMaterial]) -> UserMaterial | None:
    """The handed-in material ``source`` is a passage of: same url, else same id."""
    by_url = next((m for m in materials if m.url == source.url), None)
    if by_url is not None:
        return by_url
    material_id = source.metadata.get("material_id")
    return next((m for m in materials if material_id and m.material_id == material_id), None)


def _passage(source: Source, material: UserMaterial) -> str | None:
    """The passage ``source`` cited, cut from ``material``; ``None`` when the offsets do
    not fit it or the text is not the one the run cited (its stored digest)."""
    start, end = _offset(source.metadata.get("start")), _offset(source.metadata.get("end"))
    if start is None or end is None or not 0 <= start < end <= len(material.content):
        return None
    text = material.content[start:end]
    digest = source.metadata.get(PASSAGE_SHA256)
    if isinstance(digest, str) and digest != passage_digest(text):
        return None
    return text if text.strip() else None


def restore_material_text(sources: Iterable[Source], materials: Sequence[UserMaterial]
                          ) -> list[Source]:
    """``sources`` with each material passage the history holds no text of filled in
    from ``materials`` (the same materials handed in again), where one matches."""
    restored: list[Source] = []
    for source in sources:
        material = _match(source, materials) if _textless(source) and materials else None
        text = _passage(source, material) if material is not None else None
        if text is not None:
            meta = {k: v for k, v in source.metadata.items()
                    if k not in (TEXT_KEPT, PASSAGE_SHA256)}
            source = source.model_copy(update={"snippet": text, "full_text": None,
                                               "metadata": meta})
        restored.append(source)
    return restored


def missing_text(result: ResearchResult, sources: Iterable[Source] | None = None
                 ) -> list[Source]:
    """The material sources ``result`` cites that have no text to check them against
    (among ``sources``, by default its own)."""
    cited = cited_sources(result)
    return [s for s in (result.sources if sources is None else sources)
            if s.number in cited and _textless(s)]


def unchecked_notice(missing: Sequence[Source], *, where: str) -> str:
    """One line naming the citations of ``missing`` that cannot be checked again, and
    how to have them checked (``where``: whose citations, e.g. "the earlier answer")."""
    numbers = ", ".join(f"[{s.number}]" for s in missing)
    titles = ", ".join(dict.fromkeys(repr(s.title) for s in missing))
    return (f"Citation(s) {numbers} of {where} cite your material(s) {titles}, whose text "
            "the history does not hold (store.keep_material_text = false keeps none), so "
            "they cannot be checked again - hand the same material(s) in again to check them")
