"""Checks of a run request at submit: what would fail the run later fails the request now.

Every run a server takes from others - the REST API, the pages, the MCP tools, the
queue, watches - passes :func:`deepcite.runs.admission.admit`, which calls
:func:`check_run` (through :func:`deepcite.runs.settings.checked_settings`) with the
run's settings and the parts the request gave, before anything is queued or started.
Without it a whitespace question, an unknown collection or engine, or the ``agent``
strategy on the bundled model would be accepted and fail minutes later in a worker.

Every problem is a :class:`~deepcite.errors.RequestError` naming the request field, so
the API answers 422 with it, the form shows it and an MCP tool returns it as one line.
Only what the request itself chose is checked against the registries: a server setting
that is wrong fails every run and is the operator's to fix, not the caller's.

The size caps are here too, so the REST model (:class:`~deepcite.runs.request.RunRequest`)
and the MCP tools refuse the same oversized names.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

from deepcite.collections.collection import Collection, missing_collection, validate_name
from deepcite.collections.demo import DEMO_NAME
from deepcite.config import Settings
from deepcite.errors import ConfigError, DeepciteError, ModelError, RequestError, error_line

if TYPE_CHECKING:
    from deepcite.runs.request import RunRequest
    from deepcite.store import HistoryStore
    from deepcite.store.user_rights import Access

__all__ = [
    "MAX_COLLECTIONS",
    "MAX_ENGINES",
    "MAX_MODEL_CHARS",
    "MAX_NAME_CHARS",
    "MAX_QUESTION_CHARS",
    "RESERVED_COLLECTIONS",
    "check_collections",
    "check_engines",
    "check_question",
    "check_run",
    "check_strategy",
    "check_tool_calling",
    "checked_collections",
    "has_visible_text",
    "question_problem",
    "reserved_collection",
    "text_problem",
    "unknown_collection_message",
]

MAX_QUESTION_CHARS = 4000
"""Characters of a question; a longer text is material, not a question."""
MAX_NAME_CHARS = 64
"""Characters of a strategy, provider or engine name (collection names have the same
cap through :func:`~deepcite.collections.collection.validate_name`)."""
MAX_MODEL_CHARS = 256
"""Characters of a model name: long enough for ``hf.co/org/repo-GGUF:Q4_K_M`` ones."""
MAX_ENGINES = 32
"""Engines one request may name (there are about fifteen built in)."""
MAX_COLLECTIONS = 32
"""Collections one request may name."""
RESERVED_COLLECTIONS: frozenset[str] = frozenset({DEMO_NAME})
"""Names deepcite builds itself: a request may search them but never replace them."""


def _shown(value: str, limit: int = 60) -> str:
    return repr(value if len(value) <= limit else value[: limit - 3] + "...")


def reserved_collection(name: str) -> RequestError | None:
    """The error for adding or re-indexing a collection deepcite builds itself, or ``None``.

    Compared case-insensitively: on a case-insensitive file system ``Demo`` is the same
    file as ``demo``.
    """
    if name.casefold() in {reserved.casefold() for reserved in RESERVED_COLLECTIONS}:
        return RequestError("name", f"{_shown(name)} is the name of the bundled "
                                    f"{DEMO_NAME} collection and cannot be replaced - "
                                    "choose another name")
    return None


_VISIBLE = frozenset("LNSP")
"""Unicode category groups that make text: letters, numbers, symbols, punctuation."""
_ALLOWED_CONTROLS = frozenset("\t\n\r")
"""Control characters a question may hold: a form's textarea sends CR LF line ends."""


def has_visible_text(text: str) -> bool:
    """Whether ``text`` has one letter, number, symbol or punctuation character (Unicode
    categories L*, N*, S*, P*) after NFKC normalisation.

    Whitespace, zero-width and other format characters (U+200B, U+FEFF, bidi controls),
    combining marks with nothing to combine with, and control characters make none: a
    question of only those is empty, however long.
    """
    return any(unicodedata.category(char)[0] in _VISIBLE
               for char in unicodedata.normalize("NFKC", text))


def text_problem(text: str, what: str) -> str | None:
    """Why ``text`` cannot be a ``what`` (one line), or ``None`` when it can.

    Empty unless :func:`has_visible_text`. Control characters (category Cc) other than
    tab, LF and CR are refused rather than stripped, even inside otherwise good text:
    NUL and terminal escapes have no place in a question, and silently changing what
    the user sent would make the run research something they did not ask. Format
    characters (Cf, such as the zero-width joiner inside emoji or Persian words) stay.
    """
    if not has_visible_text(text):
        return (f"The {what} is empty - it has no letters, digits, symbols or "
                "punctuation; type some text")
    for char in text:
        if unicodedata.category(char) == "Cc" and char not in _ALLOWED_CONTROLS:
            return (f"The {what} contains the control character U+{ord(char):04X} - "
                    "remove it")
    return None


