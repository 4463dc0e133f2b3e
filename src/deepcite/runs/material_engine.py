"""The user's materials as one more search engine, for runs that search rather than
read them whole: a document check (``deepcite check --material FILE``).

An answer or a report reads its materials through their analysis (summaries, claims,
evidence planned for the question: :mod:`deepcite.research.material_runs`); a check
researches each of its claims with searches instead, so its materials must answer a
search. :class:`MaterialEngine` cuts them into the passages an answer would cite
(:func:`~deepcite.materials.evidence.material_passages`: engine ``user_material``, the
offsets of each passage in its material) and ranks them by the share of the query's
words they hold - no model, no index, nothing leaves the machine. The history keeps
their text as it keeps any material's (``store.keep_material_text``).
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.materials.evidence import material_passages
from deepcite.materials.lexical import lexical_tokens
from deepcite.materials.model import UserMaterial
from deepcite.types import SearchResult

__all__ = ["MaterialEngine"]

#: The least share of a query's words a passage must hold to be a hit: one word of a
#: long query shared by chance is no evidence.
MIN_OVERLAP = 0.2


class MaterialEngine:
    """Search the passages of ``materials`` by word overlap with the query."""

    name = "user_material"

    def __init__(self, materials: Sequence[UserMaterial]) -> None:
        self._passages = [(passage, lexical_tokens(passage.snippet))
                          for material in materials
                          for passage in material_passages(material)]

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """The passages holding the most of the query's words, best first (ties: in
        the order the materials and their passages came)."""
        asked = lexical_tokens(query)
        if not asked:
            return []
        scored = [(len(asked & words) / len(asked), index)
                  for index, (_, words) in enumerate(self._passages)]
        best = sorted(((score, index) for score, index in scored if score >= MIN_OVERLAP),
                      key=lambda pair: (-pair[0], pair[1]))
        return [self._passages[index][0] for _, index in best[:max_results]]
