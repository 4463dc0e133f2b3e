"""Collections with user accounts, on the pages and over the REST API: a collection is
its maker's alone - another user does not see it in lists, and its page, detail and
delete answer exactly as for a missing one - until an admin shares it with everyone or
with that user; made private again, it is hidden again. The source viewer serves a
collection's file only to who may still read it. A user who may not index server
folders makes and fills their own collections over REST by uploading files
(``POST /api/v1/collections/{name}/files``, the page's upload path).

Real stores on SQLite and PostgreSQL (``store_url``), the real app over TestClient,
real collections indexed from small folders; the executor is real but runs nothing here.
"""

from __future__ import annotations

import re
import threading
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
from deepcite.types import ResearchResult, Source
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.page_forms import MAX_UPLOAD_BYTES
from tests.unit.web_forms import csrf_token

PASSWORD = "correct horse battery"
MISSING = "ghost"


@dataclass
class Server:
    """One app on one store with users alice, bob and admin (an admin)."""

    app: object
    store: HistoryStore
    tokens: dict[str, str]
    root: Path
    settings: Settings

    def api(self, who: str) -> TestClient:
        client = TestClient(self.app, follow_redirects=False)  # type: ignore[arg-type]
        client.headers["Authorization"] = f"Bearer {self.tokens[who]}"
        return client

    def pages(self, who: str) -> TestClient:
        client = TestClient(self.app, follow_redirects=False)  # type: ignore[arg-type]
        token = _csrf(client, "/login")
        reply = client.post("/login", data={"csrf_token": token, "name": who,
                                            "password": PASSWORD, "next": "/"})
        assert reply.status_code == 303, reply.text
        return client


