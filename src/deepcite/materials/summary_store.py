"""Material summaries on disk, shared by every front end and process of the machine.

:class:`SummaryCache` lives as long as the Python object a caller keeps; the CLI, the
web server, queue workers and the Python API each start afresh, so the same long
document would be summarised again by each of them and on every run.
:class:`DiskSummaryCache` is the same mapping kept as files, one JSON file per
summary, under ``<data_dir>/cache/summaries`` (:func:`summary_cache_for`).

**What a summary depends on.** The key callers use (``summarise_all``) is the content
hash of the material's text. That is enough within one conversation, where the model
stays the same, but not on disk, which outlives a change of model: a summary made by a
small local model must not be served to a run of another model, nor one made with
older prompts. So each cache has a *scope*, a digest of the model identity (provider,
model name, GGUF file, endpoint without credentials, context size and reply limit -
these last two set the chunk sizes) and of the summary prompts
(:data:`SUMMARY_PROMPT_VERSION` and the prompt texts themselves), and a file holds the
summary of ``(scope, content hash)``: the same mapping key in two scopes names two
files. (``llm.provider = "auto"`` is scoped as ``auto``: when its choice between Ollama
and the bundled model changes on one machine, summaries of one may serve the other.)
The sampling temperature is not part of the scope: it changes wording, not content.

**Files.** A file's name is the SHA-256 of scope and key, never the key itself, so no
key - hex hash or not, ``../`` included - can name a path outside the folder; the key
is kept inside the file. Writes go to a temporary file in the folder and are renamed
into place (:func:`os.replace`), so a reader in any thread or process sees a whole file
or none. Reading and writing take no lock across processes; making a summary does
(:meth:`DiskSummaryCache.making`), so two runs of the same material, in two processes,
summarise it once. A file that cannot be read or parsed, or
does not hold what its name says, is a miss and is removed. Past ``max_entries`` files
the least recently used (by modification time; a hit refreshes it) are removed. The
cache is best effort: a folder that cannot be written logs a warning and the summary
is simply not kept. Files are private to the user (``0600`` in a ``0700`` folder):
summaries repeat what the user's documents say.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

from deepcite.build_once import BuildLock
from deepcite.config import Settings
from deepcite.errors import DeepciteError
from deepcite.materials.limits import SUMMARY_MAX_TOKENS
from deepcite.materials.summaries import (
    MAX_MAP_CALLS,
    REDUCE_SYSTEM,
    SUMMARY_SYSTEM,
    CachedKind,
    CachedSummary,
    SummaryCache,
    reduce_prompt,
    summary_prompt,
)

logger = logging.getLogger("deepcite.materials")

#: Raise when a change of the prompt functions (not of the prompt texts, which are
#: part of the scope anyway) makes earlier summaries unfit.
SUMMARY_PROMPT_VERSION = 1
#: Layout of one file; a file of another format is a miss.
FILE_FORMAT = 1
#: Default number of summaries kept on disk.
DISK_MAX_ENTRIES = 2_000
#: Where under ``data_dir`` :func:`summary_cache_for` keeps its files.
CACHE_FOLDER = Path("cache") / "summaries"

LOCK_FOLDER = ".locks"
"""Under the cache folder: the lock files of summaries being made
(:meth:`DiskSummaryCache.making`)."""
_FILE_NAME = re.compile(r"^[0-9a-f]{64}\.json$")
_TEMPORARY = re.compile(r"^\..*\.part$")
#: A temporary file this old was left by a writer that died; eviction removes it.
STALE_TEMPORARY_S = 3_600.0
_KINDS: frozenset[str] = frozenset(get_args(CachedKind))
_USERINFO = re.compile(r"^([a-z][a-z0-9+.-]*://)[^/@\s]*@", re.IGNORECASE)


def prompt_fingerprint() -> str:
    """A digest of everything in the summary prompts that shapes a summary."""
    parts = (str(SUMMARY_PROMPT_VERSION), SUMMARY_SYSTEM, REDUCE_SYSTEM,
             summary_prompt("TEXT", "TITLE", (1, 2)), reduce_prompt(["PART"], "TITLE"),
             str(SUMMARY_MAX_TOKENS), str(MAX_MAP_CALLS))
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def model_identity(settings: Settings) -> str:
    """The model that makes summaries under ``settings``, as text (no credentials)."""
    llm = settings.llm
    endpoint = _USERINFO.sub(r"\1", llm.base_url) if llm.base_url else ""
    ollama = llm.ollama_url if llm.provider in {"ollama", "auto"} else ""
    fields = {"provider": llm.provider, "model": llm.model or "",
              "gguf": str(llm.gguf_path or ""), "base_url": endpoint,
              "ollama_url": _USERINFO.sub(r"\1", ollama),
              "context_size": llm.context_size, "max_tokens": llm.max_tokens}
    return json.dumps(fields, sort_keys=True)


def cache_scope(model: str) -> str:
    """The scope of summaries made by ``model`` with the current prompts."""
    text = f"{model}\x1f{prompt_fingerprint()}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class DiskSummaryCache(SummaryCache):
    """Summaries as files under ``folder``, one per ``(scope, key)`` (see the module
    docstring); the mapping interface of :class:`SummaryCache`, so it goes wherever
    that does. Safe between threads and between processes.

    ``model`` names what makes the summaries (:func:`model_identity`); caches of two
    models share a folder without sharing summaries. ``max_entries`` bounds the files
    of the folder, whatever their scope.
    """

    def __init__(self, folder: Path, max_entries: int = DISK_MAX_ENTRIES, *,
                 model: str = "") -> None:
        super().__init__(max_entries=max_entries)
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.folder = Path(folder)
        self.scope = cache_scope(model)
        self._write_lock = threading.Lock()  # only orders this process's evictions

    # -- files

    def path_for(self, key: str) -> Path:
        """The file of ``key``: a hash of scope and key, always inside the folder."""
        digest = hashlib.sha256(
            f"{self.scope}\0{key}".encode("utf-8", "surrogatepass")).hexdigest()
        return self.folder / f"{digest}.json"

    def _read(self, path: Path) -> dict[str, Any] | None:
        """The valid content of ``path``; ``None`` (and the file removed when it is
        there but unusable) otherwise."""
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            logger.info("summary cache: cannot read %s (%s); treated as a miss",
                        path.name, exc.strerror or exc)
            self._remove(path)
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            data = None
        if not (isinstance(data, dict) and data.get("format") == FILE_FORMAT
                and isinstance(data.get("key"), str) and isinstance(data.get("scope"), str)
                and isinstance(data.get("summary"), str) and data.get("kind") in _KINDS):
            logger.info("summary cache: %s is damaged; removed", path.name)
            self._remove(path)
            return None
        return data

    @staticmethod
    def _remove(path: Path) -> None:
        with contextlib.suppress(OSError):
            path.unlink()

    def _files(self) -> list[Path]:
        try:
            return [entry for entry in self.folder.iterdir()
                    if _FILE_NAME.match(entry.name)]
        except OSError:  # no folder yet, or not readable: an empty cache
            return []

    # -- mapping

    def __getitem__(self, key: str) -> CachedSummary:
        if not isinstance(key, str):
            raise KeyError(key)
        path = self.path_for(key)
        data = self._read(path)
        if data is None:
            raise KeyError(key)
        if data["key"] != key or data["scope"] != self.scope:
            logger.info("summary cache: %s does not hold what its name says; removed",
                        path.name)
            self._remove(path)
            raise KeyError(key)
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: evicted last
        return CachedSummary(data["summary"], data["kind"])

    def __setitem__(self, key: str, value: CachedSummary) -> None:
        if not isinstance(key, str):
            raise TypeError(f"summary cache keys are strings, not {type(key).__name__}")
        if not isinstance(value, CachedSummary) or value.kind not in _KINDS:
            raise TypeError("summary cache values are CachedSummary objects")
        body = json.dumps({"format": FILE_FORMAT, "scope": self.scope, "key": key,
                           "kind": value.kind, "summary": value.summary},
                          ensure_ascii=False).encode("utf-8", "surrogatepass")
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".",
                                                 suffix=".part")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(body)
                os.replace(temporary, self.path_for(key))
            except BaseException:
                self._remove(Path(temporary))
                raise
        except OSError as exc:
            logger.warning("summary cache: cannot write to %s (%s); the summary is not "
                           "kept", self.folder, exc.strerror or exc)
            return
        self._evict()

    def making(self, key: str) -> contextlib.AbstractContextManager[object]:
        """Held while the summary of ``key`` is made, by one thread of one process of
        the machine at a time (a lock file under ``.locks``, one of 256 stripes by the
        file's name). A folder where no lock can be made only loses the waiting: the
        summary is made, as the cache is best effort."""
        return self._making(key)

    @contextlib.contextmanager
    def _making(self, key: str) -> Iterator[None]:
        stripe = self.path_for(key).name[:2]
        lock = BuildLock(self.folder / LOCK_FOLDER / f"{stripe}.lock",
                         what="a material summary")
        with contextlib.ExitStack() as held:
            try:
                self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # private
                held.enter_context(lock.held())
            except (OSError, DeepciteError) as exc:
                logger.info("summary cache: cannot lock %s (%s); summarising without "
                            "waiting for others", lock.path, exc)
            yield

    def __delitem__(self, key: str) -> None:
        if not isinstance(key, str) or key not in self:
            raise KeyError(key)
        try:
            self.path_for(key).unlink()
        except FileNotFoundError:
            raise KeyError(key) from None

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        try:
            self[key]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        """The keys of this scope, from a listing taken now."""
        keys = []
        for path in self._files():
            data = self._read(path)
            if data is not None and data["scope"] == self.scope \
                    and path.name == self.path_for(data["key"]).name:
                keys.append(data["key"])
        return iter(keys)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def clear(self) -> None:
        """Remove every summary of this scope (other scopes' files stay)."""
        for key in list(self):
            with contextlib.suppress(KeyError):
                del self[key]

    def _evict(self) -> None:
        """Remove the least recently used files past ``max_entries``, and temporary
        files that writers which died left behind."""
        with self._write_lock:
            try:
                entries = list(self.folder.iterdir())
            except OSError:
                return
            now = time.time()
            for entry in entries:
                if _TEMPORARY.match(entry.name):
                    with contextlib.suppress(OSError):
                        if now - entry.stat().st_mtime > STALE_TEMPORARY_S:
                            entry.unlink()
            files = [entry for entry in entries if _FILE_NAME.match(entry.name)]
            if len(files) <= self.max_entries:
                return
            aged = []
            for path in files:
                try:
                    aged.append((path.stat().st_mtime_ns, path.name, path))
                except OSError:  # removed meanwhile by another process
                    continue
            aged.sort()
            for _mtime, _name, path in aged[: max(0, len(aged) - self.max_entries)]:
                self._remove(path)

    def __repr__(self) -> str:
        return f"DiskSummaryCache({str(self.folder)!r}, max_entries={self.max_entries})"


def summary_cache_for(settings: Settings, max_entries: int = DISK_MAX_ENTRIES
                      ) -> DiskSummaryCache:
    """The summary cache of ``settings``' machine: ``<data_dir>/cache/summaries``,
    scoped to the model ``settings`` names (:func:`model_identity`)."""
    return DiskSummaryCache(settings.data_dir / CACHE_FOLDER, max_entries,
                            model=model_identity(settings))


__all__ = [
    "CACHE_FOLDER",
    "DISK_MAX_ENTRIES",
    "SUMMARY_PROMPT_VERSION",
    "DiskSummaryCache",
    "cache_scope",
    "model_identity",
    "prompt_fingerprint",
    "summary_cache_for",
]
