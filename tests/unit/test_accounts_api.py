"""User accounts over the REST API: each user reaches only their own runs (another
user's run answers exactly as one that does not exist), admins reach everyone's, and
personal tokens are checked on every request - a revoked token, a disabled user or the
old server token stop working at once, and wrong tokens are throttled.

Real stores on SQLite and PostgreSQL (``store_url``), the real app over TestClient, and
a scripted model in place of the real one, so runs really run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import deepcite.runs.build
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.rest import sse_lines
from tests.fakes import ScriptedChatModel, cite_all

PASSWORD = "correct horse battery"
SERVER_TOKEN = "the-old-server-token-1234"
UNKNOWN = "0123456789abcdef0123456789abcdef"


class Hold:
    """The model's answer call waits while :attr:`open` is clear, so a run can be
    caught while it is active; then it cites what it was shown."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.open.set()
        self.entered = threading.Event()

    def __call__(self, prompt: str) -> str:
        self.entered.set()
        self.open.wait(20)
        return cite_all(prompt)


@dataclass
class Server:
    """One app on one store, with three users and their tokens."""

    client: TestClient
    store: HistoryStore
    executor: LocalRunExecutor
    hold: Hold
    tokens: dict[str, str]

    def auth(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "cache.md").write_text(
        "# Cache decision\n\nWe decided to keep the cache in Redis with a one hour expiry, "
        "because the database was overloaded.\n", encoding="utf-8")
    loaded = load_settings({"research.iterations": 1})
    Collection.create("notes", settings=loaded).add(folder)
    return loaded


