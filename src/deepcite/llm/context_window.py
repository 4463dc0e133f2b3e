"""How large a served model's context window is, asked of the server instead of assumed.

Prompts are cut to fit the window (:func:`deepcite.llm.client.prompt_budget_chars`), so a
wrong guess costs either way: too large and a llama.cpp server with a 2,048-token window
rejects every long prompt; too small and a 128k-token model sees a fraction of what was
found. Each kind of server says it somewhere else:

* Ollama: ``POST /api/show`` - the Modelfile's ``num_ctx`` parameter, else the GGUF's
  ``<architecture>.context_length`` in ``model_info``;
* OpenAI-compatible servers: ``GET <base_url>/models`` - ``max_model_len`` (vLLM),
  ``loaded_context_length`` / ``max_context_length`` (LM Studio), ``n_ctx`` or
  ``context_length`` (others); then llama.cpp's ``GET /props``
  (``default_generation_settings.n_ctx``) and LM Studio's ``GET /api/v0/models``;
* hosted OpenAI and Anthropic models: :data:`KNOWN_WINDOWS`, matched by name prefix.

Each (server, model) is asked once per process, through the egress policy with a short
timeout; whatever goes wrong, the answer is "unknown" (logged once at debug) and the
caller keeps its default. A window a server states in a context-length error is
remembered here too (:func:`remember_window`), so later clients start from it.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from deepcite.config import Settings
from deepcite.errors import EgressDenied, ModelError
from deepcite.security.egress import EgressPolicy

if TYPE_CHECKING:
    import httpx

# httpx and the egress transport load with the first probe: the bundled model asks
# nothing of any server, and an offline ask need not load an HTTP client.

logger = logging.getLogger(__name__)

PROBE_TIMEOUT_SECONDS = 2.0
"""Short: the probe runs once when a model is built and must not stall a dead server."""

#: Context windows of hosted models by name prefix; the longest matching prefix wins.
KNOWN_WINDOWS: tuple[tuple[str, int], ...] = (
    ("gpt-5", 400_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("chatgpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4-32k", 32_768),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("o1-mini", 128_000),
    ("o1-preview", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("claude-2", 100_000),
    ("claude-instant", 100_000),
    ("claude-3", 200_000),
    ("claude-sonnet-4", 200_000),
    ("claude-opus-4", 200_000),
    ("claude-haiku-4", 200_000),
    ("claude-", 200_000),
)

#: ``/v1/models`` fields naming the window, the one in effect before trained maxima.
MODEL_LIST_FIELDS = ("max_model_len", "loaded_context_length", "n_ctx", "context_length",
                     "max_context_length", "context_window")

_Key = tuple[str, str]
_WINDOWS: dict[_Key, int | None] = {}
_LOCK = threading.Lock()


class OllamaModelMissing(ModelError):
    """The Ollama server has no model of that name; the message says how to pull it."""


def known_window(model: str | None) -> int | None:
    """The window of a hosted model from :data:`KNOWN_WINDOWS`, by longest name prefix.

    A router's ``vendor/`` prefix (``openai/gpt-4o``) is ignored.
    """
    if not model:
        return None
    name = model.lower().rsplit("/", 1)[-1]
    best = max((prefix for prefix, _ in KNOWN_WINDOWS if name.startswith(prefix)),
               key=len, default=None)
    return dict(KNOWN_WINDOWS)[best] if best is not None else None


def server_name(url: str | None) -> str:
    """``host:port`` of a server URL, how one-line errors name the server."""
    if not url:
        return "the model server"
    parts = urlsplit(url if "//" in url else f"http://{url}")
    return parts.netloc or url


def _key(base_url: str, model: str) -> _Key:
    return (base_url.rstrip("/"), model)


def remembered_window(base_url: str | None, model: str | None) -> int | None:
    """The window found (or learned from an error) for this server and model, if any."""
    if not base_url or not model:
        return None
    with _LOCK:
        return _WINDOWS.get(_key(base_url, model))


def remember_window(base_url: str | None, model: str | None, tokens: int) -> None:
    """Record a window the server stated (in an error, say) for later clients."""
    if base_url and model and tokens > 0:
        with _LOCK:
            _WINDOWS[_key(base_url, model)] = tokens


def forget_windows() -> None:
    """Forget every window found so far (tests; a server restarted with another size)."""
    with _LOCK:
        _WINDOWS.clear()


def _positive(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and value > 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return int(value)
    return None


def _once(base_url: str, model: str, probe: Callable[[], int | None]) -> int | None:
    """Run ``probe`` for this (server, model) once per process; failures give ``None``."""
    key = _key(base_url, model)
    with _LOCK:
        if key in _WINDOWS:
            return _WINDOWS[key]
    import httpx

    try:
        found = probe()
    except OllamaModelMissing:
        raise
    except (httpx.HTTPError, OSError, ValueError, EgressDenied, RuntimeError) as exc:
        # RuntimeError: pytest-socket's SocketBlockedError, a blocked socket in tests.
        logger.debug("context window of %s at %s unknown (%s: %s); using the default",
                     model, server_name(base_url), type(exc).__name__, exc)
        found = None
    if found is None:
        logger.debug("%s at %s did not say its context window; using the default",
                     model, server_name(base_url))
    with _LOCK:
        _WINDOWS.setdefault(key, found)
        return _WINDOWS[key]


def _get_json(client: httpx.Client, url: str) -> Any:
    response = client.get(url)
    response.raise_for_status()
    return response.json()


# ------------------------------------------------------------------------------ ollama


def _num_ctx_parameter(parameters: object) -> int | None:
    if not isinstance(parameters, str):
        return None
    match = re.search(r"^\s*num_ctx\s+(\d+)", parameters, re.M)
    return int(match.group(1)) if match else None


def _ollama_show(data: object) -> int | None:
    if not isinstance(data, dict):
        return None
    configured = _num_ctx_parameter(data.get("parameters"))
    if configured:
        return configured
    info = data.get("model_info")
    if not isinstance(info, dict):
        return None
    arch = info.get("general.architecture")
    if isinstance(arch, str) and _positive(info.get(f"{arch}.context_length")):
        return _positive(info.get(f"{arch}.context_length"))
    return next((n for k, v in info.items() if k.endswith(".context_length")
                 and (n := _positive(v))), None)


def ollama_window(url: str, model: str, settings: Settings | None = None,
                  timeout: float = PROBE_TIMEOUT_SECONDS) -> int | None:
    """The window Ollama runs ``model`` with by default, from ``POST /api/show``.

    Raises :class:`OllamaModelMissing` when the server answers 404 (not pulled); any
    other failure gives ``None``.
    """

    def probe() -> int | None:
        from deepcite.security.transport import egress_client

        policy = EgressPolicy.from_settings(settings, [url])
        with egress_client(policy, timeout=timeout) as client:
            response = client.post(f"{url.rstrip('/')}/api/show",
                                   json={"model": model, "name": model})
        if response.status_code == 404:
            raise OllamaModelMissing(ollama_missing_message(model, url))
        response.raise_for_status()
        return _ollama_show(response.json())

    return _once(url, model, probe)


def ollama_missing_message(model: str, url: str | None) -> str:
    """The one line for a model Ollama does not have."""
    return (f"Ollama at {server_name(url)} has no model {model} - "
            f"run `ollama pull {model}`")


# ------------------------------------------------------------------- openai-compatible


def _from_entry(entry: object) -> int | None:
    if not isinstance(entry, dict):
        return None
    for name in MODEL_LIST_FIELDS:
        if found := _positive(entry.get(name)):
            return found
    meta = entry.get("meta")  # llama.cpp's server: the trained window only
    return _positive(meta.get("n_ctx_train")) if isinstance(meta, dict) else None


def _entry_for(listing: object, model: str) -> dict[str, Any] | None:
    entries = listing.get("data") if isinstance(listing, dict) else listing
    if not isinstance(entries, list):
        return None
    dicts = [e for e in entries if isinstance(e, dict)]
    named = [e for e in dicts if model in (e.get("id"), e.get("model"), e.get("name"))]
    if named:
        return named[0]
    return dicts[0] if len(dicts) == 1 else None


def _props(data: object) -> int | None:
    if not isinstance(data, dict):
        return None
    settings = data.get("default_generation_settings")
    if isinstance(settings, dict) and (found := _positive(settings.get("n_ctx"))):
        return found
    return _positive(data.get("n_ctx"))


def _server_root(base_url: str) -> str:
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def _trained_only(entry: dict[str, Any] | None) -> bool:
    return entry is not None and not any(_positive(entry.get(f)) for f in MODEL_LIST_FIELDS)


def openai_compatible_window(base_url: str, model: str, settings: Settings | None = None,
                             timeout: float = PROBE_TIMEOUT_SECONDS) -> int | None:
    """The window an OpenAI-compatible server (vLLM, llama.cpp, LM Studio ...) states.

    ``<base_url>/models`` first; when it names no window in effect, llama.cpp's
    ``/props`` and LM Studio's ``/api/v0/models``; a trained window from the model
    list (``meta.n_ctx_train``) is the last resort, because the server may run less.
    """

    def probe() -> int | None:
        import httpx

        from deepcite.security.transport import egress_client

        policy = EgressPolicy.from_settings(settings, [base_url])
        root = _server_root(base_url)
        with egress_client(policy, timeout=timeout) as client:
            entry, trained = None, None
            try:
                entry = _entry_for(_get_json(client, f"{base_url.rstrip('/')}/models"), model)
            except (httpx.HTTPError, ValueError) as exc:
                logger.debug("no model list at %s: %s", server_name(base_url), exc)
            if entry is not None:
                if not _trained_only(entry):
                    return _from_entry(entry)
                trained = _from_entry(entry)
            for path, read in _FALLBACKS:
                try:
                    found = read(_get_json(client, f"{root}{path(model)}"), model)
                except (httpx.HTTPError, ValueError) as exc:
                    logger.debug("no %s at %s: %s", path(model), server_name(base_url), exc)
                    continue
                if found:
                    return found
            return trained

    return _once(base_url, model, probe)


def _lm_studio(data: object, model: str) -> int | None:
    entry = _entry_for(data, model) if not (isinstance(data, dict) and "id" in data) else data
    if not isinstance(entry, dict):
        return None
    return _positive(entry.get("loaded_context_length")) or _positive(
        entry.get("max_context_length"))


_FALLBACKS: tuple[tuple[Callable[[str], str], Callable[[object, str], int | None]], ...] = (
    (lambda _model: "/props", lambda data, _model: _props(data)),
    (lambda model: f"/api/v0/models/{quote(model, safe='')}", _lm_studio),
)


# --------------------------------------------------------------------------- built model


def model_identity(model: object) -> tuple[str | None, str | None]:
    """(server URL, model name) of a built LangChain chat model, where it has them."""
    url = next((v for a in ("openai_api_base", "base_url", "anthropic_api_url")
                if isinstance(v := getattr(model, a, None), str) and v), None)
    name = next((v for a in ("model_name", "model")
                 if isinstance(v := getattr(model, a, None), str) and v), None)
    return url, name


def served_window(model: object) -> int | None:
    """What is known of a built model's window without asking anyone: found, or listed."""
    url, name = model_identity(model)
    return remembered_window(url, name) or known_window(name)

