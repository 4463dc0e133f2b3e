"""What a run is built from: its collections, engines, model and Researcher.

Every run - whichever front end asked for it - gets its engines (each behind a circuit
breaker), its collections (names only, never paths) and its chat model (whose server
must pass the egress policy) here, so the rules hold everywhere. Tests replace the
model at this boundary (``monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
...)``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from deepcite.collections import Collection, LocalSearchEngine, ensure_demo_collection
from deepcite.config import Settings
from deepcite.errors import ConfigError, DeepciteError, EgressDenied, InputError, ModelError
from deepcite.llm import get_chat_model, resolve_provider
from deepcite.research import Researcher
from deepcite.search.base import SearchEngine
from deepcite.search.circuit_breaker import GuardedEngine
from deepcite.search.registry import (
    check_engine_tables,
    get_engine,
    normalise,
    unavailable_reason,
)
from deepcite.security import EgressPolicy
from deepcite.types import Event, PhaseStarted

__all__ = ["DEFAULT_WEB_ENGINE", "DEMO_COLLECTION", "build_engines", "build_researcher",
           "check_model_egress", "engine_names_for", "kind", "open_collections", "warm_up"]

DEMO_COLLECTION = "demo"

logger = logging.getLogger(__name__)


def open_collections(settings: Settings, names: Sequence[str],
                     on_build: Callable[[], None] | None = None) -> list[Collection]:
    """Open the named collections; ``demo`` is built on first use.

    Names only (:meth:`Collection.named`), never file paths: ``search.collections`` can
    come from a web or MCP request, and a path there must not open a server file.
    ``on_build`` is told when the demo is built, or waited for while another run or
    process builds it (see :func:`~deepcite.collections.ensure_demo_collection`)."""
    opened = []
    for name in dict.fromkeys(names):
        if name == DEMO_COLLECTION:
            opened.append(ensure_demo_collection(settings, on_build=on_build))
        else:
            opened.append(Collection.named(name, settings=settings))
    return opened


DEFAULT_WEB_ENGINE = "duckduckgo"


def engine_names_for(settings: Settings) -> list[str]:
    """Engines a run uses: the configured ones, else the web default unless collections
    were given (then the run stays on the user's documents)."""
    names = [normalise(n) for n in settings.search.engines]
    if not names and not settings.search.collections:
        names = [DEFAULT_WEB_ENGINE]
    return list(dict.fromkeys(n for n in names if n != "local"))


def build_engines(settings: Settings, on_build: Callable[[], None] | None = None
                  ) -> tuple[list[SearchEngine], list[str]]:
    """The engines of a run and notices about the ones skipped (offline).

    Each engine is wrapped in a circuit breaker. An engine the user named that cannot
    run (missing key, unknown name) is a ConfigError, except offline, where skipping
    web engines is the point and the run says which it skipped. ``on_build``: as for
    :func:`open_collections`.
    """
    if "local" in (normalise(n) for n in settings.search.engines) and \
            not settings.search.collections:
        raise ConfigError("The local engine searches collections - pass --collection NAME")
    check_engine_tables(settings)
    engines: list[SearchEngine] = []
    notices: list[str] = []
    collections = open_collections(settings, settings.search.collections, on_build)
    if collections:
        engines.append(LocalSearchEngine(collections))
    for name in engine_names_for(settings):
        reason = unavailable_reason(name, settings)
        if reason and settings.security.offline:
            notices.append(f"Skipped engine {name}: {reason}")
            continue
        engines.append(get_engine(name, settings))
    failures = settings.engines.circuit_failures
    return [GuardedEngine(engine, failures) for engine in engines], notices


def check_model_egress(settings: Settings) -> None:
    """The model's server must pass the egress policy as a configured service: its
    exact origin is allowed, a link-local or metadata address never is, and an offline
    run may only use a model on this machine or the user's network."""
    provider = resolve_provider(settings)
    urls = {"ollama": settings.llm.ollama_url, "openai": settings.llm.base_url,
            "anthropic": None}
    if provider not in urls:
        return
    url = urls[provider]
    if url is None:
        if settings.security.offline:
            raise ModelError(f"The {provider} provider needs the internet and the run is "
                             "offline - use --provider local or a local server (llm.base_url)")
        return
    try:
        EgressPolicy.from_settings(settings, [url]).check(url)
    except EgressDenied as exc:
        raise ModelError(f"The {provider} server is not allowed: {exc}") from None


def build_researcher(
    settings: Settings, on_event: Callable[[Event], None] | None = None, *,
    extra_engines: Sequence[SearchEngine] = ()
) -> Researcher:
    """A Researcher wired from settings: chat model, engines, event callback.

    ``extra_engines`` search besides the configured ones (a document check's materials:
    :class:`~deepcite.runs.material_engine.MaterialEngine`). A run that builds the demo
    collection's index, or waits while another builds it, announces its ``index`` phase
    first (it can take a minute, once)."""
    _require_settings(settings, "build_researcher()")
    _require_callback(on_event, "build_researcher()")

    def building() -> None:
        if on_event is not None:
            on_event(PhaseStarted(phase="index"))

    engines, notices = build_engines(settings, building)
    check_model_egress(settings)
    return Researcher(settings, get_chat_model(settings), [*engines, *extra_engines],
                      on_event, notices=notices)


def warm_up(settings: Settings) -> None:
    """Make a long-lived server ready for its first question: the demo collection built
    (or found current) and, when runs use the in-process model, that model loaded.

    Each costs seconds once (the demo's index once per data dir, the model once per
    process); paid while the server waits for its first request, the first answer
    does not wait for them. A run that comes meanwhile waits for the same build lock
    and model cache instead of doing the work twice. A failure is only logged: the run
    that meets it reports it as it always did.
    """
    started = time.perf_counter()
    try:
        ensure_demo_collection(settings)
        if resolve_provider(settings) == "local":
            get_chat_model(settings)  # loads the model into its process-wide cache
    except DeepciteError as exc:
        logger.info("warm-up stopped: %s", exc)
        return
    logger.info("ready for the first question in %.1fs", time.perf_counter() - started)


def kind(value: object) -> str:
    """How a wrong argument is named in a message: its type's name."""
    return "None" if value is None else type(value).__name__


def _require_settings(settings: object, where: str) -> None:
    if not isinstance(settings, Settings):
        raise InputError(f"{where} takes a Settings object (deepcite.load_settings(...)), "
                         f"not {kind(settings)}")


def _require_callback(on_event: object, where: str) -> None:
    if on_event is not None and not callable(on_event):
        raise InputError(f"{where}: on_event must be a function taking an event, or None, "
                         f"not {kind(on_event)}")
