"""The history page: filters, duration, pages of 50, "no sources", delete with
confirmation and undo; and the store's list filters behind it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.config import Settings
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult
from deepcite.web.pages import history
from tests.unit.test_web_pages import FakeExecutor, _client, _csrf, _result


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    value: Settings = make_settings()
    return value


@pytest.fixture
def executor(settings: Settings) -> FakeExecutor:
    return FakeExecutor(settings)


@pytest.fixture
def client(settings: Settings, executor: FakeExecutor) -> TestClient:
    return _client(settings, executor)


def _add(settings: Settings, question: str, *, origin: str | None = None,
         collections: tuple[str, ...] = (), mode: str = "quick", sources: bool = True,
         finish: bool = True) -> str:
    run_settings = settings.model_copy(update={"search": settings.search.model_copy(
        update={"collections": collections})})
    request = {"question": question} if origin is None else {"question": question,
                                                             "origin": origin}
    with HistoryStore.open(settings) as store:
        run_id = store.begin(question, mode=mode, settings=run_settings,
                             request=request)
        if finish:
            result = _result(question) if sources else ResearchResult(
                question=question, answer="Nothing found.", strategy="standard",
                handler="standard")
            store.finish(run_id, result)
    return run_id


def _rows(page: str) -> str:
    return page.split('<table class="runs">')[1] if '<table class="runs">' in page else ""


def test_store_list_filters(settings: Settings) -> None:
    web = _add(settings, "From the web", origin="web", collections=("notes",))
    cli = _add(settings, "From the cli", origin="cli", mode="detailed", finish=False)
    old = _add(settings, "No origin kept", finish=False)
    with HistoryStore.open(settings) as store:
        assert [r.id for r in store.list(origin="web")] == [web]
        assert [r.id for r in store.list(origin="python")] == [old]
        assert [r.id for r in store.list(collection="notes")] == [web]
        assert [r.id for r in store.list(mode="detailed")] == [cli]
        assert [r.id for r in store.list(status="interrupted")] == [old, cli]
        assert [r.id for r in store.list(offset=1, limit=1)] == [cli]
        assert [r.id for r in store.list(origin="web", offset=1)] == []
        [summary] = store.list(origin="web")
        assert summary.finished_at is not None and summary.origin == "web"


def test_filters_duration_and_no_sources(client: TestClient, settings: Settings) -> None:
    _add(settings, "Web question", origin="web", collections=("notes",))
    _add(settings, "Empty <b>one</b>", origin="cli", sources=False)
    page = client.get("/history").text
    rows = _rows(page)
    assert "Web question" in rows and "Empty &lt;b&gt;one&lt;/b&gt;" in rows
    assert "no sources" in rows and re.search(r"<td[^>]*>\d+s</td>", rows)
    only_web = _rows(client.get("/history", params={"origin": "web"}).text)
    assert "Web question" in only_web and "Empty" not in only_web
    notes = _rows(client.get("/history", params={"collection": "notes"}).text)
    assert "Web question" in notes and "Empty" not in notes
    none = client.get("/history", params={"status": "failed"}).text
    assert "No run matches" in none
    bad = client.get("/history", params={"mode": "<x>"}).text
    assert "Unknown mode" in bad and "&lt;x&gt;" in bad and "<x>" not in bad


def test_the_origin_filter_offers_and_finds_the_runs_of_watches(
        client: TestClient, settings: Settings) -> None:
    _add(settings, "Asked by a watch", origin="watch")
    _add(settings, "Asked at the prompt", origin="cli")
    page = client.get("/history", params={"origin": "watch"}).text
    assert '<option value="watch" selected>watch</option>' in page
    rows = _rows(page)
    assert "Asked by a watch" in rows and "Asked at the prompt" not in rows
    assert '<td data-label="From">watch</td>' in rows


def test_pages_of_fifty(client: TestClient, settings: Settings) -> None:
    for n in range(history.PAGE_SIZE + 3):
        _add(settings, f"Question number {n:03d}", origin="web")
    first = client.get("/history", params={"origin": "web"}).text
    assert _rows(first).count("<tr>") == history.PAGE_SIZE + 1  # + the header
    assert 'rel="next"' in first and "origin=web" in first and 'rel="prev"' not in first
    second = client.get("/history", params={"origin": "web", "page": "2"}).text
    assert "Question number 000" in second and 'rel="prev"' in second
    assert 'rel="next"' not in second


def test_delete_confirm_trash_and_restore(client: TestClient, settings: Settings,
                                          executor: FakeExecutor,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    run_id = _add(settings, "Delete <i>me</i> please")
    listing = client.get("/history").text
    assert f'href="/history/{run_id}/delete"' in listing
    assert 'aria-label="Delete run: Delete &lt;i&gt;me&lt;/i&gt; please"' in listing
    confirm = client.get(f"/history/{run_id}/delete").text
    assert "Delete run?" in confirm and f'action="/history/{run_id}/delete"' in confirm
    assert client.get("/history/nope/delete").status_code == 404
    response = client.post(f"/history/{run_id}/delete",
                           data={"csrf_token": _csrf(client)})
    assert response.status_code == 303
    after = client.get(response.headers["location"]).text
    assert "Delete &lt;i&gt;me" not in _rows(after) and "Restore" in after
    restored = client.post(f"/history/{run_id}/restore",
                           data={"csrf_token": _csrf(client)})
    assert restored.status_code == 303
    assert "Delete &lt;i&gt;me" in _rows(client.get("/history").text)
    assert client.post(f"/history/{run_id}/restore",
                       data={"csrf_token": _csrf(client)}).status_code == 404
    # after the undo time the run is deleted for good
    client.post(f"/history/{run_id}/delete", data={"csrf_token": _csrf(client)})
    monkeypatch.setattr(history, "TRASH_SECONDS", 0)
    client.get("/history")
    with HistoryStore.open(settings) as store:
        assert [r.id for r in store.list()] == []


def test_the_rest_history_takes_the_same_filters(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    from deepcite.config import load_settings
    from deepcite.runs.local import LocalRunExecutor
    from deepcite.store import HistoryStore
    from deepcite.types import ResearchResult
    from deepcite.web.app import create_app
    from deepcite.web.contracts import WebState

    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    settings = load_settings(config_files=[])
    with HistoryStore.open(settings) as store:
        for mode in ("quick", "detailed"):
            run_id = store.begin(f"A {mode} one?", mode=mode, settings=settings)
            store.finish(run_id, ResearchResult(question=f"A {mode} one?", answer="a",
                                                strategy="s", handler="h", mode=mode))
    executor = LocalRunExecutor(settings, workers=1)
    try:
        client = TestClient(create_app(WebState(settings=settings, executor=executor)))
        detailed = client.get("/api/v1/history", params={"mode": "detailed"}).json()
        assert [run["question"] for run in detailed] == ["A detailed one?"]
        assert client.get("/api/v1/history", params={"status": "running"}).json() == []
        assert client.get("/api/v1/history", params={"origin": "nope"}).status_code == 422
    finally:
        executor.shutdown()