@pytest.fixture
def server(tmp_path: Path, store_url: str,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    settings = load_settings(config_files=[])
    root = tmp_path / "roots"
    for name, text in {"tea": "Green tea is steamed soon after picking.",
                       "coffee": "Coffee beans are roasted until brown."}.items():
        (root / name).mkdir(parents=True)
        (root / name / f"{name}.md").write_text(f"# {name}\n\n{text}\n", encoding="utf-8")
    store = HistoryStore.from_url(store_url)
    store.add_user("admin", PASSWORD, admin=True)
    for name in ("alice", "bob"):
        store.add_user(name, PASSWORD)
    tokens = {name: store.create_token(name, "tests") for name in ("admin", "alice", "bob")}
    executor = LocalRunExecutor(settings, workers=1, store=store)
    app = create_app(WebState(settings=settings, executor=executor,
                              folder_roots=(str(root),)))
    try:
        yield Server(app, store, tokens, root, settings)
    finally:
        executor.shutdown()
        store.close()


_csrf = csrf_token


def _wait(name: str) -> None:
    for thread in threading.enumerate():
        if thread.name == f"deepcite-index-{name}":
            thread.join(timeout=60)


def _api_collection(server: Server, who: str, name: str, folder: str) -> None:
    """``who`` makes collection ``name`` of the files in the server folder ``folder``:
    an admin indexes the folder over the API, anyone else uploads its files (only
    admins may index server folders)."""
    if server.store.user(who).is_admin:
        reply = server.api(who).post("/api/v1/collections",
                                     json={"name": name, "folder": folder})
        assert reply.status_code == 202, reply.text
    else:
        client = server.pages(who)
        files = [("files", (file.name, file.read_bytes(), "text/markdown"))
                 for file in sorted((server.root / folder).iterdir())]
        reply = client.post("/collections/upload", files=files,
                            data={"csrf_token": _csrf(client, "/collections"), "name": name})
        assert reply.status_code == 303, reply.text
    _wait(name)


def _listed(server: Server, who: str) -> set[str]:
    reply = server.api(who).get("/api/v1/collections")
    assert reply.status_code == 200, reply.text
    return {item["name"] for item in reply.json()}


def _same_as_missing(server: Server, who: str, method: str, path: str, name: str) -> None:
    """``who`` asking for collection ``name`` gets what a missing one gets."""
    client = server.api(who)
    theirs = client.request(method, path.format(name))
    missing = client.request(method, path.format(MISSING))
    assert theirs.status_code == missing.status_code == 404, theirs.text
    assert theirs.json()["error"]["code"] == missing.json()["error"]["code"]
    assert theirs.json()["error"]["message"].replace(name, "N") == \
        missing.json()["error"]["message"].replace(MISSING, "N")


def _share(client: TestClient, name: str, change: str, user: str = "") -> int:
    token = _csrf(client, f"/collections/{name}")
    return client.post(f"/collections/{name}/share",
                       data={"csrf_token": token, "change": change, "user": user}).status_code


def test_a_collection_is_its_makers_until_an_admin_shares_it(server: Server) -> None:
    _api_collection(server, "alice", "tea", "tea")
    assert server.store.collection_sharing("tea").owner == "alice"
    assert "tea" in _listed(server, "alice") and "tea" in _listed(server, "admin")
    assert "tea" not in _listed(server, "bob")
    for method, path in (("GET", "/api/v1/collections/{}"),
                         ("DELETE", "/api/v1/collections/{}")):
        _same_as_missing(server, "bob", method, path, "tea")
    detail = server.api("alice").get("/api/v1/collections/tea").json()
    assert detail["documents"] == 1
    assert detail["sharing"] == {"owner": "alice", "everyone": False, "users": [],
                                 "public": False}

    bob = server.pages("bob")
    assert '/collections/tea"' not in bob.get("/collections").text
    page, missing = bob.get("/collections/tea"), bob.get(f"/collections/{MISSING}")
    assert page.status_code == missing.status_code == 404
    assert "No collection named &#39;tea&#39;" in page.text
    assert bob.get("/collections/tea/delete").status_code == 404
    assert _share(bob, "tea", "everyone-on") == 404  # only admins share
    assert "tea" not in _listed(server, "bob")

    admin = server.pages("admin")
    shown = admin.get("/collections/tea").text
    assert 'id="sharing-owner">alice<' in shown and "Share with everyone" in shown
    assert _share(admin, "tea", "everyone-on") == 303
    assert "tea" in _listed(server, "bob")
    assert server.api("bob").get("/api/v1/collections/tea").json()["sharing"] is None
    assert bob.get("/collections/tea").status_code == 200
    # shared is readable, not changeable: delete and re-index stay the owner's
    assert bob.get("/collections/tea/delete").status_code == 404
    assert server.api("bob").delete("/api/v1/collections/tea").status_code == 404

    assert _share(admin, "tea", "private") == 303
    assert "tea" not in _listed(server, "bob")
    assert bob.get("/collections/tea").status_code == 404
    assert _share(admin, "tea", "add", "bob") == 303
    assert "tea" in _listed(server, "bob")
    assert 'id="sharing-users">bob<' in server.pages("alice").get("/collections/tea").text
    assert _share(admin, "tea", "remove", "bob") == 303
    assert "tea" not in _listed(server, "bob")
    assert _share(admin, "tea", "add", "nobody") == 400

    entries = server.store.audit_log(action="collection.share")
    assert [e.actor for e in entries] == ["admin"] * 4
    assert entries[-1].target == "tea" and entries[-1].detail is not None
    assert entries[-1].detail["everyone"] is True


def test_only_the_owner_or_an_admin_deletes_and_it_is_audited(server: Server) -> None:
    _api_collection(server, "alice", "tea", "tea")
    alice = server.pages("alice")
    token = _csrf(alice, "/collections/tea/delete")
    deleted = alice.post("/collections/tea/delete",
                         data={"csrf_token": token, "confirm": "tea"})
    assert deleted.status_code == 303
    assert server.store.collection_sharing("tea").owner is None  # forgotten
    entry = server.store.audit_log(action="collection.delete")[0]
    assert (entry.actor, entry.target) == ("alice", "tea")
    # the name is free again: bob may make his own, private to him
    _api_collection(server, "bob", "tea", "coffee")
    assert "tea" not in _listed(server, "alice")
    _api_collection(server, "alice", "coffee", "coffee")
    assert server.api("admin").delete("/api/v1/collections/coffee").json()["deleted"]
    assert server.store.audit_log(action="collection.delete")[0].actor == "admin"


def test_another_users_name_cannot_be_indexed_into(server: Server) -> None:
    _api_collection(server, "alice", "tea", "tea")
    server.store.set_collection_owner("coffee", server.store.user("alice").id)
    _api_collection(server, "admin", "coffee", "coffee")  # an admin's, handed to alice
    taken = server.api("bob").post("/api/v1/collections",
                                   json={"name": "tea", "folder": "coffee"})
    assert taken.status_code == 403 and taken.json()["error"]["code"] == "admins_only"
    bob = server.pages("bob")
    reply = bob.post("/collections/upload", data={"csrf_token": _csrf(bob, "/collections"),
                                                  "name": "tea"},
                     files=[("files", ("x.md", b"# X\n\nextra\n", "text/markdown"))])
    assert reply.status_code == 409 and "taken" in reply.text
    assert server.api("alice").get("/api/v1/collections/tea").json()["documents"] == 1


def test_the_pages_record_the_maker(server: Server) -> None:
    _api_collection(server, "alice", "coffee", "coffee")  # uploaded on the page
    assert server.store.collection_sharing("coffee").owner == "alice"
    alice = server.pages("alice")
    assert '<a href="/collections/coffee">coffee</a>' in alice.get("/collections").text
    assert "coffee" not in _listed(server, "bob")
    admin = server.pages("admin")
    made = admin.post("/collections", data={"csrf_token": _csrf(admin, "/collections"),
                                            "name": "tea", "folder": "tea"})
    assert made.status_code == 303, made.text
    _wait("tea")
    assert server.store.collection_sharing("tea").owner == "admin"


def _run_citing(server: Server, owner: str, collection: str) -> str:
    from deepcite.collections.collection import Collection

    indexed = Collection.named(collection, settings=server.settings).index.documents()
    path = next(iter(indexed))
    source = Source(number=1, title="Notes", url=Path(path).as_uri(), canonical_url="",
                    snippet="Green tea is steamed.", engine="local",
                    metadata={"collection": collection, "path": path})
    result = ResearchResult(question="Tea?", answer="Steamed [1].", strategy="standard",
                            handler="standard", sources=[source])
    run_id = server.store.begin("Tea?", mode="quick", settings=server.settings,
                                owner_id=server.store.user(owner).id)
    server.store.finish(run_id, result)
    return run_id


def test_the_source_viewer_needs_the_run_and_the_collection(server: Server) -> None:
    _api_collection(server, "alice", "tea", "tea")
    server.store.share_collection("tea", add_users=["bob"])
    run_id = _run_citing(server, "bob", "tea")
    bob, alice = server.pages("bob"), server.pages("alice")
    shown = bob.get(f"/runs/{run_id}/sources/1")
    assert shown.status_code == 200 and f"/runs/{run_id}/sources/1/document" in shown.text
    served = bob.get(f"/runs/{run_id}/sources/1/document")
    assert served.status_code == 200 and "Green tea" in served.text
    api = server.api("bob").get(f"/api/v1/runs/{run_id}/sources/1/document")
    assert api.status_code == 200
    # not alice's run: not there for her, though the collection is hers
    assert alice.get(f"/runs/{run_id}/sources/1").status_code == 404
    assert alice.get(f"/runs/{run_id}/sources/1/document").status_code == 404
    assert server.api("alice").get(f"/api/v1/runs/{run_id}/sources/1").status_code == 404

    server.store.share_collection("tea", private=True)
    page = bob.get(f"/runs/{run_id}/sources/1")
    assert page.status_code == 200 and "/document" not in page.text  # the text stays
    assert bob.get(f"/runs/{run_id}/sources/1/document").status_code == 404
    view = server.api("bob").get(f"/api/v1/runs/{run_id}/sources/1").json()
    assert view["document_url"] is None
    assert server.api("bob").get(
        f"/api/v1/runs/{run_id}/sources/1/document").status_code == 404
    assert server.api("admin").get(
        f"/api/v1/runs/{run_id}/sources/1/document").status_code == 200


def test_the_research_form_offers_only_what_the_asker_may_search(server: Server) -> None:
    _api_collection(server, "alice", "tea", "tea")
    boxes = re.compile(r'name="collections" value="([^"]+)"')
    assert "tea" in boxes.findall(server.pages("alice").get("/").text)
    offered = boxes.findall(server.pages("bob").get("/").text)
    assert "tea" not in offered and "demo" in offered
    server.store.share_collection("tea", add_users=["bob"])
    assert "tea" in boxes.findall(server.pages("bob").get("/").text)


def test_a_default_collection_the_owner_may_not_search_is_refused(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    from deepcite.errors import RequestError
    from deepcite.runs import RunRequest
    from deepcite.runs.caller import Caller
    from deepcite.runs.checks import checked_collections

    _api_collection(server, "alice", "tea", "tea")
    settings = load_settings({"collections": ["tea"]}, config_files=[])
    bob = Caller(server.store.user("bob"))
    request = RunRequest(question="What about tea?").asked_by("web", bob.owner)
    with pytest.raises(RequestError, match="default collections include one you may not"):
        checked_collections(server.store, request, settings)
    alice = Caller(server.store.user("alice"))
    checked_collections(server.store, request.asked_by("web", alice.owner), settings)


# ------------------------------------------------ uploads over REST (any user's way in)

UPLOADS = "/api/v1/collections/{}/files"


def _file(name: str, text: str) -> tuple[str, tuple[str, bytes, str]]:
    return ("files", (name, f"# {name}\n\n{text}\n".encode(), "text/markdown"))


def _indexed(server: Server, who: str, name: str) -> dict[str, Any]:
    """``name``'s detail once its indexing has ended, as ``who`` sees it (polled)."""
    client = server.api(who)
    # (generous: indexing one file took over a minute once on a 2-core machine busy
    # with other work; the poll ends as soon as indexing does)
    deadline = time.monotonic() + 240
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
    made = alice.post(UPLOADS.format("teas"), files=[
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

    added = alice.post(UPLOADS.format("teas"),
                       files=[_file("white.md", "White tea is withered and dried.")])
    assert added.status_code == 202, added.text
    assert _files(_indexed(server, "alice", "teas")) == ["black.md", "green.md", "white.md"]


def test_another_users_collection_is_taken_or_missing(server: Server) -> None:
    alice, bob = server.api("alice"), server.api("bob")
    assert alice.post(UPLOADS.format("teas"), files=[_file("green.md", "steamed")]) \
        .status_code == 202
    _indexed(server, "alice", "teas")

    hidden = bob.post(UPLOADS.format("teas"), files=[_file("bob.md", "bob's own notes")])
    assert hidden.status_code == 404, hidden.text
    assert hidden.json()["error"]["code"] == "unknown_collection"
    missing = bob.get("/api/v1/collections/ghost").json()["error"]["message"]
    assert hidden.json()["error"]["message"].replace("teas", "N") == \
        missing.replace("ghost", "N")

    server.store.share_collection("teas", add_users=["bob"])  # bob may search, not change
    taken = bob.post(UPLOADS.format("teas"), files=[_file("bob.md", "bob's own notes")])
    assert taken.status_code == 409, taken.text
    assert taken.json()["error"] == {"code": "name_taken", "message":
                                     "The name teas is taken - choose another name"}
    assert _files(_indexed(server, "bob", "teas")) == ["green.md"]
    kept = Path(server.settings.data_dir) / "uploads" / "teas"
    assert sorted(path.name for path in kept.iterdir()) == ["green.md"]

    # an admin may add to anyone's; the collection stays its maker's
    assert server.api("admin").post(UPLOADS.format("teas"), files=[
        _file("admin.md", "an admin's page")]).status_code == 202
    detail = _indexed(server, "alice", "teas")
    assert _files(detail) == ["admin.md", "green.md"]
    assert detail["sharing"]["owner"] == "alice"


def test_too_large_no_token_and_bad_files_are_refused(server: Server) -> None:
    alice = server.api("alice")
    big = alice.post(UPLOADS.format("big"), files=[
        ("files", ("big.txt", b"x" * (MAX_UPLOAD_BYTES + 1), "text/plain"))])
    assert big.status_code == 413, big.text
    assert big.json()["error"]["code"] == "file_too_large"
    assert server.store.collection_sharing("big").owner is None

    anonymous = TestClient(server.app).post(  # type: ignore[arg-type]
        UPLOADS.format("free"), files=[_file("a.md", "a")])
    assert anonymous.status_code == 401, anonymous.text
    assert server.store.collection_sharing("free").owner is None

    refused = alice.post(UPLOADS.format("mixed"), files=[
        _file("a.md", "fine"), ("files", ("run.exe", b"MZ", "application/octet-stream"))])
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == "files_refused"
    assert "run.exe" in refused.json()["error"]["message"]
    assert server.store.collection_sharing("mixed").owner is None

    none = alice.post(UPLOADS.format("empty"), data={"note": "no files"},
                      files=[("other", ("a.md", b"# A\n", "text/markdown"))])
    assert none.status_code == 400 and none.json()["error"]["code"] == "no_files"
    not_a_form = alice.post(UPLOADS.format("json"), json={"files": []})
    assert not_a_form.status_code == 400, not_a_form.text


def test_a_collections_documents_are_its_readers_and_removed_by_its_owner(
        server: Server) -> None:
    """Another user's document page, file and removal answer as for a missing
    collection; shared with them, they read and download it but may not remove it;
    its owner removes it (with the CSRF token)."""
    _api_collection(server, "alice", "tea", "tea")
    alice, bob = server.pages("alice"), server.pages("bob")
    url = re.search(r'href="(/collections/tea/documents/\d+)"',
                    alice.get("/collections/tea").text)
    assert url
    doc = url.group(1)
    assert "Green tea is steamed" in alice.get(doc).text
    missing_doc = doc.replace("/tea/", f"/{MISSING}/")
    token = _csrf(bob, "/collections")
    for path in (doc, doc + "/file"):
        theirs, missing = bob.get(path), bob.get(missing_doc + path[len(doc):])
        assert theirs.status_code == missing.status_code == 404
        assert "Green tea" not in theirs.text
    refused = bob.post(doc + "/delete", data={"csrf_token": token})
    assert refused.status_code == 404 and "No collection named &#39;tea&#39;" in refused.text

    server.store.share_collection("tea", add_users=["bob"])
    shown = bob.get(doc)
    assert shown.status_code == 200 and "Green tea is steamed" in shown.text
    assert "Remove from tea" not in shown.text
    assert bob.get(doc + "/file").status_code == 200
    assert bob.post(doc + "/delete", data={"csrf_token": token}).status_code == 404
    assert alice.post(doc + "/delete").status_code == 403  # no CSRF token
    assert "Remove from tea" in alice.get(doc).text
    removed = alice.post(doc + "/delete", data={"csrf_token": _csrf(alice, doc)})
    assert removed.status_code == 303
    assert server.api("alice").get("/api/v1/collections/tea").json()["documents"] == 0
    assert bob.get(doc).status_code == 404
