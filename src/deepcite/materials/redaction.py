"""Keeping the user's materials out of every log line (``security.redact_material_text``).

A user who hands in an internal report may forbid its text in logs that other people
read. :func:`redacting` registers everything of the materials a log call could quote -
their content, the summaries that stand for them, the claims, scopes, excerpts and
limitations the model read from them - with :func:`deepcite.security.log_redaction.
redacting_texts`, which replaces any quote of them in any log record by
``[material text redacted]`` until the block exits. Ids, titles, urls and counts stay
visible: they are what the ``[MATERIAL_ROUTE]`` and ``[MATERIAL_FIRST]`` lines need.

A run enters it around everything it does with the materials, with the raw materials,
and adds the analysis once it has it (summaries and claims are made during the run)::

    with redacting(given, settings) as redaction:
        analysed = analyse_materials(...)
        redaction.add(texts_of(analysed))
        ...

Research gaps are not registered: they name what the materials lack and become web
queries, which a log must still show.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from deepcite.materials.model import UserMaterial
from deepcite.materials.prepared import MaterialAnalysis, MaterialItem
from deepcite.materials.relevance_map import MaterialRelevance
from deepcite.security.log_redaction import RedactionScope, redacting_texts

if TYPE_CHECKING:
    from deepcite.config import Settings

__all__ = ["RedactionScope", "redacting", "texts_of"]


def _relevance_texts(record: MaterialRelevance) -> Iterator[str]:
    for claim in record.claims:
        yield from (claim.claim, claim.scope, claim.evidence_excerpt)
    yield from record.limitations


def texts_of(source: object) -> list[str]:
    """Every text of ``source`` a log line must not quote.

    ``source`` is a material (:class:`~deepcite.materials.UserMaterial` or its mapping),
    a :class:`~deepcite.materials.MaterialItem`, a :class:`~deepcite.materials.
    MaterialAnalysis`, an object with an ``analysis`` attribute holding one (a run's
    analysed materials), a string, or an iterable of any of these.
    """
    texts: list[str] = []
    pending: list[object] = [source]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, UserMaterial):
            texts.append(item.content)
        elif isinstance(item, MaterialItem):
            texts += [item.material.content, item.summary]
        elif isinstance(item, MaterialAnalysis):
            pending += item.items
            for record in item.relevance:
                texts += _relevance_texts(record)
        elif isinstance(item, Mapping):
            texts += [str(item[key]) for key in ("content", "summary") if item.get(key)]
        elif isinstance(getattr(item, "analysis", None), MaterialAnalysis):
            pending.append(getattr(item, "analysis"))  # noqa: B009 - duck-typed run object
        elif isinstance(item, Iterable):
            pending += list(item)
    return [text for text in texts if text]


def _enabled(settings: Settings | bool | None) -> bool:
    if settings is None or isinstance(settings, bool):
        return bool(settings)
    return settings.security.redact_material_text


@contextmanager
def redacting(materials: object, settings: Settings | bool | None
              ) -> Iterator[RedactionScope]:
    """Keep ``materials``' text (see :func:`texts_of`) out of every log record until
    the block exits, when ``settings.security.redact_material_text`` is on (or
    ``settings`` is ``True``).

    Yields a scope whose ``add(texts_of(...))`` registers what the run makes later. Off,
    it registers nothing and leaves logging as it is.
    """
    enabled = _enabled(settings)
    with redacting_texts(texts_of(materials) if enabled else (), enabled=enabled) as scope:
        yield scope
