"""When an answer is grounded (the sources' own sentences) rather than written by the model.

Kept apart from :mod:`~deepcite.citations.grounded`, which builds grounded answers: this
is the policy the research pipeline asks before it decides how to answer (the search
phase, which feeds a small model fewer queries, and the citation step).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from deepcite.llm.local import LlamaCppChatModel

if TYPE_CHECKING:
    from deepcite.config import Settings
    from deepcite.llm.interface import ModelInterface

#: Auto mode: local models with at most this context are treated as small.
SMALL_CONTEXT_TOKENS = 4096
#: Auto mode: models with fewer parameters than this (read from their name) are small.
SMALL_PARAMETERS = 1_000_000_000
_PARAMETERS = re.compile(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)\s*([MmBb])(?![A-Za-z])")


def model_parameters(name: str) -> float | None:
    """Parameter count a model name states (``SmolLM2-135M``, ``qwen2.5:0.5b``), or None."""
    found = _PARAMETERS.findall(name)
    if not found:
        return None
    value, unit = found[-1]
    return float(value) * (1e6 if unit.lower() == "m" else 1e9)


def use_grounded(settings: Settings, client: ModelInterface | None) -> bool:
    """Whether answers should be grounded
    (:func:`~deepcite.citations.grounded.grounded_answer`) rather than written.

    ``citations.answer_mode`` decides when set to ``grounded`` or ``abstractive``. In
    ``auto`` a model counts as small, and gets grounded answers, when its name states
    fewer than a billion parameters, or, when no size is known, when it is the
    in-process llama.cpp model with a context of at most 4,096 tokens (the bundled
    SmolLM2-135M runs with 2,048). Without a model there is nothing to write with.
    """
    mode = settings.citations.answer_mode
    if mode != "auto":
        return mode == "grounded"
    if client is None:
        return True
    model = client.model
    names = [settings.llm.model or ""]
    if isinstance(model, LlamaCppChatModel):
        names.append(model.model_path.name)
    elif settings.llm.gguf_path is not None:
        names.append(settings.llm.gguf_path.name)
    sizes = [size for size in map(model_parameters, names) if size is not None]
    if sizes:
        return min(sizes) < SMALL_PARAMETERS
    return isinstance(model, LlamaCppChatModel) and client.context_size <= SMALL_CONTEXT_TOKENS


__all__ = ["SMALL_CONTEXT_TOKENS", "SMALL_PARAMETERS", "model_parameters", "use_grounded"]
