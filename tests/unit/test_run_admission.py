"""One door for every run (:func:`deepcite.runs.admission.admit`): a run is authorised by
what its owner may do *now*, and the server's limits are caps a request cannot raise.

- A watch keeps no rights its owner has lost: made by an admin over another user's
  private collection, it runs while they are an admin and is refused once they are not
  (the stored request saying ``admin`` is never believed); a disabled or removed owner's
  watch is refused too, each refusal kept as a ``refused`` slot the owner can see.
- A queued run is checked again by the worker that takes it, with the owner's rights
  of then: one whose owner was demoted or disabled while it waited ends ``failed`` with
  the reason and never reads the collection.
- ``research.max_*`` limits: a request may lower them, never raise them (422 naming the
  field and the server's value), over REST and for watches.

Real stores on SQLite and PostgreSQL (``store_url``), a real collection, the real app,
executors, Redis and worker; a scripted model in place of the real one. An account is
demoted in the database itself (there is no command for it: an operator does it there).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from fastapi.testclient import TestClient

import deepcite.runs.build
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.errors import OwnerError, RequestError
from deepcite.runs import RunRequest
from deepcite.runs.local import LocalRunExecutor
from deepcite.runs.queue import worker as worker_module
from deepcite.runs.queue.executor import QueueExecutor
from deepcite.runs.queue.worker import work
from deepcite.runs.request import RunOwner
from deepcite.store import HistoryStore
from deepcite.watches.service import WatchService
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.fakes import ScriptedChatModel
from tests.redis_fixture import redis_server, redis_url  # noqa: F401

PASSWORD = "correct horse battery"
QUESTION = "How is green tea made?"


@pytest.fixture
def settings(tmp_path: Path, store_url: str, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """A data folder with the collection ``tea``, the store at ``store_url`` (a worker
    finds both from the environment) and a scripted model."""
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPCITE_STORE_URL", store_url)
    monkeypatch.setenv("DEEPCITE_RESEARCH_ITERATIONS", "1")
    folder = tmp_path / "tea"
    folder.mkdir()
    (folder / "tea.md").write_text("# Tea\n\nGreen tea is steamed soon after picking.\n",
                                   encoding="utf-8")
    loaded = load_settings(config_files=[])
    Collection.create("tea", settings=loaded).add(folder)
    fake = ScriptedChatModel(script={"questions": [""], "synthesis": ["Steamed [1]."]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: fake)
    return loaded


@pytest.fixture
def store(settings: Settings, store_url: str) -> Iterator[HistoryStore]:
    """The store with alice (who owns the private ``tea``), bob and the admin root."""
    with HistoryStore.from_url(store_url) as opened:
        opened.add_user("root", PASSWORD, admin=True)
        for name in ("alice", "bob"):
            opened.add_user(name, PASSWORD)
        opened.set_collection_owner("tea", opened.user("alice").id)
        yield opened


def _owner(store: HistoryStore, name: str) -> RunOwner:
    user = store.user(name)
    return RunOwner(id=user.id, name=user.name)


def _request(store: HistoryStore, who: str, **fields: Any) -> RunRequest:
    return RunRequest(**{"question": QUESTION, "collections": ["tea"], **fields}).asked_by(
        "api", _owner(store, who))


def _demote(store_url: str, name: str) -> None:
    """Take admin rights away in the database, as an operator would."""
    engine = sqlalchemy.create_engine(store_url)
    try:
        with engine.begin() as connection:
            connection.execute(sqlalchemy.text(
                "UPDATE users SET is_admin = :no WHERE name = :name"),
                {"no": False, "name": name})
    finally:
        engine.dispose()


# ---------------------------------------------------------------------- watches


def test_a_watch_runs_with_its_owners_rights_of_now_not_of_when_it_was_made(
        settings: Settings, store: HistoryStore, store_url: str) -> None:
    service = WatchService(store, settings)
    watch, _ = service.add(_request(store, "root"), "every 6h")  # root may read tea
    assert "admin" not in watch.request["owner"]  # rights are never written down
    assert service.run_here(watch.id).status == "done"

    _demote(store_url, "root")
    with pytest.raises(RequestError) as refused:
        service.run_here(watch.id)
    assert refused.value.field == "collections"
    assert "No collection named 'tea'" in str(refused.value)
    assert len(store.list()) == 1  # the refused run was never started


def test_a_stored_admin_flag_is_read_but_never_believed(
        settings: Settings, store: HistoryStore) -> None:
    """A request stored with ``"admin": true`` (as every admin's was before) still
    parses, and its runs have the rights of the account as it is: here none on tea."""
    bob = store.user("bob")
    stored = RunRequest(question=QUESTION, collections=["tea"], origin="api").stored()
    stored["owner"] = {"id": bob.id, "name": "bob", "admin": True}
    watch, _ = store.add_watch(name="old", request=stored, schedule="every 6h",
                               targets=[], next_run_at=datetime.now(UTC) + timedelta(hours=6),
                               owner_id=bob.id)
    service = WatchService(store, settings)
    with pytest.raises(RequestError, match="No collection named 'tea'"):
        service.run_here(watch.id)
    assert store.list() == []


def test_a_disabled_owners_watch_is_refused_by_hand_and_not_due_on_schedule(
        settings: Settings, store: HistoryStore) -> None:
    executor = LocalRunExecutor(settings, workers=1, store=store)
    try:
        service = WatchService(store, settings, executor)
        watch, _ = service.add(_request(store, "alice"), "every 1h")
        store.set_disabled("alice", True)
        with pytest.raises(OwnerError, match="'alice' this run belongs to is disabled"):
            service.run_here(watch.id)

        # On the schedule a disabled owner's watch is not even due (the store's due
        # query skips it, docs/accounts.md), so no slot is claimed and nothing runs.
        due = datetime.now(UTC) + timedelta(hours=2)
        report = service.submit_due(due)
        assert report.started == [] and report.refused == []
        assert store.watch_runs(watch.id) == []
        assert store.list() == []  # nothing ran
    finally:
        executor.shutdown()


def test_a_run_whose_owner_is_gone_is_refused_at_admission(
        settings: Settings, store: HistoryStore) -> None:
    executor = LocalRunExecutor(settings, workers=1, store=store)
    try:
        request = _request(store, "bob", collections=["demo"])
        store.remove_user("bob", delete_data=True)
        with pytest.raises(OwnerError) as refused:
            executor.submit(request)
        assert refused.value.field == "owner"
        assert "'bob' this run belongs to no longer exists" in str(refused.value)
        assert store.list() == []
    finally:
        executor.shutdown()


# ---------------------------------------------------------------------- the queue


@pytest.fixture
def queued(settings: Settings, store: HistoryStore, redis_url: str,  # noqa: F811
           monkeypatch: pytest.MonkeyPatch) -> Iterator[QueueExecutor]:
    monkeypatch.setenv("DEEPCITE_QUEUE_URL", redis_url)
    monkeypatch.setenv("DEEPCITE_QUEUE_HEARTBEAT_SECONDS", "0.2")
    monkeypatch.setattr(worker_module, "_CONTEXT", None)  # a fresh worker per test
    executor = QueueExecutor(load_settings(config_files=[]), store=store, reap=False)
    yield executor
    executor.shutdown()
    context = worker_module._CONTEXT
    if context is not None:
        context.store.close()


def test_a_queued_run_is_checked_again_with_the_rights_its_owner_has_when_it_starts(
        queued: QueueExecutor, store: HistoryStore, store_url: str) -> None:
    demoted = queued.submit(_request(store, "root"))  # root may read tea now
    owned = queued.submit(_request(store, "alice"))  # alice owns tea
    _demote(store_url, "root")

    work(load_settings(), burst=True)

    run = store.get(demoted)
    assert run.status == "failed"
    assert run.result.error is not None and "No collection named 'tea'" in run.result.error
    assert run.result.sources == []
    assert store.get(owned).status == "completed"


def test_a_queued_run_of_an_owner_disabled_meanwhile_fails_saying_so(
        queued: QueueExecutor, store: HistoryStore) -> None:
    run_id = queued.submit(_request(store, "alice"))
    store.set_disabled("alice", True)

    work(load_settings(), burst=True)

    run = store.get(run_id)
    assert run.status == "failed"
    assert run.result.error is not None and "'alice' this run belongs to is disabled" \
        in run.result.error
    assert run.result.sources == []


# ---------------------------------------------------------------------- limits


@pytest.fixture
def capped(tmp_path: Path, settings: Settings, store: HistoryStore
           ) -> Iterator[tuple[TestClient, dict[str, dict[str, str]], LocalRunExecutor]]:
    server = settings.model_copy(update={"research": settings.research.model_copy(
        update={"max_searches": 5, "max_model_calls": 20})})
    executor = LocalRunExecutor(server, workers=1, store=store)
    client = TestClient(create_app(WebState(settings=server, executor=executor)))
    auth = {who: {"Authorization": f"Bearer {store.create_token(who, 'tests')}"}
            for who in ("alice", "root")}
    try:
        yield client, auth, executor
    finally:
        executor.shutdown()


def _post(client: TestClient, auth: dict[str, str], **fields: Any) -> Any:
    return client.post("/api/v1/research", headers=auth,
                       json={"question": QUESTION, "collections": ["demo"], **fields})


@pytest.mark.parametrize("who", ["alice", "root"])  # an admin's request is no different
def test_a_request_may_lower_the_servers_limits_but_never_raise_them(
        capped: tuple[TestClient, dict[str, dict[str, str]], LocalRunExecutor],
        who: str) -> None:
    client, auth, _ = capped
    for fields, field, key in (
            ({"budget": {"max_searches": 50}}, "budget", "budget.max_searches"),
            ({"budget": {"max_model_calls": 21}}, "budget", "budget.max_model_calls"),
            ({"settings": {"research.max_searches": 6}}, "settings",
             "research.max_searches"),
            ({"settings": {"research.max_model_calls": None}}, "settings",
             "research.max_model_calls")):
        reply = _post(client, auth[who], **fields)
        assert reply.status_code == 422, (fields, reply.text)
        error = reply.json()["error"]
        assert [f["field"] for f in error["fields"]] == [field]
        message = error["fields"][0]["message"]
        assert message.startswith(f"{key}: ") and "this server's limit" in message
        assert ("= 5)" if "searches" in key else "= 20)") in message
    lower = _post(client, auth[who], budget={"max_searches": 3},
                  settings={"research.max_model_calls": 20})
    assert lower.status_code == 202, lower.text


def test_limits_the_server_leaves_open_may_be_set_and_watches_are_capped_too(
        settings: Settings, store: HistoryStore) -> None:
    assert settings.research.max_tokens is None  # no limit: any budget is lower
    open_limit = WatchService(store, settings)
    watch, _ = open_limit.add(_request(store, "alice", budget={"max_tokens": 50_000}),
                              "every 6h")
    server = settings.model_copy(update={"research": settings.research.model_copy(
        update={"max_tokens": 10_000})})
    with pytest.raises(RequestError, match=r"budget.max_tokens: 50000 is above this "
                                           r"server's limit \(research.max_tokens = 10000\)"):
        WatchService(store, server).add(_request(store, "alice",
                                                 budget={"max_tokens": 50_000}), "every 6h")
    # a watch made under a higher limit is refused once the operator lowers it
    with pytest.raises(RequestError, match="above this server's limit"):
        WatchService(store, server).run_here(watch.id)
