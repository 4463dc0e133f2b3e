"""Watches over the REST API with user accounts: each user reaches only their own
watches (another user's answers exactly as one that does not exist), admins all;
create, list, show, pause, resume, run, read changes, rotate the feed token, delete;
budgets and bad schedules refused. The real app over TestClient, a real SQLite store,
runs really run (a scripted model)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import deepcite.runs.build
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.watches.service import WatchService
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.fakes import ScriptedChatModel, cite_all

PASSWORD = "correct horse battery"
UNKNOWN = "0123456789abcdef0123456789abcdef"


@dataclass
class Server:
    client: TestClient
    store: HistoryStore
    executor: LocalRunExecutor
    settings: Settings
    tokens: dict[str, str]

    def auth(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPCITE_WATCHES_MAX_RUNS_PER_OWNER_PER_DAY", "2")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "cache.md").write_text("We keep the cache in Redis with a one hour expiry.",
                                     encoding="utf-8")
    settings = load_settings({"research.iterations": 1})
    Collection.create("notes", settings=settings).add(folder)
    model = ScriptedChatModel(script={"synthesis": [cite_all]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    store = HistoryStore.open(settings)
    store.add_user("root", PASSWORD, admin=True)
    for name in ("alice", "bob"):
        store.add_user(name, PASSWORD)
    tokens = {name: store.create_token(name, "tests") for name in ("root", "alice", "bob")}
    store.share_collection("notes", everyone=True)
    executor = LocalRunExecutor(settings, workers=1, store=store)
    app = create_app(WebState(settings=settings, executor=executor))
    try:
        yield Server(TestClient(app), store, executor, settings, tokens)
    finally:
        executor.shutdown()
        store.close()


def _create(server: Server, who: str, **body: Any) -> dict[str, Any]:
    reply = server.client.post("/api/v1/watches", headers=server.auth(who), json={
        "request": {"question": "Where is the cache kept?", "collections": ["notes"]},
        "schedule": "every 6h",
        "targets": [{"kind": "webhook", "url": "https://hooks.example/a"}], **body})
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created


def test_a_user_manages_their_watch_and_reads_its_changes(server: Server) -> None:
    created = _create(server, "alice")
    watch = created["watch"]
    assert created["feed_token"].startswith("dcf_")
    assert watch["owner_id"] == server.store.user("alice").id
    assert watch["request"]["origin"] == "api"
    auth = server.auth("alice")
    client = server.client
    assert [w["id"] for w in client.get("/api/v1/watches", headers=auth).json()] == [
        watch["id"]]
    paused = client.patch(f"/api/v1/watches/{watch['id'][:8]}", headers=auth,
                          json={"status": "paused"})
    assert paused.status_code == 200 and paused.json()["status"] == "paused"
    resumed = client.patch(f"/api/v1/watches/{watch['id']}", headers=auth,
                           json={"status": "active"}).json()
    assert resumed["status"] == "active" and resumed["next_run_at"]

    started = client.post(f"/api/v1/watches/{watch['id']}/run", headers=auth)
    assert started.status_code == 202, started.text
    run_id = started.json()["run_id"]
    service = WatchService(server.store, server.settings, server.executor)
    deadline = time.monotonic() + 30
    while server.executor.status(run_id).state not in ("completed", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    service.finish_ended()  # the scheduler's part
    [run] = client.get(f"/api/v1/watches/{watch['id']}/runs", headers=auth).json()
    assert run["status"] == "done" and run["summary"].startswith("First run: 1 source")
    detail = client.get(f"/api/v1/watches/{watch['id']}", headers=auth).json()
    assert detail["latest"]["run_id"] == run_id
    # the run is an ordinary run of hers
    assert client.get(f"/api/v1/research/{run_id}", headers=auth).status_code == 200

    fresh = client.post(f"/api/v1/watches/{watch['id']}/feed-token", headers=auth).json()
    assert fresh["feed_token"] != created["feed_token"]
    assert server.store.watch_for_feed_token(created["feed_token"]) is None
    gone = client.delete(f"/api/v1/watches/{watch['id']}", headers=auth)
    assert gone.status_code == 200 and gone.json()["deleted"] is True
    assert client.get("/api/v1/watches", headers=auth).json() == []


def test_another_users_watch_is_not_there(server: Server) -> None:
    watch = _create(server, "alice")["watch"]
    bob = server.auth("bob")
    assert server.client.get("/api/v1/watches", headers=bob).json() == []
    for method, path, body in [
            ("GET", "", None), ("PATCH", "", {"status": "paused"}), ("DELETE", "", None),
            ("POST", "/run", None), ("GET", "/runs", None), ("POST", "/feed-token", None)]:
        for ref in (watch["id"], UNKNOWN):
            reply = server.client.request(method, f"/api/v1/watches/{ref}{path}",
                                          headers=bob, json=body)
            assert reply.status_code == 404, (method, path, reply.text)
            assert reply.json()["error"]["code"] == "unknown_watch"
    assert server.store.watch(watch["id"]).status == "active"  # nothing changed
    admin = server.client.get("/api/v1/watches", headers=server.auth("root")).json()
    assert [w["id"] for w in admin] == [watch["id"]]


def test_bad_watches_and_spent_budgets_are_refused(server: Server) -> None:
    alice = server.auth("alice")
    bad = server.client.post("/api/v1/watches", headers=alice, json={
        "request": {"question": "Where is the cache kept?", "collections": ["notes"]},
        "schedule": "hourly"})
    assert bad.status_code == 422 and "every 30m" in bad.json()["error"]["message"]
    target = server.client.post("/api/v1/watches", headers=alice, json={
        "request": {"question": "Where?"}, "schedule": "every 1h",
        "targets": [{"kind": "webhook", "url": "ftp://nope"}]})
    assert target.status_code == 422
    watch = _create(server, "alice")["watch"]
    for _ in range(2):  # the owner's two runs a day
        assert server.client.post(f"/api/v1/watches/{watch['id']}/run",
                                  headers=alice).status_code == 202
    spent = server.client.post(f"/api/v1/watches/{watch['id']}/run", headers=alice)
    assert spent.status_code == 429
    assert "max_runs_per_owner_per_day" in spent.json()["error"]["message"]


def test_the_feed_address_serves_the_watchs_changes_as_atom(server: Server) -> None:
    import xml.etree.ElementTree as ET

    created = _create(server, "alice")
    assert created["feed_path"] == f"/feeds/watches/{created['feed_token']}.atom"
    assert len(created["webhook_secret"]) == 64
    assert server.store.webhook_secret(created["watch"]["id"]) == created["webhook_secret"]
    WatchService(server.store, server.settings).run_here(created["watch"]["id"])

    feed = server.client.get(created["feed_path"])  # no login: the address is the key
    assert feed.status_code == 200, feed.text
    assert feed.headers["content-type"].startswith("application/atom+xml")
    assert feed.headers["cache-control"] == "private, no-store"
    atom = "{http://www.w3.org/2005/Atom}"
    entries = ET.fromstring(feed.content).findall(f"{atom}entry")
    assert len(entries) == 1
    assert (entries[0].findtext(f"{atom}title") or "").count("First run") == 1

    wrong = server.client.get("/feeds/watches/dcf_not-a-token.atom")
    assert wrong.status_code == 404 and "No such feed" in wrong.text
    rotated = server.client.post(f"/api/v1/watches/{created['watch']['id']}/feed-token",
                                 headers=server.auth("alice"))
    assert rotated.status_code == 200
    assert server.client.get(created["feed_path"]).status_code == 404


def _wait_ended(server: Server, run_id: str) -> None:
    deadline = time.monotonic() + 30
    while server.executor.status(run_id).state not in ("completed", "failed"):
        assert time.monotonic() < deadline, f"run {run_id} did not end"
        time.sleep(0.05)


def test_runs_a_watch_starts_have_origin_watch_in_the_history(server: Server) -> None:
    from datetime import UTC, datetime, timedelta

    alice = server.auth("alice")
    watch = _create(server, "alice")["watch"]
    manual = server.client.post(f"/api/v1/watches/{watch['id']}/run", headers=alice)
    assert manual.status_code == 202, manual.text
    # and one on its schedule: the slot is due, the scheduler's submit claims it
    server.store.update_watch(watch["id"], next_run_at=datetime.now(UTC) - timedelta(minutes=1))
    service = WatchService(server.store, server.settings, server.executor)
    [scheduled] = service.submit_due().started
    asked = server.client.post("/api/v1/research", headers=alice, json={
        "question": "Where is the cache kept?", "collections": ["notes"]})
    assert asked.status_code == 202, asked.text
    watch_runs = {manual.json()["run_id"], scheduled.run_id}
    for run_id in (*watch_runs, asked.json()["id"]):
        _wait_ended(server, run_id)

    def listed(origin: str) -> set[str]:
        reply = server.client.get("/api/v1/history", headers=alice,
                                  params={"origin": origin})
        assert reply.status_code == 200, reply.text
        return {run["id"] for run in reply.json()}

    assert listed("watch") == watch_runs
    assert listed("api") == {asked.json()["id"]}  # the watch itself was made over the API
    every = server.client.get("/api/v1/history", headers=alice).json()
    assert {run["id"]: run["origin"] for run in every} == {
        **dict.fromkeys(watch_runs, "watch"), asked.json()["id"]: "api"}
    # the watch keeps the origin of whoever made it
    assert server.store.watch(watch["id"]).request["origin"] == "api"
    assert server.client.get("/api/v1/history", headers=alice,
                             params={"origin": "nowhere"}).status_code == 422


def test_a_slot_refused_by_the_owners_budget_is_in_the_watchs_runs(server: Server) -> None:
    from datetime import UTC, datetime, timedelta

    alice = server.auth("alice")
    watch = _create(server, "alice")["watch"]
    started = [server.client.post(f"/api/v1/watches/{watch['id']}/run", headers=alice)
               for _ in range(2)]  # her two runs a day
    assert [reply.status_code for reply in started] == [202, 202]
    for reply in started:
        _wait_ended(server, reply.json()["run_id"])
    service = WatchService(server.store, server.settings, server.executor)
    service.finish_ended()
    server.store.update_watch(watch["id"], next_run_at=datetime.now(UTC) - timedelta(minutes=1))
    assert service.submit_due().started == []

    runs = server.client.get(f"/api/v1/watches/{watch['id']}/runs", headers=alice).json()
    assert [run["status"] for run in runs] == ["refused", "done", "done"]
    refused = runs[0]
    assert refused["run_id"] is None and refused["trigger"] == "schedule"
    assert "watches.max_runs_per_owner_per_day = 2" in refused["error"]
    assert "they may run again from " in refused["error"] and "\n" not in refused["error"]
    assert refused["summary"] == f"Not run: {refused['error']}"
    detail = server.client.get(f"/api/v1/watches/{watch['id']}", headers=alice).json()
    assert detail["latest"]["id"] == refused["id"]
    # its owner may not see it as someone else's: bob does not see the watch at all
    assert server.client.get(f"/api/v1/watches/{watch['id']}/runs",
                             headers=server.auth("bob")).status_code == 404
