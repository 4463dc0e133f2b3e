"""The provider registry: the built-in providers, ``deepcite.llm_providers`` plugins,
and the one name that is not a provider, ``auto``."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from deepcite.errors import ConfigError
from deepcite.llm._anthropic_provider import build_anthropic, check_anthropic
from deepcite.llm._local_provider import build_local, check_local
from deepcite.llm._ollama_provider import build_ollama, check_ollama
from deepcite.llm._openai_provider import build_openai, check_openai
from deepcite.llm._provider_kit import ProviderSpec
from deepcite.plugins import LLM_PROVIDERS_GROUP, Registry

PROVIDERS: Mapping[str, ProviderSpec] = MappingProxyType(
    {
        "local": ProviderSpec(
            "local",
            "bundled or chosen GGUF model run in-process by llama.cpp (offline)",
            build_local,
            check_local,
        ),
        "ollama": ProviderSpec(
            "ollama", "a model served by Ollama (llm.ollama_url)", build_ollama, check_ollama
        ),
        "openai": ProviderSpec(
            "openai",
            "OpenAI or an OpenAI-compatible server (llm.base_url)",
            build_openai,
            check_openai,
        ),
        "anthropic": ProviderSpec(
            "anthropic", "Anthropic's Claude models", build_anthropic, check_anthropic
        ),
    }
)

AUTO = "auto"


def _provider_spec(name: str, obj: object) -> ProviderSpec:
    """``obj`` if it is a :class:`ProviderSpec` (what a plugin's entry point names)."""
    if isinstance(obj, ProviderSpec):
        return obj
    raise ConfigError(f"The LLM provider {name!r} ({PROVIDER_REGISTRY.origin(name)}) is "
                      f"not a deepcite.llm.ProviderSpec but a {type(obj).__name__} - fix or "
                      "uninstall the plugin")


PROVIDER_REGISTRY: Registry[ProviderSpec] = Registry(
    "LLM provider", group=LLM_PROVIDERS_GROUP, builtins=PROVIDERS, check=_provider_spec,
    reserved=(AUTO,), hint="See `deepcite models`",
)
"""Built-in providers and ``deepcite.llm_providers`` plugins (entry point value: a
:class:`ProviderSpec`); ``auto`` is reserved, it chooses among them."""


def get_provider(name: str) -> ProviderSpec:
    """The provider called ``name`` (any spelling); :class:`ConfigError` when unknown."""
    if PROVIDER_REGISTRY.canonical(name) == AUTO:
        raise ConfigError("'auto' is not a provider but a choice among them - resolve it "
                          "with resolve_provider(settings)")
    return PROVIDER_REGISTRY.load(name)
