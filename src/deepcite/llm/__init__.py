"""Chat models for deepcite: choosing one, calling it, and reading its replies.

``get_chat_model(settings)`` builds the LangChain chat model the settings ask for (see
:mod:`deepcite.llm.providers`); :class:`ChatClient` is how the rest of deepcite calls it;
:func:`parse_list` and :func:`parse_json_lenient` read what small models write.
Nothing here imports a provider SDK until that provider is built, so importing
``deepcite.llm`` stays cheap and works without any optional extra.
"""

from __future__ import annotations

from collections.abc import Callable

from deepcite.config import Settings
from deepcite.llm.client import (
    ChatClient,
    Usage,
    context_size_for,
    model_context_size,
    prompt_budget_chars,
)
from deepcite.llm.local import LlamaCppChatModel, bundled_model_path
from deepcite.llm.parsing import content_text, parse_json_lenient, parse_list, strip_thinking
from deepcite.llm.providers import (
    PROVIDERS,
    ProviderSpec,
    ProviderStatus,
    describe_providers,
    get_chat_model,
    get_provider,
    resolve_provider,
)
from deepcite.types import ModelCall

__all__ = [
    "PROVIDERS",
    "ChatClient",
    "LlamaCppChatModel",
    "ProviderSpec",
    "ProviderStatus",
    "Usage",
    "bundled_model_path",
    "content_text",
    "context_size_for",
    "create_client",
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


def create_client(
    settings: Settings, *, on_call: Callable[[ModelCall], None] | None = None
) -> ChatClient:
    """A :class:`ChatClient` over the model the settings choose, sized by their limits."""
    model = get_chat_model(settings)
    return ChatClient(
        model,
        context_size=model_context_size(model, settings.llm.context_size),
        max_tokens=settings.llm.max_tokens,
        on_call=on_call,
    )