def check_question(question: str) -> str:
    """``question`` if it has text (:func:`text_problem`) and fits; else a RequestError
    for ``question``."""
    problem = question_problem(question)
    if problem:
        raise RequestError("question", problem)
    return question


def question_problem(question: str) -> str | None:
    """Why ``question`` cannot be asked (one line), or ``None``: it must have text
    (:func:`text_problem`) and, its whitespace folded as the research folds it, at most
    :data:`MAX_QUESTION_CHARS` characters - every front end's one rule."""
    folded = len(" ".join(question.split()))
    if folded > MAX_QUESTION_CHARS:
        return (f"The question is {folded:,} characters; at most {MAX_QUESTION_CHARS:,} "
                "are accepted - shorten it and hand long text in as a material")
    return text_problem(question, "question")


def _check_sizes(field: str, names: Sequence[str], most: int, what: str) -> None:
    if len(names) > most:
        raise RequestError(field, f"At most {most} {what}s per request, not {len(names)}")
    for name in names:
        if len(name) > MAX_NAME_CHARS:
            raise RequestError(field, f"The {what} name {_shown(name)} is longer than "
                                      f"{MAX_NAME_CHARS} characters - no {what} has such "
                                      "a name")


def check_collections(names: Sequence[str], settings: Settings) -> None:
    """Every name is a valid collection name (never a path) of a collection that exists.

    ``demo`` always exists (it is built on first use). The reply for an unknown name is
    the same whatever exists elsewhere on the server: a path is refused as a name before
    the file system is looked at.
    """
    if len(names) > MAX_COLLECTIONS:
        raise RequestError("collections", f"At most {MAX_COLLECTIONS} collections per "
                                          f"request, not {len(names)}")
    for name in dict.fromkeys(names):
        try:
            validate_name(name)
            if name != DEMO_NAME:
                Collection.named(name, settings=settings)
        except DeepciteError as exc:
            raise RequestError("collections", error_line(exc)) from None


def unknown_collection_message(name: str) -> str:
    """What naming a collection that does not exist is answered (one line): also the
    answer for one the caller may not search, so that a name reveals nothing."""
    return error_line(missing_collection(name))


def checked_collections(store: HistoryStore, request: RunRequest, settings: Settings,
                        access: Access | None = None) -> None:
    """Refuse a run that would search a collection its owner may not (a RequestError
    for ``collections``): part of :func:`deepcite.runs.admission.admit`, so the check
    holds whichever front end took the run. ``settings`` are the run's: the collections
    it searches are the request's, else the server's defaults (``search.collections``),
    whatever its engines. ``access`` is the owner's as admission found it (default: the
    request owner's rights as a user, never an admin's). A named one is answered as
    unknown, so a name reveals nothing; a default the owner may not search is the
    operator's choice, and said so."""
    named = list(dict.fromkeys(request.collections))
    searched = list(dict.fromkeys(settings.search.collections))
    if not searched:
        return
    readable = store.readable_collections(request.access if access is None else access,
                                          searched)
    for name in searched:
        if name in readable:
            continue
        if name in named:
            raise RequestError("collections", unknown_collection_message(name))
        raise RequestError("collections", "The server's default collections include one "
                           "you may not search - name the collections to search")


def check_engines(names: Sequence[str], settings: Settings) -> None:
    """Every named engine exists and can run with ``settings`` (as ``build_engines`` will
    require): ``local`` needs a collection; offline, web engines are skipped by the run
    itself, so only unknown names are refused then."""
    from deepcite.search.registry import normalise, unavailable_reason

    _check_sizes("engines", names, MAX_ENGINES, "engine")
    for name in dict.fromkeys(names):
        if normalise(name) == "local":
            if not settings.search.collections:
                raise RequestError("engines", "The local engine searches collections - name "
                                              "at least one in collections")
            continue
        try:
            reason = unavailable_reason(name, settings)
        except DeepciteError as exc:
            raise RequestError("engines", error_line(exc)) from None
        if reason and not settings.security.offline:
            raise RequestError("engines", f"The search engine {_shown(name)} cannot run on "
                                          f"this server: {reason}")


