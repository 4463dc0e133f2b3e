"""Fixtures of the history store tests that run on both backends.

``store_url`` is a SQLite file in the test's folder, then a database of its own on a
real PostgreSQL server (:mod:`tests.unit.postgres_fixture`); ``store`` is a
:class:`~deepcite.store.HistoryStore` opened on it (upgraded to the head) and closed
after the test. A module that needs another shape defines its own.

Shared by the tests of one kind: ``notes_site`` (the web tests' real executor, store and
a ``notes`` collection, a scripted model answering), ``module_page`` and
``close_in_meaning`` (the not-found tests' reference pages and the encoder that finds
every sentence close to the question).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from deepcite.config import Settings
from deepcite.store import HistoryStore
from deepcite.types import Source
from tests.unit.postgres_fixture import postgres_server, postgres_url  # noqa: F401

if TYPE_CHECKING:
    from deepcite.runs.local import LocalRunExecutor


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store' / 'history.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def store(store_url: str) -> Iterator[HistoryStore]:
    with HistoryStore.from_url(store_url) as opened:
        yield opened


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The real demo rendering, counted: each entry is one build."""
    from deepcite.collections import demo as demo_module  # only where a test asks for it

    rendered: list[Path] = []
    real = demo_module.write_demo_sources

    def counted(folder: Path, progress: demo_module.RenderCallback | None = None) -> int:
        rendered.append(folder)
        return real(folder, progress)

    monkeypatch.setattr(demo_module, "write_demo_sources", counted)
    return rendered


@dataclass
class NotesSite:
    """What a web test runs against: settings (``research.iterations`` 1, an argument
    the config files do not have), a real SQLite store, a real executor with one worker,
    and the collection ``notes`` made from the folder ``notes`` (one file on the cache)."""

    settings: Settings
    store: HistoryStore
    executor: LocalRunExecutor
    notes: Path


@pytest.fixture
def notes_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[NotesSite]:
    """The set-up the web pages' tests share, runs really run by a scripted model that
    cites every source; the executor is shut down and the store closed afterwards."""
    import deepcite.runs.build  # only where a test asks for it
    from deepcite.collections import Collection
    from deepcite.config import load_settings
    from deepcite.runs.local import LocalRunExecutor
    from tests.fakes import ScriptedChatModel, cite_all

    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "cache.md").write_text("We keep the cache in Redis with a one hour expiry.",
                                    encoding="utf-8")
    settings = load_settings({"research.iterations": 1})
    Collection.create("notes", settings=settings).add(notes)
    model = ScriptedChatModel(script={"synthesis": [cite_all]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    store = HistoryStore.open(settings)
    executor = LocalRunExecutor(settings, workers=1, store=store)
    try:
        yield NotesSite(settings, store, executor, notes)
    finally:
        executor.shutdown()
        store.close()


ModulePage = Callable[[int, str, str, str], Source]
"""``(number, module, summary, text)``: a module's reference page as a source."""


def _module_page(number: int, module: str, summary: str, text: str) -> Source:
    url = f"file:///docs/module-{module}.txt"
    return Source(number=number, title=f"{module} — {summary} (module documentation)",
                  url=url, canonical_url=url, snippet=f"{module} - {summary}. {text}",
                  engine="memory")


@pytest.fixture
def module_page() -> ModulePage:
    """A module's reference page, titled by the module as the demo's pydoc pages are."""
    return _module_page


def _close_in_meaning(question: str, texts: Sequence[str]) -> list[float]:
    return [0.6] * len(texts)


@pytest.fixture
def close_in_meaning() -> Callable[[str, Sequence[str]], list[float]]:
    """An encoder that finds every sentence fairly close to the question, as e5 finds a
    module's introduction close to any question that names the module."""
    return _close_in_meaning
