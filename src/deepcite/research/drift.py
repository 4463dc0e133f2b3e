"""Dropping a follow-up's results when they moved away from the question.

A follow-up query is a guess: its extra words can pull in passages about something
else (the other topic of a distractor, a neighbouring API). What it found is compared
with what the first search found, by the same measure: how much of the question's
key-term weight the top results hold (a result naming none of the question's subject
counts nothing), averaged with their embedding similarity to the question when an
embedding model is at hand. Results far below the first search's are not kept; the
question's own search is the yardstick, because it is the best the collection offers
for the question's words, so only a real drop says the follow-up searched elsewhere.
Of a follow-up's results that are kept, those that do not name the question's subject
at all (:meth:`DriftCheck.about`) are left out one by one: the words a follow-up added
found them, not the question.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from deepcite.research.key_terms import KeyTerms, stems
from deepcite.types import SearchResult

if TYPE_CHECKING:
    from deepcite.collections.index.embeddings import TextEncoder

logger = logging.getLogger(__name__)

#: A follow-up's results are dropped below this share of the first search's overlap.
DRIFT_RATIO = 0.5
TOP_RESULTS = 5


def _text(result: SearchResult) -> str:
    return f"{result.title}\n{result.snippet}"


class DriftCheck:
    """Measures result lists against the question; :meth:`drifted` after :meth:`start`.

    ``encoder`` is an embedding model (``None``: key terms alone); it is asked only
    for the question and the top results of each list.
    """

    def __init__(self, question: str, encoder: TextEncoder | None = None) -> None:
        self._question = question
        self._encoder = encoder
        self._key = KeyTerms.of(question)
        self._question_vector: list[float] | None = None
        #: The first search's overlap; ``None`` until :meth:`start`.
        self.baseline: float | None = None

    def start(self, first: Sequence[SearchResult]) -> None:
        """Take the first search's results as the yardstick (and weigh terms by them)."""
        self._key = KeyTerms.of(self._question, first)
        self.baseline = self.overlap(first) if first else None

    def overlap(self, results: Sequence[SearchResult]) -> float:
        """How much the top ``results`` are about the question, 0 to 1."""
        top = list(results[:TOP_RESULTS])
        if not top:
            return 0.0
        shares = []
        for result in top:
            found = stems(_text(result))
            shares.append(self._key.share(found) if self._key.on_topic(found) else 0.0)
        terms = sum(shares) / len(shares)
        dense = self._similarity(top)
        return terms if dense is None else (terms + dense) / 2

    def about(self, result: SearchResult) -> bool:
        """Whether ``result`` names the question's subject (its names and numbers, or
        the key term most of the first search's results hold)."""
        return self._key.on_topic(stems(_text(result)))

    def drifted(self, results: Sequence[SearchResult]) -> bool:
        """Whether ``results`` are far less about the question than the first search's."""
        if not self.baseline or not results:
            return False
        return self.overlap(results) < DRIFT_RATIO * self.baseline

    def _similarity(self, top: Sequence[SearchResult]) -> float | None:
        """Mean cosine of the results to the question (negatives as 0); ``None`` when
        there is no encoder or it fails (the key terms then decide alone)."""
        if self._encoder is None:
            return None
        try:
            if self._question_vector is None:
                self._question_vector = [float(x) for x in
                                         self._encoder.encode([self._question])[0]]
            vectors = self._encoder.encode([_text(r) for r in top])
        except (RuntimeError, ValueError, OSError) as exc:
            logger.info("drift check without embeddings: %s", exc)
            self._encoder = None
            return None
        query = self._question_vector
        cosines = [max(0.0, sum(a * float(b) for a, b in zip(query, row, strict=False)))
                   for row in vectors]
        return sum(cosines) / len(cosines)


def encoder_for(dense: bool, model: object) -> TextEncoder | None:
    """The collection's embedding model when dense search is on and it loads, else
    ``None``: loading one only for this check would cost seconds per run."""
    if not dense:
        return None
    from pathlib import Path

    from deepcite.collections.index.embeddings import load_encoder
    from deepcite.errors import CollectionError

    try:
        return load_encoder(model if isinstance(model, Path) else None)
    except (CollectionError, ImportError) as exc:
        logger.info("drift check without embeddings: %s", exc)
        return None
