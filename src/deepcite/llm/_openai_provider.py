"""The ``openai`` provider: OpenAI, or an OpenAI-compatible server (``llm.base_url``)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from deepcite._optional import installed as _installed
from deepcite.config import Settings
from deepcite.errors import ModelError
from deepcite.llm._provider_kit import (
    ProviderStatus,
    configured_key,
    extra_missing,
    import_class,
    no_key_message,
)
from deepcite.llm.context_window import openai_compatible_window
from deepcite.security.egress import EgressPolicy

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

LOCAL_SERVER_PLACEHOLDER_KEY = "not-needed"


def check_openai(settings: Settings) -> ProviderStatus:
    """Whether the SDK, a model name and a key (or a local server) are there."""
    if not _installed("langchain_openai"):
        return ProviderStatus("openai", False, extra_missing("langchain-openai", "openai"))
    if not settings.llm.model:
        return ProviderStatus("openai", False, "no model - set llm.model (e.g. gpt-4o-mini)")
    if not configured_key(settings, "OPENAI_API_KEY") and not settings.llm.base_url:
        return ProviderStatus("openai", False, no_key_message("OPENAI_API_KEY"))
    where = settings.llm.base_url or "api.openai.com"
    return ProviderStatus("openai", True, f"model {settings.llm.model} at {where}")


def build_openai(settings: Settings) -> BaseChatModel:
    """``ChatOpenAI`` whose connections go through the pinned egress client."""
    from deepcite.security.transport import egress_client

    chat_openai = import_class("langchain_openai", "ChatOpenAI", "langchain-openai", "openai")
    if not settings.llm.model:
        raise ModelError(
            "The openai provider needs a model name - set llm.model (e.g. gpt-4o-mini)"
        )
    key = configured_key(settings, "OPENAI_API_KEY")
    if key is None:
        if not settings.llm.base_url:
            raise ModelError(
                "The openai provider has "
                + no_key_message("OPENAI_API_KEY")
                + " (or set llm.base_url for a local OpenAI-compatible server)"
            )
        # Local OpenAI-compatible servers (vLLM, LM Studio, llama.cpp) ignore the key but
        # the SDK refuses to start without one.
        key = LOCAL_SERVER_PLACEHOLDER_KEY
    if settings.llm.base_url:
        chat_openai = _sending_max_tokens(chat_openai)
    # The SDK's connections go through the pinned egress client, so the server the
    # policy approved (llm.base_url as a configured service) is the one reached, at
    # connect time - not only checked once before the run (runs.build).
    policy = EgressPolicy.from_settings(settings, [settings.llm.base_url])
    built: BaseChatModel = chat_openai(
        model=settings.llm.model,
        base_url=settings.llm.base_url,
        api_key=SecretStr(key),
        temperature=settings.llm.temperature,
        max_tokens=settings.llm.max_tokens,
        timeout=settings.llm.timeout_seconds,
        http_client=egress_client(policy, timeout=settings.llm.timeout_seconds),
    )
    if settings.llm.base_url and settings.llm.context_size is None:
        # Found once per server and model; model_context_size reads it back.
        openai_compatible_window(settings.llm.base_url, settings.llm.model, settings)
    return built


@functools.cache
def _sending_max_tokens(chat_openai: type[Any]) -> type[Any]:
    """``ChatOpenAI`` that also sends the reply cap as ``max_tokens``.

    langchain-openai sends the cap only as ``max_completion_tokens``, the name OpenAI's
    own API prefers. Several OpenAI-compatible servers (llama.cpp's and
    llama-cpp-python's among them) ignore that name and honour only ``max_tokens``, so
    replies there ran hundreds of tokens past ``llm.max_tokens``: slower, dearer, and a
    retry for a "cut" reply could never happen. Sending both names is what those servers
    need and what the others accept. Only for ``llm.base_url`` servers: OpenAI's own API
    asks for the newer name, and its o-series models refuse ``max_tokens``.
    """

    class ChatOpenAICompatible(chat_openai):  # type: ignore[misc]
        def _get_request_payload(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            payload: dict[str, Any] = super()._get_request_payload(*args, **kwargs)
            cap = payload.get("max_completion_tokens")
            if cap is not None and "max_tokens" not in payload:
                payload["max_tokens"] = cap
            return payload

    ChatOpenAICompatible.__name__ = ChatOpenAICompatible.__qualname__ = "ChatOpenAI"
    return ChatOpenAICompatible
