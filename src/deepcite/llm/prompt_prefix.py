"""The in-process model's reading of a prompt's fixed opening, kept on disk.

Every grounded answer sends the bundled model the same system prompt (the chat
template's opening and about fifty tokens of instructions) before the question's
sentences. Reading it costs the same fraction of a second in every ``deepcite ask``
process, since a new process starts with an empty cache. Its result - the model's
key/value cache for those tokens - is the same every time, so it is computed once,
written here, and read back by later processes instead (about 1.4 MB for the bundled
model), which then read only the part of the prompt that changes.

A state file is tied to everything that shapes it: the model file (path, size, time),
llama.cpp's version, the context size, flash attention, and the exact tokens, which
the file also holds and which are compared before it is used. Anything unreadable,
corrupt or refused by llama.cpp is a miss: the prompt is then read as before, and the
answer is the same either way. Only the newest :data:`MAX_FILES` states are kept.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

#: Where under ``data_dir`` the states are kept.
PREFIX_FOLDER = Path("cache") / "model-prefix"
#: A shorter fixed opening is read faster than its file.
MIN_PREFIX_TOKENS = 16
#: States kept; the oldest beyond this are removed when one is written.
MAX_FILES = 32
_MAGIC = b"deepcite-prefix-state 1\n"
#: The model's one sequence: deepcite's in-process calls never use another.
_SEQUENCE = 0


@dataclass(frozen=True)
class PrefixStates:
    """The saved prefix states of one loaded model in ``folder``."""

    folder: Path
    #: Digest of the model file and the llama.cpp build and context it was read with.
    model_key: str

    @classmethod
    def for_model(cls, folder: Path, model_path: Path, *, n_ctx: int,
                  flash_attn: bool) -> PrefixStates:
        """The states of the model at ``model_path`` loaded with these parameters."""
        try:
            import llama_cpp

            version = str(getattr(llama_cpp, "__version__", "?"))
        except ImportError:  # never loaded without it; the key just says so
            version = "none"
        try:
            stat = model_path.stat()
            identity = f"{model_path.resolve()}\x1f{stat.st_size}\x1f{stat.st_mtime_ns}"
        except OSError:
            identity = str(model_path)
        parts = (identity, version, str(n_ctx), str(flash_attn))
        return cls(folder, hashlib.sha256("\x1e".join(parts).encode()).hexdigest()[:24])

    def path_for(self, tokens: Sequence[int]) -> Path:
        """The file holding the state after ``tokens``."""
        digest = hashlib.sha256(
            (self.model_key + ":" + ",".join(map(str, tokens))).encode()).hexdigest()
        return self.folder / f"{digest[:40]}.state"

    def restore(self, llama: Any, tokens: Sequence[int]) -> bool:
        """Put the saved state after ``tokens`` into ``llama``'s cache: ``True`` when
        the model now holds exactly ``tokens``, ``False`` (cache emptied) otherwise."""
        path = self.path_for(tokens)
        try:
            with path.open("rb") as handle:
                if handle.readline() != _MAGIC:
                    return False
                header = json.loads(handle.readline())
                data = handle.read()
        except (OSError, ValueError):
            return False
        if header.get("tokens") != list(tokens) or not data:
            return False
        import llama_cpp

        context = llama._ctx.ctx
        _forget_all(llama)
        buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        if llama_cpp.llama_state_seq_set_data(context, buffer, len(data), _SEQUENCE) != len(data):
            logger.info("prefix state %s refused by llama.cpp: reading the prompt", path.name)
            _forget_all(llama)
            return False
        llama.input_ids[: len(tokens)] = tokens
        llama.n_tokens = len(tokens)
        return True

    def save(self, llama: Any, tokens: Sequence[int]) -> None:
        """Write ``llama``'s state, which holds exactly ``tokens``, for later processes.
        A folder that cannot be written is left alone (the next process reads the
        prompt, as this one did)."""
        import llama_cpp

        context = llama._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(context, _SEQUENCE)
        if size <= 0:
            return
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(context, buffer, size, _SEQUENCE)
        if written <= 0:
            return
        path = self.path_for(tokens)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.folder, prefix=".", suffix=".part",
                                             delete=False) as handle:
                handle.write(_MAGIC)
                handle.write(json.dumps({"tokens": list(tokens)}).encode() + b"\n")
                handle.write(bytes(buffer[:written]))
            os.replace(handle.name, path)
        except OSError as exc:
            logger.debug("prefix state not kept in %s: %s", self.folder, exc)
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(handle.name)
            return
        self._evict()

    def _evict(self) -> None:
        """Keep the newest :data:`MAX_FILES` states."""
        try:
            files = sorted(self.folder.glob("*.state"), key=lambda p: p.stat().st_mtime,
                           reverse=True)
        except OSError:
            return
        for old in files[MAX_FILES:]:
            with contextlib.suppress(OSError):
                old.unlink()


def _forget_all(llama: Any) -> None:
    """Empty ``llama``'s cache: no token is held."""
    import llama_cpp

    memory = llama_cpp.llama_get_memory(llama._ctx.ctx)
    llama_cpp.llama_memory_seq_rm(memory, -1, -1, -1)
    llama.n_tokens = 0


def shared_prefix(first: Sequence[int], second: Sequence[int]) -> int:
    """How many tokens ``first`` and ``second`` share from their start."""
    shared = 0
    for one, other in zip(first, second, strict=False):
        if one != other:
            break
        shared += 1
    return shared


def fixed_opening(tokens: Sequence[int], opening: Sequence[int]) -> int:
    """How many of a prompt's ``tokens`` are its fixed opening: those it shares with
    ``opening``, the same chat with an empty user message (the template's start and
    the system prompt); 0 when that is under :data:`MIN_PREFIX_TOKENS`. The last
    prompt token is never part of it: the model must read it to answer."""
    shared = min(shared_prefix(tokens, opening), len(tokens) - 1)
    return shared if shared >= MIN_PREFIX_TOKENS else 0


__all__ = ["MAX_FILES", "MIN_PREFIX_TOKENS", "PREFIX_FOLDER", "PrefixStates",
           "fixed_opening", "shared_prefix"]