def provider_refusal(name: str, settings: Settings) -> str | None:
    """Why the provider ``name`` cannot answer a run with ``settings`` on this server,
    or ``None`` when it can (or may: Ollama's server is asked when the run starts).

    Checked at admission, before anything is stored, and used to leave such providers
    out of the web form: a choice that cannot work is not offered, and a request that
    makes it anyway is refused with this reason rather than failing later as a run.
    """
    from deepcite.llm.providers import AUTO, PROVIDER_REGISTRY, get_provider
    from deepcite.runs.build import check_model_egress

    canonical = PROVIDER_REGISTRY.canonical(name)
    if canonical == AUTO:
        return None
    try:
        spec = get_provider(name)
    except DeepciteError as exc:
        return error_line(exc)
    if canonical == "ollama":
        return None
    # the run's own rule for where its model may be reached (offline: no internet API)
    chosen = settings.model_copy(update={"llm": settings.llm.model_copy(
        update={"provider": canonical})})
    try:
        check_model_egress(chosen)
    except ModelError as exc:
        return error_line(exc)
    status = spec.check(settings)
    return None if status.usable else status.detail


def check_provider(name: str, settings: Settings) -> None:
    """RequestError (field ``provider``) when :func:`provider_refusal` has a reason."""
    reason = provider_refusal(name, settings)
    if reason is not None:
        raise RequestError("provider", f"The provider {_shown(name)} cannot answer on "
                                       f"this server: {reason}")


def _known_strategy(name: str) -> bool:
    """Whether ``name`` is a strategy, an alias or a replaced name (not the fallback for
    an unknown one, which a command line may accept but a request must not)."""
    from deepcite.research.strategies import REPLACED, STRATEGY_REGISTRY

    if name in STRATEGY_REGISTRY:
        return True
    replaced = {STRATEGY_REGISTRY.canonical(old) for old in REPLACED}
    return STRATEGY_REGISTRY.canonical(name) in replaced


def check_strategy(name: str) -> str:
    """The registered strategy ``name`` stands for; RequestError when it is unknown or
    cannot be loaded here (a missing extra, a broken plugin)."""
    from deepcite.research.strategies import STRATEGY_REGISTRY, load_strategy, resolve_name

    _check_sizes("strategy", [name], 1, "strategy")
    if not _known_strategy(name):
        message = STRATEGY_REGISTRY.unknown_message(name)
        raise RequestError("strategy", message)
    try:
        load_strategy(name, warn=lambda _: None)
    except DeepciteError as exc:
        raise RequestError("strategy", error_line(exc)) from None
    return resolve_name(name, warn=lambda _: None)


def _lacks_tool_calling(model_class: type) -> bool:
    """The test the agent strategy applies to the model it is given: a class without
    ``bind_tools`` (the bundled model is no LangChain model), or one that does not
    override LangChain's, cannot call tools."""
    bind_tools = getattr(model_class, "bind_tools", None)
    if bind_tools is None:
        return True
    from langchain_core.language_models import BaseChatModel

    return bool(bind_tools is BaseChatModel.bind_tools)


def check_tool_calling(settings: Settings, field: str) -> None:
    """Refuse the ``agent`` strategy when the run's provider is the in-process llama.cpp
    model, which has no tool calling: the strategy would refuse it when the run starts.

    ``auto`` is resolved as the run will resolve it (a quick Ollama probe), and only when
    the strategy is ``agent``.
    """
    from deepcite.llm import resolve_provider
    from deepcite.llm.local import LlamaCppChatModel
    from deepcite.research.strategies import resolve_name

    if resolve_name(settings.research.strategy, warn=lambda _: None) != "agent":
        return
    try:
        provider = resolve_provider(settings)
    except ConfigError as exc:
        raise RequestError("provider", error_line(exc)) from None
    if provider == "local" and _lacks_tool_calling(LlamaCppChatModel):
        from deepcite.research.strategies.agent import NO_TOOL_CALLING

        raise RequestError(field, NO_TOOL_CALLING)


def check_run(settings: Settings, *, question: str, collections: Sequence[str] = (),
              engines: Sequence[str] = (), strategy: str | None = None,
              provider: str | None = None, model: str | None = None) -> None:
    """Every check above, for a run the request's fields describe.

    ``settings`` are the run's settings (the request's overrides applied); the other
    arguments are what the request itself gave, checked against the registries.
    """
    check_question(question)
    if provider is not None:
        _check_sizes("provider", [provider], 1, "provider")
        check_provider(provider, settings)
    if model is not None and len(model) > MAX_MODEL_CHARS:
        raise RequestError("model", f"The model name is longer than {MAX_MODEL_CHARS} "
                                    "characters - no model has such a name")
    if collections:
        check_collections(collections, settings)
    if engines:
        check_engines(engines, settings)
    if strategy:
        check_strategy(strategy)
    if strategy or provider or model:
        check_tool_calling(settings, "strategy" if strategy else "provider")

