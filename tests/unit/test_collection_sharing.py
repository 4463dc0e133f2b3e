"""Who may search a collection, where it matters most: a run may only search the
collections its owner may read - another user's private collection is refused at
submit (422 over REST, on both executors) with the very message of a collection that
does not exist - and ``deepcite collection share`` changes who may, audited.

Real stores on SQLite and PostgreSQL (``store_url``), a real collection, the real app
and executors; a scripted model in place of the real one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app as cli_app
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.errors import RequestError
from deepcite.runs import RunRequest
from deepcite.runs.local import LocalRunExecutor
from deepcite.runs.request import RunOwner
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.fakes import ScriptedChatModel
from tests.redis_fixture import redis_server, redis_url  # noqa: F401

PASSWORD = "correct horse battery"
runner = CliRunner()


@pytest.fixture
def settings(tmp_path: Path, store_url: str, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """A data folder with the collection ``tea``, and the store at ``store_url`` (the
    command line finds it there too)."""
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPCITE_STORE_URL", store_url)
    folder = tmp_path / "tea"
    folder.mkdir()
    (folder / "tea.md").write_text("# Tea\n\nGreen tea is steamed soon after picking.\n",
                                   encoding="utf-8")
    loaded = load_settings({"research.iterations": 1}, config_files=[])
    Collection.create("tea", settings=loaded).add(folder)
    return loaded


@pytest.fixture
def store(settings: Settings, store_url: str) -> Iterator[HistoryStore]:
    """The store with alice (who owns ``tea``), bob and admin."""
    with HistoryStore.from_url(store_url) as opened:
        opened.add_user("admin", PASSWORD, admin=True)
        for name in ("alice", "bob"):
            opened.add_user(name, PASSWORD)
        opened.set_collection_owner("tea", opened.user("alice").id)
        yield opened


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = ScriptedChatModel(script={"questions": [""], "synthesis": ["Steamed [1]."]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: fake)


def _owner(store: HistoryStore, name: str) -> RunOwner:
    user = store.user(name)
    return RunOwner(id=user.id, name=user.name, admin=user.is_admin)


def _request(store: HistoryStore, who: str, *collections: str) -> RunRequest:
    return RunRequest(question="How is green tea made?",
                      collections=list(collections)).asked_by("api", _owner(store, who))


def _refusal(error: dict[str, Any], name: str) -> str:
    assert error["code"] == "invalid_request", error
    assert [field["field"] for field in error["fields"]] == ["collections"]
    message: str = error["fields"][0]["message"]
    return message.replace(name, "N")


def test_a_run_may_only_search_what_its_owner_may_read(
        settings: Settings, store: HistoryStore, model: None) -> None:
    executor = LocalRunExecutor(settings, workers=1, store=store)
    try:
        client = TestClient(create_app(WebState(settings=settings, executor=executor)))
        auth = {who: {"Authorization": f"Bearer {store.create_token(who, 'tests')}"}
                for who in ("alice", "bob", "admin")}

        def submit(who: str, *collections: str) -> Any:
            return client.post("/api/v1/research", headers=auth[who], json={
                "question": "How is green tea made?", "collections": list(collections)})

        theirs, missing = submit("bob", "tea"), submit("bob", "ghost")
        assert theirs.status_code == missing.status_code == 422, theirs.text
        assert _refusal(theirs.json()["error"], "tea") == \
            _refusal(missing.json()["error"], "ghost")
        assert "No collection named" in theirs.json()["error"]["fields"][0]["message"]
        assert submit("bob", "demo", "tea").status_code == 422  # one is enough
        assert store.list(access=_owner(store, "bob").access) == []

        assert submit("alice", "tea").status_code == 202
        assert submit("admin", "tea").status_code == 202
        store.share_collection("tea", add_users=["bob"])
        assert submit("bob", "tea").status_code == 202
        store.share_collection("tea", private=True)
        assert submit("bob", "tea").status_code == 422
        store.share_collection("tea", everyone=True)
        assert submit("bob", "tea").status_code == 202
    finally:
        executor.shutdown()


def test_the_queue_refuses_it_too_before_anything_is_queued(
        settings: Settings, store: HistoryStore, redis_url: str,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    from deepcite.runs.queue.executor import QueueExecutor

    monkeypatch.setenv("DEEPCITE_QUEUE_URL", redis_url)
    queued = load_settings({"research.iterations": 1}, config_files=[])
    executor = QueueExecutor(queued, store=store, reap=False)
    try:
        with pytest.raises(RequestError) as refused:
            executor.submit(_request(store, "bob", "tea"))
        assert refused.value.field == "collections"
        with pytest.raises(RequestError) as unknown:
            executor.submit(_request(store, "bob", "ghost"))
        assert str(refused.value).replace("tea", "N") == str(unknown.value).replace("ghost", "N")
        assert store.list() == []
        assert executor.submit(_request(store, "alice", "tea"))
    finally:
        executor.shutdown()


def _cli(*args: str, code: int = 0) -> str:
    result = runner.invoke(cli_app, ["collection", "share", *args])
    assert result.exit_code == code, result.output
    return " ".join((result.stdout if code == 0 else result.stderr).split())


def test_the_command_line_shares_as_an_admin_and_audits_it(
        settings: Settings, store: HistoryStore) -> None:
    assert _cli("tea") == "Collection 'tea': owner alice, shared with no one"
    assert store.audit_log(action="collection.share") == []  # only looked

    assert _cli("tea", "--everyone", "--user", "bob") == \
        "Collection 'tea': owner alice, shared with everyone, bob"
    sharing = store.collection_sharing("tea")
    assert sharing.everyone and sharing.users == ["bob"]
    entry = store.audit_log(action="collection.share")[0]
    assert (entry.actor, entry.target) == ("cli", "tea")
    assert entry.detail is not None and entry.detail["add_users"] == ["bob"]

    assert _cli("tea", "--no-everyone", "--remove-user", "bob") == \
        "Collection 'tea': owner alice, shared with no one"
    assert _cli("tea", "--everyone", "--user", "admin").endswith("everyone, admin")
    # private first, so what is given with it is kept
    assert _cli("tea", "--private", "--user", "bob") == \
        "Collection 'tea': owner alice, shared with bob"
    assert _cli("tea", "--owner", "bob") == "Collection 'tea': owner bob, shared with bob"
    assert store.may_change_collection(_owner(store, "bob").access, "tea")
    assert not store.may_change_collection(_owner(store, "alice").access, "tea")
    assert len(store.audit_log(action="collection.share")) == 5

    assert "No user 'nobody'" in _cli("tea", "--user", "bob", "--remove-user", "nobody",
                                      "--owner", "alice", code=1)
    assert store.collection_sharing("tea").owner == "bob"  # nothing changed
    assert "No collection named 'ghost'" in _cli("ghost", "--everyone", code=1)
    assert "everyone's" in _cli("demo", "--private", code=2)
    assert len(store.audit_log(action="collection.share")) == 5
