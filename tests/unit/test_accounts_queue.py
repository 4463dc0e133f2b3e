"""Queued runs keep their owner: a run alice submits through the queue executor is
stored as hers, its queued request names her, a worker (in this process, ``work(...,
burst=True)``, as in ``test_distributed``) executes it, and only alice and the admin
reach it afterwards - the same rules as runs executed in the web process.

A real Redis (``tests.redis_fixture``) and real stores on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import deepcite.runs.build
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.errors import UnknownRunError
from deepcite.runs.queue import worker as worker_module
from deepcite.runs.queue.executor import QueueExecutor
from deepcite.runs.queue.worker import work
from deepcite.store import HistoryStore
from deepcite.store.user_rights import Access
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.rest import sse_lines
from tests.mcp_launcher import scripted_model
from tests.redis_fixture import redis_server, redis_url  # noqa: F401

PASSWORD = "correct horse battery"
QUESTION = "How is green tea made?"


@pytest.fixture
def queue_settings(tmp_path: Path, redis_url: str, store_url: str,  # noqa: F811
                   monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """Settings (and the environment the worker reads) for the test's store, Redis, a
    collection ``notes`` and the scripted model."""
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPCITE_STORE_URL", store_url)
    monkeypatch.setenv("DEEPCITE_QUEUE_URL", redis_url)
    monkeypatch.setenv("DEEPCITE_QUEUE_HEARTBEAT_SECONDS", "0.2")
    settings = load_settings(config_files=[])
    assert settings.store.url == store_url
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "tea.txt").write_text("Green tea is steamed or pan-fired soon after picking, "
                                    "which stops oxidation.", encoding="utf-8")
    Collection.create("notes", settings=settings).add(folder)
    model = scripted_model()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    monkeypatch.setattr(worker_module, "_CONTEXT", None)  # a fresh worker per test
    yield settings
    context = worker_module._CONTEXT
    if context is not None:
        context.store.close()


def test_a_queued_run_belongs_to_who_submitted_it(queue_settings: Settings) -> None:
    store = HistoryStore.open(queue_settings)
    executor = QueueExecutor(queue_settings, store=store, reap=False)
    try:
        store.add_user("root", PASSWORD, admin=True)
        alice = store.add_user("alice", PASSWORD)
        bob = store.add_user("bob", PASSWORD)
        store.share_collection("notes", everyone=True)
        auth = {name: {"Authorization": f"Bearer {store.create_token(name)}"}
                for name in ("root", "alice", "bob")}
        client = TestClient(create_app(WebState(settings=queue_settings, executor=executor)))

        # the owner the client claims is never believed
        reply = client.post("/api/v1/research", headers=auth["alice"], json={
            "question": QUESTION, "collections": ["notes"],
            "owner": {"id": bob.id, "name": "bob", "admin": True}})
        assert reply.status_code == 202, reply.text
        run_id = reply.json()["id"]
        claimed = store.run_state(run_id)
        assert claimed.status == "queued"
        queued = store.get(run_id)
        assert queued.request is not None
        owner = queued.request["owner"]
        assert (owner["id"], owner["name"], owner.get("admin", False)) == (alice.id, "alice",
                                                                            False)
        # bob cannot reach it even while it waits for a worker
        assert client.get(f"/api/v1/research/{run_id}", headers=auth["bob"]).status_code == 404
        assert client.post(f"/api/v1/research/{run_id}/cancel",
                           headers=auth["bob"]).status_code == 404

        work(queue_settings, burst=True)  # the worker executes it as alice's

        mine = client.get(f"/api/v1/research/{run_id}", headers=auth["alice"])
        assert mine.status_code == 200 and mine.json()["state"] == "completed", mine.text
        assert "[1]" in mine.json()["result"]["answer"]
        events = client.get(f"/api/v1/research/{run_id}/events", headers=auth["alice"])
        assert sse_lines(events.text)[-1]["event"] == "end"
        for path in (f"/api/v1/research/{run_id}", f"/api/v1/research/{run_id}/events",
                     f"/api/v1/research/{run_id}/export/markdown",
                     f"/api/v1/runs/{run_id}/sources/1"):
            theirs = client.get(path, headers=auth["bob"])
            assert theirs.status_code == 404, (path, theirs.text)
            assert theirs.json()["error"] == {"code": "unknown_run",
                                              "message": f"No run {run_id!r}"}
        assert client.get("/api/v1/history", headers=auth["bob"]).json() == []
        assert [run["id"] for run in client.get(
            "/api/v1/history", headers=auth["alice"]).json()] == [run_id]
        assert [(run["id"], run["owner"]) for run in client.get(
            "/api/v1/history", headers=auth["root"]).json()] == [(run_id, "alice")]
        with pytest.raises(UnknownRunError):  # the store's own rule, too
            store.get(run_id, Access(user_id=bob.id, name="bob"))
        stored = store.get(run_id, Access(user_id=alice.id, name="alice"))
        assert stored.status == "completed"
        assert stored.request is not None and stored.request["owner"]["name"] == "alice"
    finally:
        executor.shutdown()
        store.close()
