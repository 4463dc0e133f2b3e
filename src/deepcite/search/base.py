"""The contracts of search engines: the engine itself, and its class as the registry
sees it.

An engine turns a query into :class:`~deepcite.types.SearchResult` objects. It raises
:class:`~deepcite.errors.SearchError` when it fails, and the research layer treats that
as one engine's failure, never the run's. It never returns half-filled results: a hit
without title, url or snippet is dropped inside the engine.

Before an engine is built, the registry and ``deepcite engines`` need to know about it
from its class alone: what it is, what it needs, whether it can run offline, why it
cannot run with the current settings, and its own settings if it is a plugin. That is
:class:`EngineClass`, stated as a protocol so that nothing probes classes with
``getattr``; a plugin whose class lacks a member is refused with a message naming it.
:class:`EngineBase` gives plugin authors the defaults.

Closing is optional: an engine that holds resources (an HTTP pool, an open index) has a
``close()`` the research layer calls when the run's Researcher is closed
(:class:`deepcite.search.circuit_breaker.SupportsClose`). It is deliberately not a member of
:class:`SearchEngine`, which is checked at runtime: that would refuse every engine
without one. :class:`EngineBase` declares a ``close`` that releases nothing, for
subclasses to override.
"""

from __future__ import annotations

from typing import ClassVar, Protocol, Self, runtime_checkable

from pydantic import BaseModel

from deepcite.config import Settings
from deepcite.types import SearchResult


@runtime_checkable
class SearchEngine(Protocol):
    """A named source of search results."""

    @property
    def name(self) -> str:
        """Short engine name shown to users and stored on each result (``local``, ...)."""
        ...

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Return up to ``max_results`` hits, best first; raise ``SearchError`` on failure."""
        ...


@runtime_checkable
class EngineClass(Protocol):
    """What an engine class (not an instance) offers the registry.

    Members are read on the class: ``description``, ``needs`` and ``offline_capable``
    feed ``deepcite engines``; ``settings_model`` (a pydantic model, or ``None``) types
    the ``[engines.<name>]`` table of a plugin engine; ``unavailable_reason`` says,
    without building anything, why the engine cannot run with these settings;
    ``from_settings`` builds an engine for a run.
    """

    @property
    def description(self) -> str:
        """One line on what the engine searches."""
        ...

    @property
    def needs(self) -> str:
        """What the user must provide (``"nothing"``, ``"BRAVE_API_KEY"``, ...)."""
        ...

    @property
    def offline_capable(self) -> bool:
        """Whether it works with ``--offline`` (only services on the user's network do)."""
        ...

    @property
    def settings_model(self) -> type[BaseModel] | None:
        """The model that validates the engine's ``[engines.<name>]`` table, if any."""
        ...

    def unavailable_reason(self, settings: Settings) -> str | None:
        """Why the engine cannot run with ``settings`` (how to fix it), or ``None``."""
        ...

    def from_settings(self, settings: Settings) -> SearchEngine:
        """An engine for one run."""
        ...


#: The members of :class:`EngineClass`, for messages naming what a plugin lacks.
ENGINE_CLASS_MEMBERS: tuple[str, ...] = (
    "description", "needs", "offline_capable", "settings_model", "unavailable_reason",
    "from_settings",
)


class EngineBase:
    """Defaults for :class:`EngineClass`, so a plugin engine only states what differs.

    A subclass sets ``name`` and ``description``, takes the settings in ``__init__``
    and implements ``search``; ``settings_model`` is set when it has an
    ``[engines.<name>]`` table (read it with
    :func:`deepcite.search.registry.engine_options`).
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""
    needs: ClassVar[str] = "nothing"
    offline_capable: ClassVar[bool] = False
    settings_model: ClassVar[type[BaseModel] | None] = None

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @classmethod
    def unavailable_reason(cls, settings: Settings) -> str | None:
        """Usable whatever the settings; override to explain what is missing."""
        return None

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        """``cls(settings)``."""
        return cls(settings)

    def close(self) -> None:
        """Release nothing; an engine holding an HTTP pool or an open index overrides this.

        Called once, after the engine's last search, by the Researcher that owns it.
        """
