"""The ``anthropic`` provider: Anthropic's Claude models, through the pinned egress client."""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

from pydantic import PrivateAttr, SecretStr

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
from deepcite.security.egress import EgressPolicy

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"
ANTHROPIC_API = "https://api.anthropic.com"
"""Anthropic's own endpoint: on the internet, so it passes the policy's ordinary rules;
any other (``ANTHROPIC_BASE_URL``) is one the user configured, a service."""


def check_anthropic(settings: Settings) -> ProviderStatus:
    """Whether the SDK and a key are there."""
    if not _installed("langchain_anthropic"):
        return ProviderStatus(
            "anthropic", False, extra_missing("langchain-anthropic", "anthropic")
        )
    if not configured_key(settings, "ANTHROPIC_API_KEY"):
        return ProviderStatus("anthropic", False, no_key_message("ANTHROPIC_API_KEY"))
    return ProviderStatus(
        "anthropic", True, f"model {settings.llm.model or DEFAULT_ANTHROPIC_MODEL}"
    )


def build_anthropic(settings: Settings) -> BaseChatModel:
    """``ChatAnthropic`` whose SDK clients connect through the egress policy."""
    chat_anthropic = import_class(
        "langchain_anthropic", "ChatAnthropic", "langchain-anthropic", "anthropic"
    )
    key = configured_key(settings, "ANTHROPIC_API_KEY")
    if key is None:
        raise ModelError("The anthropic provider has " + no_key_message("ANTHROPIC_API_KEY"))
    built: BaseChatModel = _pinned_anthropic(chat_anthropic)(
        model=settings.llm.model or DEFAULT_ANTHROPIC_MODEL,
        api_key=SecretStr(key),
        temperature=settings.llm.temperature,
        max_tokens=settings.llm.max_tokens,
        timeout=settings.llm.timeout_seconds,
    )
    built._deepcite_egress = (EgressPolicy.from_settings(settings),  # type: ignore[attr-defined]
                              settings.llm.timeout_seconds)
    return built


@functools.cache
def _pinned_anthropic(chat_anthropic: type[Any]) -> type[Any]:
    """``ChatAnthropic`` whose SDK clients connect through the pinned egress client.

    langchain-anthropic has no setting for the SDK's ``http_client``: its ``_client``
    and ``_async_client`` properties build their own httpx clients, which would resolve
    the name again at connect time, past the policy. These overrides build the same
    ``anthropic.Anthropic`` with our pinned client instead - of the httpx the installed
    SDK requires (newer releases take only ``httpx2``). An endpoint the user set
    (``ANTHROPIC_BASE_URL``) is a configured service, as ``llm.base_url`` is for the
    openai provider; Anthropic's own must be a public address like any other host. The
    async client refuses: deepcite calls models synchronously, and an unpinned fallback
    is what this closes.
    """
    import anthropic
    import httpx

    from deepcite.security.transport import refusing_transport, sdk_egress_client

    default = getattr(anthropic, "DefaultHttpxClient", httpx.Client)
    http_name = next((c.__module__ for c in default.__mro__ if c.__name__ == "Client"),
                     "httpx").partition(".")[0]

    class ChatAnthropicPinned(chat_anthropic):  # type: ignore[misc]
        _deepcite_egress: Any = PrivateAttr(default=None)

        def _egress(self) -> tuple[EgressPolicy, float]:
            policy, timeout = self._deepcite_egress or (EgressPolicy(), 60.0)
            url = self.anthropic_api_url
            return policy.with_services([url if url != ANTHROPIC_API else None]), timeout

        @functools.cached_property
        def _client(self) -> Any:
            policy, timeout = self._egress()
            return anthropic.Anthropic(**self._client_params, http_client=sdk_egress_client(
                http_name, policy, timeout=timeout))

        @functools.cached_property
        def _async_client(self) -> Any:
            http = importlib.import_module(http_name)
            return anthropic.AsyncAnthropic(**self._client_params, http_client=http.AsyncClient(
                transport=refusing_transport(http_name)))

    ChatAnthropicPinned.__name__ = ChatAnthropicPinned.__qualname__ = "ChatAnthropic"
    return ChatAnthropicPinned
