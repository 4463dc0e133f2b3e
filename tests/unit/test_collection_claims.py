"""Making a new collection name is one atomic claim: of users making the same new name
at the same moment exactly one gets it, the others are answered as for a name that is
someone else's, and none of their files ever lands in the winner's collection.

Real stores on SQLite and PostgreSQL (``store`` / ``store_url``), real threads released
together through a barrier; over HTTP the real app (TestClient per user, run at once
from threads), with every request held after its "does the name exist?" look until all
of them have looked - the window the race lived in, made certain instead of likely.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.config import Settings, load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.web import collection_jobs
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.unit.web_forms import csrf_token

PASSWORD = "correct horse battery"
USERS = ("alice", "bob", "carol", "dave")


def _together(count: int, work: Callable[[int], Any]) -> list[Any]:
    """``work(0..count-1)`` on ``count`` threads released at once; their results."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = work(index)
        except BaseException as exc:  # noqa: BLE001 - shown by the assertion below
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    return results


def test_one_claim_of_a_new_name_wins(store: HistoryStore) -> None:
    ids = [store.add_user(name, PASSWORD).id for name in USERS]
    for round_ in range(5):
        name = f"papers-{round_}"
        won = _together(len(ids), lambda i, name=name: store.claim_new_collection(name, ids[i]))
        assert sorted(won, key=str) == [False] * (len(ids) - 1) + [True], won
        winner = USERS[won.index(True)]
        sharing = store.collection_sharing(name)
        assert (sharing.owner, sharing.everyone, sharing.users) == (winner, False, [])


def test_a_claim_replaces_a_stale_record_and_repeats_for_its_owner(
        store: HistoryStore) -> None:
    alice, bob = (store.add_user(name, PASSWORD).id for name in ("alice", "bob"))
    store.share_collection("notes", everyone=True)  # sharing of a name no one made
    assert store.claim_new_collection("notes", alice)
    assert store.collection_sharing("notes").everyone is False  # private to its maker
    assert store.claim_new_collection("notes", alice)  # the same user again: still hers
    assert not store.claim_new_collection("notes", bob)
    assert store.collection_sharing("notes").owner == "alice"


# ------------------------------------------------------------------ over HTTP


@pytest.fixture
def app(tmp_path: Path, store_url: str,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, HistoryStore, Settings]]:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    settings = load_settings(config_files=[])
    store = HistoryStore.from_url(store_url)
    store.add_user("admin", PASSWORD, admin=True)
    for name in USERS:
        store.add_user(name, PASSWORD)
    executor = LocalRunExecutor(settings, workers=1, store=store)
    root = tmp_path / "roots"
    (root / "shared").mkdir(parents=True)
    (root / "shared" / "shared.md").write_text("# Shared\n\nA server folder.\n", "utf-8")
    try:
        yield (create_app(WebState(settings=settings, executor=executor,
                                   folder_roots=(str(root),))), store, settings)
    finally:
        executor.shutdown()
        store.close()


def _csrf(client: TestClient, path: str = "/collections") -> str:
    return csrf_token(client, path)


def _logged_in(app: Any, who: str) -> TestClient:
    client = TestClient(app, follow_redirects=False)
    reply = client.post("/login", data={"csrf_token": _csrf(client, "/login"), "name": who,
                                        "password": PASSWORD, "next": "/"})
    assert reply.status_code == 303, reply.text
    return client


