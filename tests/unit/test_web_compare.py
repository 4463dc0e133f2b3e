"""``GET /api/v1/runs/{a}/compare/{b}``: two stored runs compared over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.config import Settings, load_settings
from deepcite.runs.compare import RunComparison
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.unit.test_runs_replay import keep
from tests.unit.test_store import quick_result

TOKEN = "s3cret-token"


class StoreOnly:
    """An executor that runs nothing: the route under test reads the store only."""

    def __init__(self, store: HistoryStore) -> None:
        self.store = store

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"the compare route must not use executor.{name}")


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    return load_settings(config_files=[])


@pytest.fixture
def store(settings: Settings) -> Iterator[HistoryStore]:
    with HistoryStore.open(settings) as opened:
        yield opened


def client(settings: Settings, store: HistoryStore, token: str | None = None) -> TestClient:
    state = WebState(settings=settings, executor=StoreOnly(store),  # type: ignore[arg-type]
                     token=token)
    return TestClient(create_app(state))


def runs(store: HistoryStore, settings: Settings) -> tuple[str, str]:
    first = quick_result()
    second = first.model_copy(update={"sources": first.sources[1:], "strategy": "agent"})
    return keep(store, settings, first), keep(store, settings, second)


def test_compare_returns_the_comparison(store: HistoryStore, settings: Settings) -> None:
    a, b = runs(store, settings)
    reply = client(settings, store).get(f"/api/v1/runs/{a}/compare/{b[:8]}")
    assert reply.status_code == 200, reply.text
    cmp = RunComparison.model_validate(reply.json())
    assert (cmp.a.id, cmp.b.id) == (a, b)
    assert [s.number for s in cmp.sources_lost] == [1] and cmp.sources_gained == []
    assert (cmp.a.strategy, cmp.b.strategy) == ("source-based", "agent")


def test_an_unknown_run_is_404(store: HistoryStore, settings: Settings) -> None:
    a, _ = runs(store, settings)
    reply = client(settings, store).get(f"/api/v1/runs/{a}/compare/{'f' * 32}")
    assert reply.status_code == 404
    assert reply.json()["error"]["code"] == "unknown_run"
    assert "f" * 32 in reply.json()["error"]["message"]


def test_compare_needs_the_token_when_one_is_set(store: HistoryStore,
                                                 settings: Settings) -> None:
    a, b = runs(store, settings)
    guarded = client(settings, store, token=TOKEN)
    assert guarded.get(f"/api/v1/runs/{a}/compare/{b}").status_code == 401
    reply = guarded.get(f"/api/v1/runs/{a}/compare/{b}",
                        headers={"Authorization": f"Bearer {TOKEN}"})
    assert reply.status_code == 200 and reply.json()["b"]["id"] == b


def test_the_route_is_in_the_openapi_schema(store: HistoryStore, settings: Settings) -> None:
    schema = client(settings, store).get("/api/v1/openapi.json").json()
    assert "/api/v1/runs/{a}/compare/{b}" in schema["paths"]
