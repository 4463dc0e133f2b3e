"""Whether ``llm.model`` names a model its provider has, asked before settings are saved."""

from __future__ import annotations

import logging

from deepcite.config import Settings
from deepcite.llm._local_provider import local_model_path
from deepcite.llm._ollama_provider import OllamaUnreachable, ollama_has, ollama_models
from deepcite.llm._provider_registry import AUTO, PROVIDER_REGISTRY
from deepcite.llm.local import BUNDLED_FILE

logger = logging.getLogger(__name__)

MODELS_SHOWN = 6
"""Ollama's models named in the message for one it does not have."""


def _is_local_model(settings: Settings, name: str) -> bool:
    """Whether ``name`` names the file the local provider loads (its file name, with or
    without ``.gguf``, or the part before the quantisation: ``SmolLM2-135M-Instruct``)."""
    path = local_model_path(settings)
    file = path.name if path is not None else BUNDLED_FILE
    wanted = name.strip().casefold()
    return wanted in {file.casefold(), file.casefold().removesuffix(".gguf"),
                      file.casefold().split(".")[0]}


def model_problem(settings: Settings) -> str | None:
    """Why ``llm.model`` names no model its provider has (one line saying how to fix
    it), or ``None`` when it does, is blank, or cannot be checked from here.

    The settings page asks before it saves: an unknown name was accepted, then every
    run failed, or ``auto`` silently answered with the bundled model. ``local`` runs one
    file (``llm.gguf_path``, else the bundled model), so only its name is valid.
    ``ollama`` and ``auto`` ask the Ollama server for its models (``GET /api/tags``,
    through the egress policy); a server that cannot be reached is said so, not taken
    as agreement - except for ``auto`` naming the local model, which needs no Ollama.
    A hosted provider's list needs its key and the internet, and a plugin's is its own:
    those names are checked by the provider when a run starts.
    """
    model = (settings.llm.model or "").strip()
    if not model:
        return None
    provider = PROVIDER_REGISTRY.canonical(settings.llm.provider)
    local = local_model_path(settings)
    local_name = local.name if local is not None else BUNDLED_FILE
    if provider == "local":
        if _is_local_model(settings, model):
            return None
        return (f"the local provider runs only {local_name} (llm.gguf_path picks another "
                f"file), not {model} - leave the model blank, or choose provider ollama "
                f"or openai for {model}")
    if provider not in ("ollama", AUTO):
        return None
    if provider == AUTO and _is_local_model(settings, model):
        return None
    url = settings.llm.ollama_url
    try:
        models = ollama_models(url, settings=settings)
    except OllamaUnreachable as exc:
        logger.debug("Ollama probe failed: %s", exc)
        return (f"cannot check the model {model}: Ollama is not reachable at {url} - "
                "start it (`ollama serve`), correct the Ollama URL, or leave the model "
                "blank")
    if ollama_has(models, model):
        return None
    has = (f"it has {', '.join(models[:MODELS_SHOWN])}"
           + (f" and {len(models) - MODELS_SHOWN} more" if len(models) > MODELS_SHOWN
              else "")) if models else "it has none"
    return (f"Ollama at {url} has no model {model} ({has}) - run `ollama pull {model}` "
            "or enter one it has")
