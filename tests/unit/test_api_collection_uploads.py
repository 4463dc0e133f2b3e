"""``POST /api/v1/collections/{name}/files``: a user who may not index server folders
makes and fills their own collection over REST by uploading files, through the page's
own upload path - the name claimed for them, the caps kept as the body streams, another
user's collection refused (taken, or missing when they may not search it).

Real stores on SQLite and PostgreSQL (``store_url``), the real app over TestClient with
bearer tokens, real indexing of the uploaded files in the background.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.collections.collection import Collection
from deepcite.config import Settings, load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.pages_forms import MAX_UPLOAD_BYTES

PASSWORD = "correct horse battery"
ROUTE = "/api/v1/collections/{}/files"


@dataclass
class Server:
    """One app on one store with users alice, bob (not admins) and their tokens."""

    app: Any
    store: HistoryStore
    tokens: dict[str, str]
    settings: Settings

    def api(self, who: str | None) -> TestClient:
        client = TestClient(self.app, follow_redirects=False)
        if who is not None:
            client.headers["Authorization"] = f"Bearer {self.tokens[who]}"
        return client


@pytest.fixture
def server(tmp_path: Path, store_url: str,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    settings = load_settings(config_files=[])
    store = HistoryStore.from_url(store_url)
    store.add_user("admin", PASSWORD, admin=True)
    for name in ("alice", "bob"):
        store.add_user(name, PASSWORD)
    tokens = {name: store.create_token(name, "tests") for name in ("admin", "alice", "bob")}
    executor = LocalRunExecutor(settings, workers=1, store=store)
    try:
        yield Server(create_app(WebState(settings=settings, executor=executor)), store,
                     tokens, settings)
    finally:
        executor.shutdown()
        store.close()


def _file(name: str, text: str) -> tuple[str, tuple[str, bytes, str]]:
    return ("files", (name, f"# {name}\n\n{text}\n".encode(), "text/markdown"))


def _indexed(server: Server, who: str, name: str) -> dict[str, Any]:
    """``name``'s detail once its indexing has ended, as ``who`` sees it (polled)."""
    client = server.api(who)
    deadline = time.monotonic() + 60
    while True:
        reply = client.get(f"/api/v1/collections/{name}")
        if reply.status_code == 200 and (reply.json()["indexing"] or {}).get("state") \
                not in (None, "indexing"):
            detail: dict[str, Any] = reply.json()
            return detail
        assert time.monotonic() < deadline, reply.text
        time.sleep(0.05)


def _files(detail: dict[str, Any]) -> list[str]:
    return sorted(Path(item["path"]).name for item in detail["files"])


def test_a_user_makes_and_fills_a_collection_over_rest(server: Server) -> None:
    alice = server.api("alice")
    made = alice.post(ROUTE.format("teas"), files=[
        _file("green.md", "Green tea is steamed soon after picking."),
        _file("black.md", "Black tea is fully oxidised before drying.")])
    assert made.status_code == 202, made.text
    assert made.json() == {"name": "teas", "status": "indexing"}
    detail = _indexed(server, "alice", "teas")
    assert detail["indexing"]["state"] == "done", detail
    assert _files(detail) == ["black.md", "green.md"]
    assert detail["sharing"]["owner"] == "alice"
    listed = {item["name"] for item in alice.get("/api/v1/collections").json()}
    assert "teas" in listed
    assert "teas" not in {item["name"] for item in
                          server.api("bob").get("/api/v1/collections").json()}
    hits = Collection.named("teas", settings=server.settings).search("oxidised", 3)
    assert hits and Path(str(hits[0].metadata["path"])).name == "black.md"

    added = alice.post(ROUTE.format("teas"),
                       files=[_file("white.md", "White tea is withered and dried.")])
    assert added.status_code == 202, added.text
    assert _files(_indexed(server, "alice", "teas")) == ["black.md", "green.md", "white.md"]


def test_another_users_collection_is_taken_or_missing(server: Server) -> None:
    alice, bob = server.api("alice"), server.api("bob")
    assert alice.post(ROUTE.format("teas"), files=[_file("green.md", "steamed")]) \
        .status_code == 202
    _indexed(server, "alice", "teas")

    hidden = bob.post(ROUTE.format("teas"), files=[_file("bob.md", "bob's own notes")])
    assert hidden.status_code == 404, hidden.text
    assert hidden.json()["error"]["code"] == "unknown_collection"
    missing = bob.get("/api/v1/collections/ghost").json()["error"]["message"]
    assert hidden.json()["error"]["message"].replace("teas", "N") == \
        missing.replace("ghost", "N")

    server.store.share_collection("teas", add_users=["bob"])  # bob may search, not change
    taken = bob.post(ROUTE.format("teas"), files=[_file("bob.md", "bob's own notes")])
    assert taken.status_code == 409, taken.text
    assert taken.json()["error"] == {"code": "name_taken", "message":
                                     "The name teas is taken - choose another name"}
    assert _files(_indexed(server, "bob", "teas")) == ["green.md"]
    kept = Path(server.settings.data_dir) / "uploads" / "teas"
    assert sorted(path.name for path in kept.iterdir()) == ["green.md"]

    # an admin may add to anyone's; the collection stays its maker's
    assert server.api("admin").post(ROUTE.format("teas"), files=[
        _file("admin.md", "an admin's page")]).status_code == 202
    detail = _indexed(server, "alice", "teas")
    assert _files(detail) == ["admin.md", "green.md"]
    assert detail["sharing"]["owner"] == "alice"


def test_too_large_no_token_and_bad_files_are_refused(server: Server) -> None:
    alice = server.api("alice")
    big = alice.post(ROUTE.format("big"), files=[
        ("files", ("big.txt", b"x" * (MAX_UPLOAD_BYTES + 1), "text/plain"))])
    assert big.status_code == 413, big.text
    assert big.json()["error"]["code"] == "file_too_large"
    assert server.store.collection_sharing("big").owner is None

    anonymous = server.api(None).post(ROUTE.format("free"), files=[_file("a.md", "a")])
    assert anonymous.status_code == 401, anonymous.text
    assert server.store.collection_sharing("free").owner is None

    refused = alice.post(ROUTE.format("mixed"), files=[
        _file("a.md", "fine"), ("files", ("run.exe", b"MZ", "application/octet-stream"))])
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == "files_refused"
    assert "run.exe" in refused.json()["error"]["message"]
    assert server.store.collection_sharing("mixed").owner is None

    none = alice.post(ROUTE.format("empty"), data={"note": "no files"},
                      files=[("other", ("a.md", b"# A\n", "text/markdown"))])
    assert none.status_code == 400 and none.json()["error"]["code"] == "no_files"
    not_a_form = alice.post(ROUTE.format("json"), json={"files": []})
    assert not_a_form.status_code == 400, not_a_form.text