@pytest.fixture
def server(settings: Settings, store_url: str,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    hold = Hold()
    model = ScriptedChatModel(script={"synthesis": [hold], "section": [cite_all]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    store = HistoryStore.from_url(store_url)
    store.add_user("root", PASSWORD, admin=True)
    tokens = {}
    for name in ("alice", "bob"):
        store.add_user(name, PASSWORD)
    for name in ("root", "alice", "bob"):
        tokens[name] = store.create_token(name, "tests")
    store.share_collection("notes", everyone=True)  # a collection with no record: admins'
    executor = LocalRunExecutor(settings, workers=2, store=store)
    app = create_app(WebState(settings=settings, executor=executor, token=SERVER_TOKEN))
    try:
        yield Server(TestClient(app), store, executor, hold, tokens)
    finally:
        hold.open.set()
        executor.shutdown()
        store.close()


def _submit(server: Server, who: str, question: str = "What did we decide about the cache?",
            **body: Any) -> str:
    reply = server.client.post("/api/v1/research", headers=server.auth(who),
                               json={"question": question, "collections": ["notes"], **body})
    assert reply.status_code == 202, reply.text
    run_id: str = reply.json()["id"]
    return run_id


def _ended(server: Server, who: str, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    info: dict[str, Any] = {}
    while time.monotonic() < deadline:
        info = server.client.get(f"/api/v1/research/{run_id}", headers=server.auth(who)).json()
        if info.get("state") in ("completed", "failed", "cancelled", "interrupted"):
            return info
        time.sleep(0.02)
    raise AssertionError(f"run {run_id} never ended: {info}")


def _same_as_unknown(server: Server, method: str, path: str, run_id: str,
                     **kwargs: Any) -> None:
    """Bob asking for alice's run gets what he gets for a run that does not exist."""
    theirs = server.client.request(method, path.format(run_id), headers=server.auth("bob"),
                                   **kwargs)
    missing = server.client.request(method, path.format(UNKNOWN), headers=server.auth("bob"),
                                    **kwargs)
    assert theirs.status_code == missing.status_code == 404, (path, theirs.text)
    assert theirs.json()["error"]["code"] == missing.json()["error"]["code"]
    assert theirs.json() == {"error": {"code": missing.json()["error"]["code"],
                                       "message": f"No run {run_id!r}"}}
    assert missing.json()["error"]["message"] == f"No run {UNKNOWN!r}"
    assert alice_run_id_leaks(theirs.text, run_id) is False


def alice_run_id_leaks(text: str, run_id: str) -> bool:
    """Whether a reply says more about the run than the id bob asked with (its
    question, say)."""
    return "cache" in text.lower()


# ------------------------------------------------------------------------ isolation


def test_another_users_run_answers_as_a_missing_one_on_every_route(server: Server) -> None:
    alice_run = _ended(server, "alice", _submit(server, "alice"))
    run_id = alice_run["id"]
    assert alice_run["state"] == "completed", alice_run
    bob_run = _ended(server, "bob", _submit(server, "bob", "Where do we keep the cache?"))
    routes = [
        ("GET", "/api/v1/research/{}"),
        ("POST", "/api/v1/research/{}/cancel"),
        ("GET", "/api/v1/research/{}/events"),
        ("GET", "/api/v1/research/{}/export/markdown"),
        ("GET", "/api/v1/runs/{}/sources/1"),
        ("GET", "/api/v1/runs/{}/sources/1/document"),
        ("DELETE", "/api/v1/runs/{}"),
        ("GET", "/api/v1/runs/{}/compare/" + bob_run["id"]),
        ("GET", "/api/v1/runs/" + bob_run["id"] + "/compare/{}"),
        ("GET", "/api/v1/runs/{}/thread"),
    ]
    for method, path in routes:
        _same_as_unknown(server, method, path, run_id)
        # a prefix of the id finds nothing either
        _same_as_unknown(server, method, path, run_id[:8])
    # nor may he ask in her thread, and nothing is started for him
    for ref in (run_id, run_id[:8]):
        _same_as_unknown(server, "POST", "/api/v1/runs/{}/follow-ups", ref,
                         json={"question": "And then?"})
    assert len(server.client.get("/api/v1/history", headers=server.auth("bob")).json()) == 1
    thread = server.client.get(f"/api/v1/runs/{run_id}/thread", headers=server.auth("alice"))
    assert thread.status_code == 200 and [t["id"] for t in thread.json()["turns"]] == [run_id]
    # alice's run is all there, for alice
    mine = server.client.get(f"/api/v1/research/{run_id}", headers=server.auth("alice"))
    assert mine.status_code == 200 and mine.json()["result"]["sources"]
    events = server.client.get(f"/api/v1/research/{run_id}/events",
                               headers=server.auth("alice"))
    assert events.status_code == 200 and sse_lines(events.text)[-1]["event"] == "end"
    export = server.client.get(f"/api/v1/research/{run_id}/export/markdown",
                               headers=server.auth("alice"))
    assert export.status_code == 200 and "cache" in export.text.lower()
    source = server.client.get(f"/api/v1/runs/{run_id}/sources/1",
                               headers=server.auth("alice"))
    assert source.status_code == 200
    assert server.store.get(run_id).status == "completed"
    # and the admin reaches both, compare included
    compared = server.client.get(f"/api/v1/runs/{run_id}/compare/{bob_run['id']}",
                                 headers=server.auth("root"))
    assert compared.status_code == 200, compared.text


def test_bob_cannot_cancel_or_delete_alices_active_run(server: Server) -> None:
    server.hold.open.clear()
    run_id = _submit(server, "alice")
    assert server.hold.entered.wait(10)
    for method, path in (("POST", "/api/v1/research/{}/cancel"),
                         ("DELETE", "/api/v1/runs/{}"),
                         ("GET", "/api/v1/research/{}/events")):
        _same_as_unknown(server, method, path, run_id)
    state = server.client.get(f"/api/v1/research/{run_id}", headers=server.auth("alice"))
    assert state.json()["state"] == "running"
    # alice herself must cancel an active run before deleting it
    refused = server.client.delete(f"/api/v1/runs/{run_id}", headers=server.auth("alice"))
    assert refused.status_code == 409 and "cancel it first" in refused.json()["error"]["message"]
    cancelled = server.client.post(f"/api/v1/research/{run_id}/cancel",
                                   headers=server.auth("alice"))
    assert cancelled.status_code == 200, cancelled.text
    server.hold.open.set()
    assert _ended(server, "alice", run_id)["state"] == "cancelled"


def test_alice_deletes_her_run_and_the_deletion_is_audited(server: Server) -> None:
    run_id = _ended(server, "alice", _submit(server, "alice"))["id"]
    gone = server.client.delete(f"/api/v1/runs/{run_id}", headers=server.auth("alice"))
    assert gone.status_code == 200 and gone.json() == {"id": run_id, "deleted": True}
    again = server.client.get(f"/api/v1/research/{run_id}", headers=server.auth("alice"))
    assert again.status_code == 404
    [entry] = server.store.audit_log(action="run.delete")
    assert (entry.actor, entry.target, entry.address) == ("alice", run_id, "testclient")
    # an admin deletes anyone's run
    bobs = _ended(server, "bob", _submit(server, "bob"))["id"]
    assert server.client.delete(f"/api/v1/runs/{bobs}",
                                headers=server.auth("root")).status_code == 200
    assert server.store.audit_log(action="run.delete")[0].actor == "root"


def test_history_lists_only_the_callers_runs_and_admins_see_owners(server: Server) -> None:
    alices = _ended(server, "alice", _submit(server, "alice", "Alpha cache question?"))["id"]
    bobs = _ended(server, "bob", _submit(server, "bob", "Beta cache question?"))["id"]

    def listed(who: str, **query: str) -> list[dict[str, Any]]:
        reply = server.client.get("/api/v1/history", params=query, headers=server.auth(who))
        assert reply.status_code == 200, reply.text
        found: list[dict[str, Any]] = reply.json()
        return found

    assert [run["id"] for run in listed("bob")] == [bobs]
    assert listed("bob", search="Alpha") == []
    assert [run["id"] for run in listed("bob", search="cache")] == [bobs]
    assert listed("bob", status="completed", origin="api")[0]["id"] == bobs
    assert [run["id"] for run in listed("alice")] == [alices]
    admin = {run["id"]: run["owner"] for run in listed("root")}
    assert admin == {alices: "alice", bobs: "bob"}
    assert {run["owner"] for run in listed("root", search="Alpha")} == {"alice"}


def test_a_forged_owner_in_the_body_is_ignored(server: Server) -> None:
    bob = server.store.user("bob")
    run_id = _submit(server, "alice", owner={"id": bob.id, "name": "bob", "admin": True})
    _ended(server, "alice", run_id)
    stored = server.store.get(run_id)
    assert stored.request is not None and stored.request["owner"]["name"] == "alice"
    assert server.client.get(f"/api/v1/research/{run_id}",
                             headers=server.auth("bob")).status_code == 404
    assert [run["owner"] for run in server.client.get(
        "/api/v1/history", headers=server.auth("root")).json()] == ["alice"]


# ------------------------------------------------------------------------ tokens


def test_without_a_token_every_route_but_health_is_401(server: Server) -> None:
    for method, path in (("GET", "/api/v1/history"), ("POST", "/api/v1/research"),
                         ("GET", f"/api/v1/research/{UNKNOWN}"),
                         ("DELETE", f"/api/v1/runs/{UNKNOWN}"),
                         ("GET", "/api/v1/collections")):
        reply = server.client.request(method, path)
        assert reply.status_code == 401, (path, reply.text)
        assert "deepcite users token NAME" in reply.json()["error"]["message"]
        assert reply.headers["www-authenticate"] == "Bearer"
    assert server.client.get("/api/v1/health").json()["status"] == "ok"
    assert server.client.get("/api/v1/openapi.json").status_code == 200


def test_a_revoked_token_and_a_disabled_users_token_stop_at_once(server: Server) -> None:
    assert server.client.get("/api/v1/history", headers=server.auth("alice")).status_code == 200
    [token] = server.store.tokens("alice")
    assert server.store.revoke_token("alice", token.id)
    assert server.client.get("/api/v1/history",
                             headers=server.auth("alice")).status_code == 401
    assert server.client.get("/api/v1/history", headers=server.auth("bob")).status_code == 200
    server.store.set_disabled("bob", True)
    reply = server.client.get("/api/v1/history", headers=server.auth("bob"))
    assert reply.status_code == 401
    server.store.set_disabled("bob", False)
    assert server.client.get("/api/v1/history", headers=server.auth("bob")).status_code == 200


def test_the_server_token_is_refused_once_users_exist(server: Server) -> None:
    reply = server.client.get("/api/v1/history",
                              headers={"Authorization": f"Bearer {SERVER_TOKEN}"})
    assert reply.status_code == 401
    assert "use a personal token" in reply.json()["error"]["message"]


def test_wrong_tokens_are_throttled_before_the_right_one_is_compared(server: Server) -> None:
    for attempt in range(5):
        wrong = server.client.get("/api/v1/history",
                                  headers={"Authorization": f"Bearer dc_wrong{attempt}"})
        assert wrong.status_code == 401
    for headers in ({"Authorization": "Bearer dc_wrong"}, server.auth("alice")):
        reply = server.client.get("/api/v1/history", headers=headers)
        assert reply.status_code == 429, reply.text
        assert int(reply.headers["retry-after"]) > 0
        assert "wait" in reply.json()["error"]["message"]
    # another address is not held back by this one's guesses
    other = TestClient(server.client.app, client=("192.0.2.7", 4000))
    assert other.get("/api/v1/history", headers=server.auth("alice")).status_code == 200


def test_token_use_is_audited_without_flooding_the_log(server: Server) -> None:
    for _ in range(3):
        assert server.client.get("/api/v1/history",
                                 headers=server.auth("alice")).status_code == 200
    [token] = server.store.tokens("alice")
    entries = server.store.audit_log(action="token.use", actor="alice")
    assert [(e.target, e.address) for e in entries] == [(str(token.id), "testclient")]
    # used again after an hour of quiet: noted again
    last = token.last_used_at
    assert last is not None
    last = last if last.tzinfo is not None else last.replace(tzinfo=UTC)  # SQLite: naive
    assert server.store.token_owner(server.tokens["alice"], now=last + timedelta(minutes=30))
    assert len(server.store.audit_log(action="token.use", actor="alice")) == 1
    assert server.store.token_owner(server.tokens["alice"], now=last + timedelta(hours=2))
    assert len(server.store.audit_log(action="token.use", actor="alice")) == 2


def test_a_follow_up_of_another_users_run_is_refused_as_an_unknown_one(
        server: Server) -> None:
    alices = _ended(server, "alice", _submit(server, "alice"))["id"]

    def follow_up(who: str, parent: str) -> Any:
        return server.client.post("/api/v1/research", headers=server.auth(who), json={
            "question": "And then?", "collections": ["notes"], "parent_id": parent})

    theirs, missing = follow_up("bob", alices), follow_up("bob", UNKNOWN)
    assert theirs.status_code == missing.status_code == 422, theirs.text
    assert theirs.json()["error"]["message"] == missing.json()["error"]["message"].replace(
        UNKNOWN, alices)
    assert follow_up("alice", alices).status_code == 202