def _looked_together(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    """Hold each request after it has looked whether the name exists until ``count``
    requests have: all of them then see a free name, as racing requests may."""
    barrier = threading.Barrier(count, timeout=30)
    looked = collection_jobs.collection_exists

    def exists_then_wait(name: str, settings: Settings, store: HistoryStore) -> bool:
        found = looked(name, settings, store)
        barrier.wait()
        return found

    monkeypatch.setattr(collection_jobs, "collection_exists", exists_then_wait)


def _wait_indexed(name: str) -> None:
    for thread in threading.enumerate():
        if thread.name == f"deepcite-index-{name}":
            thread.join(60)


def _documents(settings: Settings, name: str) -> list[str]:
    from deepcite.collections.collection import Collection

    return sorted(Path(key).name for key in
                  Collection.named(name, settings=settings).index.documents())


def test_users_uploading_the_same_new_name_at_once_get_one_winner(
        app: tuple[Any, HistoryStore, Settings], monkeypatch: pytest.MonkeyPatch) -> None:
    served, store, settings = app
    clients = [_logged_in(served, who) for who in USERS]
    tokens = [_csrf(client) for client in clients]
    _looked_together(monkeypatch, len(USERS))

    def upload(index: int) -> Any:
        who = USERS[index]
        return clients[index].post(
            "/collections/upload", data={"csrf_token": tokens[index], "name": "joint"},
            files=[("files", (f"{who}.md", f"# {who}\n\n{who}'s own notes.\n".encode(),
                              "text/markdown"))])

    replies = _together(len(USERS), upload)
    statuses = sorted(reply.status_code for reply in replies)
    assert statuses == [303] + [409] * (len(USERS) - 1), [r.text[:300] for r in replies]
    winner = USERS[[reply.status_code for reply in replies].index(303)]
    for reply in replies:
        if reply.status_code == 409:
            assert "The name joint is taken - choose another name" in reply.text
    _wait_indexed("joint")
    assert store.collection_sharing("joint").owner == winner
    assert _documents(settings, "joint") == [f"{winner}.md"]
    kept = Path(settings.data_dir) / "uploads" / "joint"
    assert sorted(path.name for path in kept.iterdir()) == [f"{winner}.md"]


def test_admins_indexing_the_same_new_name_at_once_get_one_winner(
        app: tuple[Any, HistoryStore, Settings], monkeypatch: pytest.MonkeyPatch) -> None:
    """An admin may change any collection, yet one who meant to make a new one is not
    let into a collection a user made at the same moment: the REST route and the
    upload page race for the name, and the loser is told it is taken."""
    served, store, settings = app
    admin = TestClient(served, follow_redirects=False)
    admin.headers["Authorization"] = f"Bearer {store.create_token('admin', 'tests')}"
    alice = _logged_in(served, "alice")
    token = _csrf(alice)
    _looked_together(monkeypatch, 2)

    def make(index: int) -> Any:
        if index == 0:
            return admin.post("/api/v1/collections", json={"name": "race", "folder": "shared"})
        return alice.post("/collections/upload", data={"csrf_token": token, "name": "race"},
                          files=[("files", ("alice.md", b"# Alice\n\nmine\n", "text/markdown"))])

    api, page = _together(2, make)
    assert sorted((api.status_code, page.status_code)) in ([202, 409], [303, 409]), \
        (api.text, page.text[:300])
    _wait_indexed("race")
    if api.status_code == 202:
        assert api.json()["name"] == "race"
        assert "The name race is taken" in page.text
        assert store.collection_sharing("race").owner == "admin"
        assert _documents(settings, "race") == ["shared.md"]
    else:
        assert api.json()["error"] == {"code": "name_taken",
                                       "message": "The name race is taken - choose "
                                                  "another name"}
        assert store.collection_sharing("race").owner == "alice"
        assert _documents(settings, "race") == ["alice.md"]


def test_a_refused_upload_claims_no_name(app: tuple[Any, HistoryStore, Settings]) -> None:
    served, store, settings = app
    alice, bob = _logged_in(served, "alice"), _logged_in(served, "bob")
    refused = alice.post("/collections/upload",
                         data={"csrf_token": _csrf(alice), "name": "notes"},
                         files=[("files", ("a.md", b"# A\n\nfine\n", "text/markdown")),
                                ("files", ("run.exe", b"MZ", "application/octet-stream"))])
    assert refused.status_code == 400 and "Nothing was uploaded" in refused.text
    assert store.collection_sharing("notes").owner is None
    made = bob.post("/collections/upload", data={"csrf_token": _csrf(bob), "name": "notes"},
                    files=[("files", ("b.md", b"# B\n\nbob's\n", "text/markdown"))])
    assert made.status_code == 303, made.text[:300]
    _wait_indexed("notes")
    assert store.collection_sharing("notes").owner == "bob"
    assert _documents(settings, "notes") == ["b.md"]


def test_users_uploading_the_same_new_name_over_rest_get_one_winner(
        app: tuple[Any, HistoryStore, Settings], monkeypatch: pytest.MonkeyPatch) -> None:
    """``POST /api/v1/collections/{name}/files`` claims through the page's own path:
    the losers are told the name is taken, and none of their files is kept."""
    served, store, settings = app
    clients = []
    for who in USERS:
        client = TestClient(served, follow_redirects=False)
        client.headers["Authorization"] = f"Bearer {store.create_token(who, 'tests')}"
        clients.append(client)
    _looked_together(monkeypatch, len(USERS))

    def upload(index: int) -> Any:
        who = USERS[index]
        return clients[index].post("/api/v1/collections/joint/files", files=[
            ("files", (f"{who}.md", f"# {who}\n\n{who}'s own notes.\n".encode(),
                       "text/markdown"))])

    replies = _together(len(USERS), upload)
    statuses = [reply.status_code for reply in replies]
    assert sorted(statuses) == [202] + [409] * (len(USERS) - 1), [r.text for r in replies]
    winner = USERS[statuses.index(202)]
    for reply in replies:
        if reply.status_code == 409:
            assert reply.json()["error"]["code"] == "name_taken"
    _wait_indexed("joint")
    assert store.collection_sharing("joint").owner == winner
    assert _documents(settings, "joint") == [f"{winner}.md"]
    kept = Path(settings.data_dir) / "uploads" / "joint"
    assert sorted(path.name for path in kept.iterdir()) == [f"{winner}.md"]
