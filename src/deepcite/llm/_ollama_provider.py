"""The ``ollama`` provider: a model served by Ollama (``llm.ollama_url``).

Also the probe ``auto`` and the settings page's model check ask (:func:`ollama_models`),
and the context size sent with each request (``num_ctx``).
"""

from __future__ import annotations

import logging
import socket
from typing import TYPE_CHECKING

from deepcite._optional import installed as _installed
from deepcite.config import Settings
from deepcite.errors import EgressDenied, ModelError
from deepcite.llm._provider_kit import ProviderStatus, extra_missing, import_class
from deepcite.llm.client import (
    PROMPT_CHARS_PER_TOKEN,
    PROMPT_OVERHEAD_TOKENS,
    REMOTE_CONTEXT_TOKENS,
)
from deepcite.llm.context_window import ollama_window
from deepcite.security.egress import EgressPolicy, Verdict

# httpx and the egress transport (``deepcite.security.transport``) are imported where
# the provider talks to a server: a refused Ollama port needs no HTTP client, and
# loading one costs an offline ask about a tenth of a second.

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)

OLLAMA_PROBE_TIMEOUT_SECONDS = 1.0
"""Short on purpose: ``auto`` probes Ollama on every run and must not stall when it is off."""


class OllamaUnreachable(ModelError):
    """The Ollama server did not answer ``/api/tags`` usefully; the message says how."""


def ollama_models(url: str, timeout: float = OLLAMA_PROBE_TIMEOUT_SECONDS,
                  settings: Settings | None = None) -> list[str]:
    """Names of the models an Ollama server has pulled; raises :class:`OllamaUnreachable`.

    The probe goes through the egress policy with ``url`` as a configured service, so
    only that origin is reachable (and nothing on the internet while offline).
    """
    tags_url = f"{url.rstrip('/')}/api/tags"
    policy = EgressPolicy.from_settings(settings, [url])
    try:
        refused = _refused_everywhere(policy.vet(tags_url), timeout)
    except EgressDenied as exc:
        raise OllamaUnreachable(str(exc)) from exc
    if refused:
        raise OllamaUnreachable(f"ConnectError: nothing listens at {url}")
    import httpx

    from deepcite.security.transport import egress_client

    try:
        with egress_client(policy, timeout=timeout) as client:
            response = client.get(tags_url)
        response.raise_for_status()
        data = response.json()
    except EgressDenied as exc:
        raise OllamaUnreachable(str(exc)) from exc
    except (httpx.HTTPError, OSError, ValueError) as exc:
        raise OllamaUnreachable(f"{type(exc).__name__}: {exc}") from exc
    except RuntimeError as exc:
        # pytest-socket's SocketBlockedError derives from RuntimeError; a blocked socket
        # means "not reachable" just like a refused connection. Nothing else is caught.
        raise OllamaUnreachable(f"{type(exc).__name__}: {exc}") from exc
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, list):
        raise OllamaUnreachable(f"{tags_url} did not return a model list")
    names = [m.get("name") or m.get("model") for m in models if isinstance(m, dict)]
    return [name for name in names if isinstance(name, str) and name]


def _refused_everywhere(verdict: Verdict, timeout: float) -> bool:
    """Whether every address the policy approved refuses a TCP connection outright.

    ``auto`` asks Ollama on every run, and where it is not running the answer is a
    refused connection, known in a millisecond; the HTTP client that would ask builds
    TLS contexts first (about 0.1 s, more on a busy machine). Only a refusal counts:
    anything else (a timeout, a blocked socket) leaves the decision to the real probe.
    """
    for address in verdict.addresses:
        try:
            with socket.create_connection((address, verdict.port), timeout=timeout):
                return False
        except ConnectionRefusedError:
            continue
        except (OSError, RuntimeError):  # RuntimeError: pytest-socket's blocked socket
            return False
    return bool(verdict.addresses)


def ollama_has(models: list[str], wanted: str) -> bool:
    """Whether Ollama's ``models`` include ``wanted`` (``llama3.2`` is ``llama3.2:latest``)."""
    return wanted in models or f"{wanted}:latest" in models


