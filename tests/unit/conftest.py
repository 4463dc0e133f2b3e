"""Fixtures of the history store tests that run on both backends.

``store_url`` is a SQLite file in the test's folder, then a database of its own on a
real PostgreSQL server (:mod:`tests.unit.postgres_fixture`); ``store`` is a
:class:`~deepcite.store.HistoryStore` opened on it (upgraded to the head) and closed
after the test. A module that needs another shape defines its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from deepcite.store import HistoryStore
from tests.unit.postgres_fixture import postgres_server, postgres_url  # noqa: F401


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
