"""A provider that cannot answer on this server is refused before anything is stored,
and the research form does not offer it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.runs.checks import provider_refusal
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.fakes import write_notes


def _settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **values: object) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    loaded = load_settings({"research.iterations": 1, **values})
    Collection.create("notes", settings=loaded).add(write_notes(tmp_path / "notes"))
    return loaded


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    return _settings(tmp_path, monkeypatch, **{"security.offline": True,
                                                "llm.api_key": "sk-configured"})


def _client(settings: Settings) -> Iterator[TestClient]:
    executor = LocalRunExecutor(settings, workers=1)
    try:
        yield TestClient(create_app(WebState(settings=settings, executor=executor)))
    finally:
        executor.shutdown()


def _stored(settings: Settings) -> int:
    with HistoryStore.open(settings) as store:
        return len(store.list(limit=100))


def test_an_internet_provider_offline_is_422_and_nothing_is_stored(offline: Settings) -> None:
    for client in _client(offline):
        reply = client.post("/api/v1/research", json={
            "question": "What did we decide?", "collections": ["notes"],
            "provider": "anthropic"})
        assert reply.status_code == 422, reply.text
        error = reply.json()["error"]
        assert [f["field"] for f in error["fields"]] == ["provider"]
        assert "offline" in error["message"] and "local" in error["message"]
    assert _stored(offline) == 0


def test_a_provider_without_its_key_is_refused_with_what_to_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    online = _settings(tmp_path, monkeypatch)
    reason = provider_refusal("anthropic", online)
    assert reason is not None and "ANTHROPIC_API_KEY" in reason


@pytest.mark.parametrize("name", ["local", "auto", "ollama"])
def test_providers_that_can_answer_offline_are_admitted(offline: Settings, name: str) -> None:
    # the bundled model runs in-process; Ollama is a server on this machine (asked when
    # the run starts); auto picks among them
    assert provider_refusal(name, offline) is None


def test_the_form_offers_only_providers_that_can_answer(offline: Settings) -> None:
    for client in _client(offline):
        page = client.get("/").text
        offered = re.findall(r"<option(?: selected)?>([a-z]+)</option>",
                             page[page.index('name="provider"'):])
        assert "local" in offered and "anthropic" not in offered
        token = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert token
        reply = client.post("/", data={"csrf_token": token[1], "question": "What did we decide?",
                                       "mode": "quick", "collections": "notes",
                                       "provider": "anthropic"}, follow_redirects=False)
        assert reply.status_code != 303  # not started
        assert "offline" in reply.text
    assert _stored(offline) == 0


def test_pages_speak_in_the_pages_terms_not_the_command_line() -> None:
    from deepcite.text.frames import frame
    from deepcite.web.page_forms import page_words

    # the store's words for a missing run, as a 404 page shows them
    shown = page_words(str(HistoryStore._unknown("f" * 32)))
    assert "deepcite history" not in shown and "History page" in shown
    for language in ("en", "zh", "ja", "ko"):  # a stored answer shows on every front end
        assert "--collection" not in frame("no_sources", language)
