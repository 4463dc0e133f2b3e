"""The Python API.

>>> from deepcite import quick_summary
>>> result = quick_summary("How do I parse command line arguments?", collections=["demo"])
>>> print(result.answer)

Keyword overrides take the same names as settings: dotted keys are not valid Python
names, so a unique leaf name (``iterations=3``, ``provider="ollama"``) or a section
mapping (``llm={"provider": "ollama", "model": "llama3.2"}``) is used instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from deepcite.collections import Collection, LocalSearchEngine, ensure_demo_collection
from deepcite.config import Settings, load_settings
from deepcite.llm import get_chat_model
from deepcite.research import Researcher
from deepcite.search.base import SearchEngine
from deepcite.types import Event, ResearchResult

DEMO_COLLECTION = "demo"


def open_collections(settings: Settings, names: Sequence[str]) -> list[Collection]:
    """Open the named collections; ``demo`` is built on first use."""
    opened = []
    for name in dict.fromkeys(names):
        if name == DEMO_COLLECTION:
            opened.append(ensure_demo_collection(settings))
        else:
            opened.append(Collection.open(name, settings=settings))
    return opened


def build_engines(settings: Settings) -> list[SearchEngine]:
    """The search engines a run uses, from the settings."""
    collections = open_collections(settings, settings.search.collections)
    return [LocalSearchEngine(collections)] if collections else []


def build_researcher(
    settings: Settings, on_event: Callable[[Event], None] | None = None
) -> Researcher:
    """A Researcher wired from settings: chat model, engines, event callback."""
    engines = build_engines(settings)
    return Researcher(settings, get_chat_model(settings), engines, on_event)


def quick_summary(
    question: str, *, on_event: Callable[[Event], None] | None = None, **overrides: Any
) -> ResearchResult:
    """Research ``question`` and return a short cited answer.

    ``overrides`` are settings (see module docstring), e.g. ``collections=["demo"]``.
    Raises :class:`deepcite.errors.DeepciteError` subclasses with one-line messages.
    """
    settings = load_settings(overrides)
    return build_researcher(settings, on_event).run(question)
