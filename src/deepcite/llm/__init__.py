"""Chat models for deepcite: choosing one, calling it, and reading its replies.

``get_chat_model(settings)`` builds the LangChain chat model the settings ask for (see
:mod:`deepcite.llm.providers`); :class:`ChatClient` is how the rest of deepcite calls it;
:func:`parse_list` and :func:`parse_json_lenient` read what small models write.
Nothing here imports a provider SDK until that provider is built, so importing
``deepcite.llm`` stays cheap and works without any optional extra.
"""

from __future__ import annotations

from deepcite.llm.client import (
    ChatClient,
    Usage,
    context_size_for,
    model_context_size,
    prompt_budget_chars,
)
from deepcite.llm.interface import ModelInterface
from deepcite.llm.local import LlamaCppChatModel, bundled_model_path
from deepcite.llm.parsing import content_text, parse_json_lenient, parse_list, strip_thinking
from deepcite.llm.providers import (
    PROVIDER_REGISTRY,
    PROVIDERS,
    ProviderSpec,
    ProviderStatus,
    describe_providers,
    get_chat_model,
    get_provider,
    resolve_provider,
)

__all__ = [
    "PROVIDERS",
    "PROVIDER_REGISTRY",
    "ChatClient",
    "LlamaCppChatModel",
    "ModelInterface",
    "ProviderSpec",
    "ProviderStatus",
    "Usage",
    "bundled_model_path",
    "content_text",
    "context_size_for",
    "describe_providers",
    "get_chat_model",
    "get_provider",
    "model_context_size",
    "parse_json_lenient",
    "parse_list",
    "prompt_budget_chars",
    "resolve_provider",
    "strip_thinking",
]

