"""Citation handlers, chosen by name; an unknown name falls back to ``standard``.

Every handler is built from a :class:`Completer` and answers through the same call, so
the research layer can switch them by configuration alone: every strategy ends in the
one citation step (:mod:`deepcite.research.citation_step`), which asks the configured
handler for the answer.

Names go through :class:`deepcite.plugins.Registry` like every other pluggable kind:
``Precision``, ``precision_`` and ``PRECISION`` are the same name, and an unknown one is
a warning and ``standard`` rather than an error, because the standard handler's answer
is always a safe one to give. Plugins register a handler class (or any callable taking
the :class:`Completer` and returning a :class:`CitationHandler`) in the
``deepcite.citation_handlers`` entry point group; they cannot take a built-in's name,
so installing a package never changes what ``handler = "standard"`` means.

The benchmark names of the reference handlers are aliases (:data:`ALIASES`):
``browsecomp`` is ``forced`` and ``simpleqa`` is ``precision``. An alias resolves
without a warning and the run records the canonical name, so a benchmark script written
for the reference gets the handler it asked for instead of a silent ``standard``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from deepcite.citations.cited_answer import NO_SOURCES_ANSWER, CitedAnswer, Completer
from deepcite.citations.handlers.base import AnswerStyle
from deepcite.citations.handlers.forced import ForcedCitationHandler
from deepcite.citations.handlers.precision import PrecisionCitationHandler
from deepcite.citations.handlers.standard import StandardCitationHandler
from deepcite.errors import ConfigError, DeepciteError
from deepcite.plugins import CITATION_HANDLERS_GROUP, Registry
from deepcite.types import Source


@runtime_checkable
class CitationHandler(Protocol):
    """What the research layer relies on: a name and a cited answer.

    Runtime-checkable so that what a plugin's factory builds is checked when it is
    built, not when the run's answer is due.
    """

    @property
    def name(self) -> str:
        """The name the handler is registered under."""
        ...

    @property
    def follows_strategy(self) -> bool:
        """Whether ``answer`` takes a strategy's ``style`` and ``draft``.

        The standard handler does: each strategy's answer keeps its shape. Forced and
        precision do not, because their shape (a definite guess, a confirmed short
        fact) is why they were chosen; strategies that write several parts (topic
        sections) then ask them for one answer over all their sources.
        """
        ...

    def answer(self, question: str, sources: list[Source], *, prior_knowledge: str = "",
               style: AnswerStyle | None = None, draft: str | None = None) -> CitedAnswer:
        """Answer ``question``; every marker in the result resolves.

        ``style`` (the strategy's prompt and length) and ``draft`` (a reply written
        elsewhere, to be checked instead of asking again) are requests a handler may
        decline when its own shape is its point; each handler says which it takes.
        """
        ...


HandlerFactory = Callable[[Completer], CitationHandler]

DEFAULT_HANDLER = "standard"

HANDLERS: dict[str, HandlerFactory] = {
    "standard": StandardCitationHandler,
    "forced": ForcedCitationHandler,
    "precision": PrecisionCitationHandler,
}

#: Other names of built-ins: the reference's class-style and benchmark names.
ALIASES: dict[str, str] = {
    "forced-answer": "forced",
    "browsecomp": "forced",
    "precision-extraction": "precision",
    "simpleqa": "precision",
}

HINT = "Handlers: standard, forced, precision"

#: What a handler instance must have, for messages naming what a plugin's lacks.
HANDLER_MEMBERS: tuple[str, ...] = ("name", "follows_strategy", "answer")


def _handler_factory(name: str, obj: object) -> HandlerFactory:
    """``obj`` as a factory of handlers, or a ConfigError saying why it cannot be one.

    Built-ins are returned as they are. A plugin may be a handler class or any callable
    taking the client; the registry cannot see its return type, so it is wrapped in a
    factory that checks what it builds against :class:`CitationHandler` and says which
    members are missing. A class without ``answer`` is refused when loaded, so
    ``deepcite strategies`` can show it as unavailable.
    """
    builtin = HANDLERS.get(name)
    if builtin is not None and obj is builtin:
        return builtin
    origin = HANDLER_REGISTRY.origin(name)
    if not callable(obj):
        raise ConfigError(f"The citation handler {name!r} ({origin}) is not a handler "
                          f"class or factory: it is a {type(obj).__name__} - see "
                          "deepcite.citations.handlers.CitationHandler")
    if isinstance(obj, type) and not callable(getattr(obj, "answer", None)):
        raise ConfigError(f"The citation handler {name!r} ({origin}) is not a handler "
                          f"class: {obj.__qualname__} has no answer() - see "
                          "deepcite.citations.handlers.CitationHandler")
    make = obj

    def build(client: Completer) -> CitationHandler:
        handler = make(client)
        if isinstance(handler, CitationHandler):
            return handler
        missing = [member for member in HANDLER_MEMBERS if not hasattr(handler, member)]
        raise ConfigError(f"The citation handler {name!r} ({origin}) built "
                          f"{type(handler).__name__!r}, which lacks {', '.join(missing)} - "
                          "see deepcite.citations.handlers.CitationHandler")

    build.__doc__ = inspect.getdoc(obj)
    return build


HANDLER_REGISTRY: Registry[HandlerFactory] = Registry(
    "citation handler", group=CITATION_HANDLERS_GROUP, builtins=HANDLERS,
    aliases=ALIASES, fallback=DEFAULT_HANDLER, check=_handler_factory, hint=HINT,
)
"""Every citation handler; see :class:`deepcite.plugins.Registry`."""


@dataclass(frozen=True)
class HandlerStatus:
    """One row of the handler listing of ``deepcite strategies``."""

    name: str
    usable: bool
    #: The first line of the handler's docstring and the other names it answers to,
    #: or why it cannot be loaded.
    description: str
    builtin: bool
    #: Other names that select this handler without a warning (``browsecomp``).
    aliases: tuple[str, ...] = ()


def aliases_of(name: str) -> tuple[str, ...]:
    """The aliases that select the built-in ``name``, in registration order."""
    key = HANDLER_REGISTRY.canonical(name)
    return tuple(alias for alias, target in ALIASES.items() if target == key)


def get_handler(
    name: str, client: Completer, warn: Callable[[str], None] | None = None
) -> CitationHandler:
    """The handler registered as ``name``; unknown names fall back to ``standard``.

    Names are matched after the registry's spelling rule ("Precision", "precision_").
    The fallback is announced through ``warn`` (the log when ``None``); a plugin that
    cannot be loaded or builds no handler is a :class:`ConfigError`, because a user who
    chose it should not silently get another handler's answers.
    """
    return HANDLER_REGISTRY.load(name, warn)(client)


def handler_statuses() -> list[HandlerStatus]:
    """Every handler, built-ins first, and whether it loads (a broken plugin is a row)."""
    rows = []
    for name in HANDLER_REGISTRY.names():
        builtin = HANDLER_REGISTRY.is_builtin(name)
        try:
            factory = HANDLER_REGISTRY.load(name)
        except DeepciteError as exc:
            rows.append(HandlerStatus(name, False, str(exc), builtin))
            continue
        doc = inspect.getdoc(factory) or ""
        also = aliases_of(name)
        description = doc.split("\n", 1)[0]
        if also:  # in the text too, so every listing shows them
            description = f"{description} Also: {', '.join(also)}."
        rows.append(HandlerStatus(name, True, description, builtin, also))
    return rows


__all__ = [
    "ALIASES",
    "DEFAULT_HANDLER",
    "HANDLERS",
    "HANDLER_REGISTRY",
    "NO_SOURCES_ANSWER",
    "AnswerStyle",
    "CitationHandler",
    "CitedAnswer",
    "Completer",
    "ForcedCitationHandler",
    "HandlerFactory",
    "HandlerStatus",
    "PrecisionCitationHandler",
    "StandardCitationHandler",
    "aliases_of",
    "get_handler",
    "handler_statuses",
]
