"""``POST /api/v1/checks`` and ``GET /api/v1/checks/{id}``: a document checked over
REST, as JSON text or an uploaded file, with each user reaching only their own checks.

A real app, store and executor with accounts; the model is faked at its boundary and
says nothing (a check decides without it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import deepcite.runs.build
from deepcite.config import Settings, load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.rest import sse_lines
from tests.fakes import ScriptedChatModel

PASSWORD = "correct horse battery"
UNKNOWN = "0123456789abcdef0123456789abcdef"
DRAFT = ("We keep the cache in Redis with a one hour expiry. "
         "The team meets on Fridays to plan the sprint.")


@dataclass
class Server:
    client: TestClient
    store: HistoryStore
    tokens: dict[str, str]

    def auth(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}


@pytest.fixture
def server(notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: ScriptedChatModel())
    settings: Settings = load_settings({"research.iterations": 1})
    store = HistoryStore.open(settings)
    tokens = {}
    for name in ("alice", "bob"):
        store.add_user(name, PASSWORD)
        tokens[name] = store.create_token(name, "tests")
    store.share_collection("notes", everyone=True)
    executor = LocalRunExecutor(settings, workers=2, store=store)
    app = create_app(WebState(settings=settings, executor=executor, token="server-token-1234"))
    try:
        yield Server(TestClient(app), store, tokens)
    finally:
        executor.shutdown()
        store.close()


def _submit(server: Server, who: str, **body: Any) -> str:
    reply = server.client.post("/api/v1/checks", headers=server.auth(who),
                               json={"text": DRAFT, "collections": ["notes"], **body})
    assert reply.status_code == 202, reply.text
    run_id: str = reply.json()["id"]
    return run_id


def _ended(server: Server, who: str, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    reply: dict[str, Any] = {}
    while time.monotonic() < deadline:
        answer = server.client.get(f"/api/v1/checks/{run_id}", headers=server.auth(who))
        assert answer.status_code == 200, answer.text
        reply = answer.json()
        if reply["state"] not in ("queued", "running"):
            return reply
        time.sleep(0.05)
    raise AssertionError(f"check {run_id} never ended: {reply}")


def test_a_posted_text_is_checked_and_read_back_as_verdicts(server: Server) -> None:
    run_id = _submit(server, "alice", title="Planning notes")
    checked = _ended(server, "alice", run_id)
    assert checked["state"] == "completed", checked
    assert checked["id"] == run_id and checked["question"] == "Check: Planning notes"
    assert {"claims", "sources", "counts", "metrics", "warnings"} <= set(checked)
    texts = {claim["text"]: claim for claim in checked["claims"]}
    redis = texts["We keep the cache in Redis with a one hour expiry."]
    assert redis["verdict"] == "supported"
    assert DRAFT[redis["start"]:redis["end"]] == redis["text"]
    # the run's own routes work for a check too: its events, its export
    events = server.client.get(f"/api/v1/research/{run_id}/events", headers=server.auth("alice"))
    kinds = [event.get("event") for event in sse_lines(events.text)]
    assert kinds[-1] == "end" and "phase_started" in kinds
    export = server.client.get(f"/api/v1/research/{run_id}/export/json",
                               headers=server.auth("alice"))
    assert export.status_code == 200 and '"claims"' in export.text


def test_an_uploaded_file_is_checked_like_pasted_text(server: Server) -> None:
    reply = server.client.post(
        "/api/v1/checks", headers=server.auth("alice"),
        files={"file": ("draft.md", DRAFT.encode("utf-8"), "text/markdown")},
        data={"collections": ["notes"]})
    assert reply.status_code == 202, reply.text
    checked = _ended(server, "alice", reply.json()["id"])
    assert checked["state"] == "completed" and checked["question"] == "Check: draft.md"
    assert any(claim["verdict"] == "supported" for claim in checked["claims"])
    refused = server.client.post(
        "/api/v1/checks", headers=server.auth("alice"),
        files={"file": ("draft.exe", b"MZ", "application/octet-stream")})
    assert refused.status_code == 422
    assert "file type .exe is not accepted" in refused.json()["error"]["message"]


def test_another_users_check_answers_as_a_missing_one(server: Server) -> None:
    run_id = _submit(server, "alice")
    _ended(server, "alice", run_id)
    for ref in (run_id, run_id[:8]):
        theirs = server.client.get(f"/api/v1/checks/{ref}", headers=server.auth("bob"))
        missing = server.client.get(f"/api/v1/checks/{UNKNOWN}", headers=server.auth("bob"))
        assert theirs.status_code == missing.status_code == 404
        assert theirs.json() == {"error": {"code": "unknown_run",
                                           "message": f"No run {ref!r}"}}
        assert "cache" not in theirs.text.lower()
    # nor may bob build on it, or cancel it
    refused = server.client.post("/api/v1/checks", headers=server.auth("bob"),
                                 json={"text": DRAFT, "collections": ["notes"],
                                       "previous": run_id})
    assert refused.status_code == 422
    assert refused.json()["error"]["fields"][0]["field"] == "parent_id"
    cancel = server.client.post(f"/api/v1/research/{run_id}/cancel", headers=server.auth("bob"))
    assert cancel.status_code == 404
    no_token = server.client.get(f"/api/v1/checks/{run_id}")
    assert no_token.status_code == 401


def test_a_run_that_is_not_a_check_is_not_found_here(server: Server) -> None:
    reply = server.client.post("/api/v1/research", headers=server.auth("alice"),
                               json={"question": "Where is the cache?", "collections": ["notes"]})
    run_id = reply.json()["id"]
    answer = server.client.get(f"/api/v1/checks/{run_id}", headers=server.auth("alice"))
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "unknown_run"


@pytest.mark.parametrize(("body", "field"), [
    ({"text": "   "}, "document.text"),
    ({"text": "x " * 60_000}, "document.text"),
    ({"text": DRAFT, "collections": ["nowhere"]}, "collections"),
    ({"text": DRAFT, "previous": UNKNOWN}, "parent_id"),
    ({"text": DRAFT, "surprise": 1}, "surprise"),
])
def test_what_cannot_be_checked_is_a_422_naming_the_field(server: Server,
                                                          body: dict[str, Any],
                                                          field: str) -> None:
    reply = server.client.post("/api/v1/checks", headers=server.auth("alice"), json=body)
    assert reply.status_code == 422, reply.text
    error = reply.json()["error"]
    assert error["code"] == "invalid_request"
    assert field in [item["field"] for item in error["fields"]], error
    assert server.store.list() == []  # nothing was recorded


def test_a_body_that_is_neither_json_nor_a_form_is_415(server: Server) -> None:
    reply = server.client.post("/api/v1/checks", headers={**server.auth("alice"),
                                                          "Content-Type": "text/plain"},
                               content=DRAFT.encode("utf-8"))
    assert reply.status_code == 415


def test_a_check_can_be_posted_as_any_run_and_listed_as_one(server: Server) -> None:
    reply = server.client.post("/api/v1/research", headers=server.auth("alice"),
                               json={"mode": "check", "document": {"text": DRAFT},
                                     "collections": ["notes"]})
    assert reply.status_code == 202, reply.text
    run_id = reply.json()["id"]
    assert _ended(server, "alice", run_id)["state"] == "completed"
    listed = server.client.get("/api/v1/history?mode=check", headers=server.auth("alice"))
    assert [run["id"] for run in listed.json()] == [run_id]
    assert server.client.get("/api/v1/history?mode=check",
                             headers=server.auth("bob")).json() == []
    missing = server.client.post("/api/v1/research", headers=server.auth("alice"),
                                 json={"mode": "check", "collections": ["notes"]})
    assert missing.status_code == 422
    assert "needs the document" in missing.text
