"""A watch re-checks a document on its schedule: a check's request keeps its document,
so the watch machinery runs it like any stored request - each run a new check of the
same text against what the collections hold then. The model is faked and says nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

import deepcite.runs.build
from deepcite.config import load_settings
from deepcite.runs import RunRequest
from deepcite.store import HistoryStore
from deepcite.watches.service import WatchService
from tests.fakes import ScriptedChatModel

DRAFT = "We keep the cache in Redis with a one hour expiry."


def test_a_watch_of_a_check_checks_the_document_again(notes: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: ScriptedChatModel())
    settings = load_settings()
    request = RunRequest.parse(mode="check", document={"text": DRAFT, "title": "Cache"},
                               collections=["notes"], origin="cli")
    with HistoryStore.open(settings) as store:
        service = WatchService(store, settings)
        watch, _ = service.add(request, "on demand")
        first = service.run_here(watch.id)
        second = service.run_here(watch.id)
        runs = [store.get(run.run_id) for run in (first, second) if run.run_id]
    assert [run.mode for run in runs] == ["check", "check"]
    for run in runs:
        assert run.request is not None and run.request["document"]["text"] == DRAFT
        assert run.request["origin"] == "watch"
        verdicts = {claim.text: claim.verdict for claim in run.result.claims}
        assert verdicts == {DRAFT: "supported"}
