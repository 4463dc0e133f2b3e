"""Which chat model answers: the provider registry.

Each provider is one :class:`ProviderSpec` in :data:`PROVIDERS`: how to build its
LangChain chat model from the settings, and how to tell, without building it, whether it
can work here and what to do if not (``deepcite models`` prints exactly that). Adding a
provider means adding one entry, not another branch somewhere; a package adds one
through the ``deepcite.llm_providers`` entry point group (value: a :class:`ProviderSpec`),
spelled and checked by the shared :class:`deepcite.plugins.Registry`
(:data:`PROVIDER_REGISTRY`).

The SDK packages of the remote providers are optional extras, so they are imported only
inside ``build``; a missing one becomes a :class:`~deepcite.errors.ModelError` naming the
extra to install.

``auto`` is not a provider but a choice among them (:func:`resolve_provider`): a running
Ollama with a model if there is one, because it is likely a larger and better model the
user set up on purpose; otherwise the bundled local model, which always works offline.

The registry itself, each built-in provider and the model-name check live in private
modules (``_provider_registry``, ``_local_provider``, ``_ollama_provider``,
``_openai_provider``, ``_anthropic_provider``, ``_model_names``, with what they share
in ``_provider_kit``); their names are importable from here as before.
"""

from __future__ import annotations

import logging

from deepcite.config import Settings
from deepcite.errors import ConfigError, ModelError
from deepcite.llm._anthropic_provider import ANTHROPIC_API, DEFAULT_ANTHROPIC_MODEL
from deepcite.llm._local_provider import check_local, local_model_path
from deepcite.llm._model_names import MODELS_SHOWN, model_problem
from deepcite.llm._ollama_provider import (
    OLLAMA_PROBE_TIMEOUT_SECONDS,
    SOURCE_CEILING_CHARS,
    OllamaUnreachable,
    check_ollama,
    ollama_models,
    prompt_need_tokens,
)
from deepcite.llm._openai_provider import LOCAL_SERVER_PLACEHOLDER_KEY
from deepcite.llm._provider_kit import ProviderSpec, ProviderStatus
from deepcite.llm._provider_registry import AUTO, PROVIDER_REGISTRY, PROVIDERS, get_provider
from deepcite.llm.client import ChatModel

__all__ = [  # what other modules import from here, wherever it is defined
    "ANTHROPIC_API",
    "AUTO",
    "DEFAULT_ANTHROPIC_MODEL",
    "LOCAL_SERVER_PLACEHOLDER_KEY",
    "MODELS_SHOWN",
    "OLLAMA_PROBE_TIMEOUT_SECONDS",
    "PROVIDERS",
    "PROVIDER_REGISTRY",
    "SOURCE_CEILING_CHARS",
    "OllamaUnreachable",
    "ProviderSpec",
    "ProviderStatus",
    "describe_providers",
    "get_chat_model",
    "get_provider",
    "local_model_path",
    "model_problem",
    "ollama_models",
    "prompt_need_tokens",
    "resolve_provider",
]

logger = logging.getLogger(__name__)


def describe_providers(settings: Settings) -> list[ProviderStatus]:
    """One status per provider, built-ins first (for ``deepcite models``).

    A plugin that cannot be loaded is listed as unusable with the reason, not raised:
    the listing is where the user looks to find out.
    """
    statuses = []
    for name in PROVIDER_REGISTRY.names():
        try:
            spec = PROVIDER_REGISTRY.load(name)
        except ConfigError as exc:
            statuses.append(ProviderStatus(name, False, str(exc)))
            continue
        statuses.append(spec.check(settings))
    return statuses


def resolve_provider(settings: Settings) -> str:
    """The provider a run will use: the configured one, or what ``auto`` picks.

    ``auto`` picks Ollama when it is usable (extra installed, server answering, a model
    pulled, ``llm.model`` among them if set), else ``local``.
    """
    configured = PROVIDER_REGISTRY.canonical(settings.llm.provider)
    if configured != AUTO:
        get_provider(configured)
        return configured
    ollama = check_ollama(settings)
    if ollama.usable:
        logger.info("provider auto: using %s", ollama.detail)
        return "ollama"
    logger.info("provider auto: using local (%s)", ollama.detail)
    return "local"


def get_chat_model(settings: Settings) -> ChatModel:
    """Build the chat model the settings ask for; :class:`ModelError` says how to fix it."""
    name = resolve_provider(settings)
    if settings.llm.provider == AUTO and name == "local":
        local = check_local(settings)
        if not local.usable:
            ollama = check_ollama(settings)
            raise ModelError(
                f"No usable chat model: local: {local.detail}; ollama: {ollama.detail}"
            )
    return get_provider(name).build(settings)
