"""Server folders (``--folder-root``): who may index them, and what of them is indexed
and served.

With accounts only admins index (or re-index) a server folder - on the page and over
REST - so no user can index the folder behind another user's private collection under
a name of their own; users upload their own files, and may re-index those. A file with
more than one hard link is neither indexed from a server folder nor served, as a
symbolic link is not: another name of the same file may lie outside every root. The
command line indexes what its user names, hard links included.

Real stores on SQLite and PostgreSQL, the real app over TestClient, real folders with
real hard links (``os.link``) on the test's own file system.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from deepcite.collections.collection import Collection, collection_path
from deepcite.collections.files import HARD_LINK, HardLinkError, discover, hash_file
from deepcite.config import Settings, load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult, Source
from deepcite.web.app import create_app
from deepcite.web.collection_jobs import FOLDERS_ARE_FOR_ADMINS
from deepcite.web.contracts import WebState
from tests.unit.web_forms import csrf_token

PASSWORD = "correct horse battery"
SECRET = "Quarterly salaries of every employee"


@dataclass
class Server:
    app: object
    store: HistoryStore
    settings: Settings
    root: Path
    outside: Path

    def api(self, who: str) -> TestClient:
        client = TestClient(self.app, follow_redirects=False)  # type: ignore[arg-type]
        client.headers["Authorization"] = f"Bearer {self.store.create_token(who, 't')}"
        return client

    def pages(self, who: str) -> TestClient:
        client = TestClient(self.app, follow_redirects=False)  # type: ignore[arg-type]
        reply = client.post("/login", data={"csrf_token": _csrf(client, "/login"),
                                            "name": who, "password": PASSWORD, "next": "/"})
        assert reply.status_code == 303, reply.text
        return client


@pytest.fixture
def server(tmp_path: Path, store_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    settings = load_settings(config_files=[])
    root, outside = tmp_path / "roots", tmp_path / "private"
    for folder, text in ((root / "docs", "Green tea is steamed soon after picking."),
                         (root / "hr", "Holiday rules for the whole staff."),
                         (outside, SECRET)):
        folder.mkdir(parents=True)
        (folder / f"{folder.name}.md").write_text(f"# {folder.name}\n\n{text}\n", "utf-8")
    store = HistoryStore.from_url(store_url)
    store.add_user("admin", PASSWORD, admin=True)
    for name in ("alice", "bob"):
        store.add_user(name, PASSWORD)
    executor = LocalRunExecutor(settings, workers=1, store=store)
    app = create_app(WebState(settings=settings, executor=executor,
                              folder_roots=(str(root),)))
    try:
        yield Server(app, store, settings, root, outside)
    finally:
        executor.shutdown()
        store.close()


def _csrf(client: TestClient, path: str = "/collections") -> str:
    return csrf_token(client, path)


def _wait(name: str) -> None:
    for thread in threading.enumerate():
        if thread.name == f"deepcite-index-{name}":
            thread.join(60)


def _documents(server: Server, name: str) -> list[str]:
    return sorted(Path(key).name for key in
                  Collection.named(name, settings=server.settings).index.documents())


def _index_folder(client: TestClient, name: str, folder: str) -> int:
    reply = client.post("/collections", data={"csrf_token": _csrf(client), "name": name,
                                              "folder": folder})
    _wait(name)
    return reply.status_code


# ------------------------------------------------------------------ who may index


def test_only_admins_index_server_folders(server: Server) -> None:
    admin = server.pages("admin")
    assert 'id="folder-form"' in admin.get("/collections").text
    assert _index_folder(admin, "hr", "hr") == 303  # private to the admin
    assert server.store.collection_sharing("hr").owner == "admin"

    bob = server.pages("bob")
    page = bob.get("/collections").text
    assert 'id="folder-form"' not in page and "Only an admin may index server folders" in page
    refused = bob.post("/collections", data={"csrf_token": _csrf(bob), "name": "mine",
                                             "folder": "hr"})
    assert refused.status_code == 403 and FOLDERS_ARE_FOR_ADMINS in refused.text
    api = server.api("bob")
    for folder in ("hr", str(server.root / "hr"), "no-such-folder", "/etc"):
        reply = api.post("/api/v1/collections", json={"name": "mine", "folder": folder})
        # the same answer whatever the folder: it tells nothing of the server's folders
        assert reply.status_code == 403, reply.text
        assert reply.json()["error"] == {"code": "admins_only",
                                         "message": FOLDERS_ARE_FOR_ADMINS}
    _wait("mine")
    assert "mine" not in {c["name"] for c in api.get("/api/v1/collections").json()}
    assert server.store.collection_sharing("mine").owner is None
    assert not collection_path("mine", server.settings).exists()

    made = server.api("admin").post("/api/v1/collections", json={"name": "tea",
                                                                 "folder": "docs"})
    assert made.status_code == 202, made.text
    _wait("tea")
    assert _documents(server, "tea") == ["docs.md"]


def test_a_users_own_uploads_are_theirs_to_reindex_a_folder_is_not(server: Server) -> None:
    admin, alice = server.pages("admin"), server.pages("alice")
    assert _index_folder(admin, "tea", "docs") == 303
    server.store.set_collection_owner("tea", server.store.user("alice").id)  # handed over
    page = alice.get("/collections/tea").text
    assert "tea.md" not in page and "/collections/tea/reindex" not in page
    refused = alice.post("/collections/tea/reindex", data={"csrf_token": _csrf(alice)})
    assert refused.status_code == 403 and FOLDERS_ARE_FOR_ADMINS in refused.text

    uploaded = alice.post("/collections/upload",
                          data={"csrf_token": _csrf(alice), "name": "notes"},
                          files=[("files", ("n.md", b"# N\n\nnotes\n", "text/markdown"))])
    assert uploaded.status_code == 303, uploaded.text
    _wait("notes")
    assert "/collections/notes/reindex" in alice.get("/collections/notes").text
    again = alice.post("/collections/notes/reindex", data={"csrf_token": _csrf(alice)})
    assert again.status_code == 303
    _wait("notes")
    assert _documents(server, "notes") == ["n.md"]


# ------------------------------------------------------------------ hard links


def test_discovery_refuses_hard_links_only_for_server_folders(tmp_path: Path) -> None:
    folder, outside = tmp_path / "folder", tmp_path / "outside.md"
    folder.mkdir()
    (folder / "own.md").write_text("# Own\n\nmine\n", "utf-8")
    outside.write_text(f"# Secret\n\n{SECRET}\n", "utf-8")
    os.link(outside, folder / "linked.md")

    local = discover(folder)  # the command line: the user named the folder
    assert sorted(p.name for p in local.files) == ["linked.md", "own.md"]
    server = discover(folder, refuse_hard_links=True)
    assert [p.name for p in server.files] == ["own.md"]
    assert [(p.name, why) for p, why in server.ignored] == [("linked.md", HARD_LINK)]
    named = discover(folder / "linked.md", refuse_hard_links=True)  # a file given alone
    assert named.files == [] and named.ignored[0][1] == HARD_LINK

    # a file linked after the walk is refused when it is read
    os.link(folder / "own.md", tmp_path / "elsewhere.md")
    with pytest.raises(HardLinkError):
        hash_file(folder / "own.md", refuse_hard_links=True)
    assert hash_file(folder / "own.md")  # the command line reads it


def _run_citing(server: Server, collection: str, path: Path) -> str:
    source = Source(number=1, title="Notes", url=path.as_uri(), canonical_url="",
                    snippet="Green tea is steamed.", engine="local",
                    metadata={"collection": collection, "path": str(path)})
    result = ResearchResult(question="Tea?", answer="Steamed [1].", strategy="standard",
                            handler="standard", sources=[source])
    run_id = server.store.begin("Tea?", mode="quick", settings=server.settings,
                                owner_id=server.store.user("admin").id)
    server.store.finish(run_id, result)
    return run_id


def test_a_hard_link_under_a_root_is_neither_indexed_nor_served(server: Server) -> None:
    docs = server.root / "docs"
    os.link(server.outside / "private.md", docs / "leak.md")
    admin = server.pages("admin")
    assert _index_folder(admin, "tea", "docs") == 303
    assert _documents(server, "tea") == ["docs.md"]
    assert "1 ignored" in admin.get("/collections/tea").text
    assert "steamed" in admin.get("/collections/tea?q=steamed").text
    assert SECRET not in admin.get("/collections/tea?q=salaries").text

    # indexed while it had one name; then swapped for a hard link to a file outside
    indexed = (docs / "docs.md").resolve()
    run_id = _run_citing(server, "tea", indexed)
    document = f"/runs/{run_id}/sources/1/document"
    assert "Green tea" in admin.get(document).text
    os.link(server.outside / "private.md", docs / "swap.tmp")
    os.replace(docs / "swap.tmp", indexed)
    assert indexed.read_text("utf-8").endswith(f"{SECRET}\n")  # the same path, now a link
    assert admin.get(document).status_code == 404
    assert server.api("admin").get(f"/api/v1{document}").status_code == 404
    # and a re-index drops it, it has no single name any more
    reindexed = admin.post("/collections/tea/reindex", data={"csrf_token": _csrf(admin)})
    assert reindexed.status_code == 303
    _wait("tea")
    assert _documents(server, "tea") == []