def check_ollama(settings: Settings) -> ProviderStatus:
    """Whether Ollama answers here with the model asked for (or any, if none is)."""
    url = settings.llm.ollama_url
    if not _installed("langchain_ollama"):
        return ProviderStatus("ollama", False, extra_missing("langchain-ollama", "ollama"))
    try:
        models = ollama_models(url, settings=settings)
    except OllamaUnreachable as exc:
        logger.debug("Ollama probe failed: %s", exc)
        return ProviderStatus(
            "ollama", False, f"Ollama not reachable at {url} - start it with `ollama serve`"
        )
    if not models:
        return ProviderStatus(
            "ollama", False, f"Ollama at {url} has no models - run `ollama pull llama3.2`"
        )
    wanted = settings.llm.model
    if wanted and not ollama_has(models, wanted):
        return ProviderStatus(
            "ollama", False, f"Ollama at {url} has no model {wanted} - run `ollama pull {wanted}`"
        )
    return ProviderStatus("ollama", True, f"Ollama at {url}, model {wanted or models[0]}")


def build_ollama(settings: Settings) -> BaseChatModel:
    """``ChatOllama`` connecting through the egress policy's pinned transport."""
    from deepcite.security.transport import EgressTransport, refusing_transport

    chat_ollama = import_class("langchain_ollama", "ChatOllama", "langchain-ollama", "ollama")
    fields = getattr(chat_ollama, "model_fields", None)
    if fields is not None and "async_client_kwargs" not in fields:
        # Older releases pass one set of kwargs to both clients, so the sync client's
        # pinned transport could not be given without breaking the async one.
        raise ModelError("langchain-ollama is too old to connect through the egress policy "
                         "- run `pip install -U 'deepcite[ollama]'`")
    url = settings.llm.ollama_url
    model = settings.llm.model
    if not model:
        try:
            models = ollama_models(url, settings=settings)
        except OllamaUnreachable as exc:
            raise ModelError(
                f"Ollama not reachable at {url} - start it with `ollama serve`, "
                "or set llm.model to skip the model lookup"
            ) from exc
        if not models:
            raise ModelError(f"Ollama at {url} has no models - run `ollama pull llama3.2`")
        model = models[0]
        logger.info("using Ollama model %s (first listed; set llm.model to choose)", model)
    built: BaseChatModel = chat_ollama(
        model=model,
        base_url=url,
        temperature=settings.llm.temperature,
        num_predict=settings.llm.max_tokens,
        num_ctx=_ollama_num_ctx(settings, model),
        client_kwargs={"timeout": settings.llm.timeout_seconds},
        # The ollama package's httpx clients connect through the pinned transport, so
        # the server the policy approved (llm.ollama_url as a configured service) is
        # the one reached at connect time; the async client, which deepcite never
        # calls, refuses rather than connect unpinned.
        sync_client_kwargs={"transport": EgressTransport(
            EgressPolicy.from_settings(settings, [url]))},
        async_client_kwargs={"transport": refusing_transport()},
    )
    return built


SOURCE_CEILING_CHARS = 4000
"""The most characters of one source a prompt holds (``deepcite.citations.share``'s
ceiling; repeated here because the model layer sits below the citation layer)."""


def prompt_need_tokens(settings: Settings) -> int:
    """Tokens the largest prompt deepcite builds needs, with its reply, rounded up to 1k.

    ``research.max_sources`` sources at their ceiling plus question, instructions and
    the reply. A larger ``num_ctx`` than this only costs the Ollama server memory (its
    KV cache grows with it) and gains nothing.
    """
    prompt_chars = settings.research.max_sources * SOURCE_CEILING_CHARS + 2000
    need = (-(-prompt_chars // PROMPT_CHARS_PER_TOKEN) + settings.llm.max_tokens
            + PROMPT_OVERHEAD_TOKENS)
    return -(-need // 1024) * 1024


def _ollama_num_ctx(settings: Settings, model: str) -> int:
    """``num_ctx`` to send: the setting, else the model's window capped by the need.

    Ollama's per-request ``num_ctx`` replaces the model's own; sending a fixed 8,192
    cut a 128k model short and overflowed a 4k one. A model the server lacks raises
    the one-line "run `ollama pull NAME`" error here, before any question is asked.
    """
    if settings.llm.context_size is not None:
        return settings.llm.context_size
    window = ollama_window(settings.llm.ollama_url, model, settings)
    if window is None:
        return REMOTE_CONTEXT_TOKENS
    return min(window, prompt_need_tokens(settings))
