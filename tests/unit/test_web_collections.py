"""Collections management on the pages: uploads, folders (relative to a root), the
collection's page (documents, search, failures), re-index, delete with confirmation,
and what survives a restart. A bare FastAPI app with a fake executor (its store is real).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from deepcite.config import Settings
from deepcite.store import HistoryStore
from deepcite.web.collection_jobs import IndexJobs, inside_roots
from deepcite.web.contracts import WebState
from deepcite.web.page_forms import MAX_UPLOAD_BYTES
from deepcite.web.pages import pages_router


class Executor:
    """Only what the collections pages use of an executor: its store."""

    def __init__(self, settings: Settings) -> None:
        self.store = HistoryStore.open(settings)


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    value: Settings = make_settings()
    return value


def _client(settings: Settings, executor: Any, roots: tuple[str, ...] = ()) -> TestClient:
    app = FastAPI()
    app.include_router(pages_router(WebState(settings=settings, executor=executor,
                                             folder_roots=roots)))
    return TestClient(app, follow_redirects=False)


def _csrf(client: TestClient, path: str = "/collections") -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).text)
    assert match
    return match.group(1)


def _wait(name: str) -> None:
    for thread in threading.enumerate():
        if thread.name == f"deepcite-index-{name}":
            thread.join(timeout=60)


def _upload(client: TestClient, name: str, files: list[tuple[str, bytes]]) -> Any:
    return client.post("/collections/upload", data={"csrf_token": _csrf(client), "name": name},
                       files=[("files", (n, body, "application/octet-stream"))
                              for n, body in files])


def test_inside_roots_takes_relative_paths(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "docs" / "sub").mkdir(parents=True)
    roots = (str(root),)
    assert inside_roots("docs/sub", roots) == (root / "docs" / "sub").resolve()
    assert inside_roots(str(root / "docs"), roots) == (root / "docs").resolve()
    for outside in ("..", "docs/../..", str(tmp_path), "missing", "", "/etc"):
        assert inside_roots(outside, roots) is None
    assert inside_roots("docs", ()) is None


def test_upload_index_search_and_delete(settings: Settings, tmp_path: Path) -> None:
    executor = Executor(settings)
    client = _client(settings, executor)
    response = _upload(client, "notes", [
        ("boil.md", b"# Boiling\n\nWater boils at 100 degrees at sea level.\n"),
        ("ice.txt", b"Ice melts at zero degrees.\n")])
    assert response.status_code == 303 and response.headers["location"] == "/collections/notes"
    _wait("notes")
    kept = Path(settings.data_dir) / "uploads" / "notes"
    assert sorted(p.name for p in kept.iterdir()) == ["boil.md", "ice.txt"]
    page = client.get("/collections/notes").text
    assert "done: 2 added" in page and "<code>boil.md</code>" in page
    assert 'http-equiv="refresh"' not in page
    found = client.get("/collections/notes", params={"q": "boiling water"}).text
    assert "Boiling" in found and "score" in found and "<code>boil.md</code>" in found
    listing = client.get("/collections").text
    assert '<a href="/collections/notes">notes</a>' in listing

    confirm = client.get("/collections/notes/delete")
    assert confirm.status_code == 200 and "yes, delete notes" in confirm.text
    token = _csrf(client, "/collections/notes/delete")
    unconfirmed = client.post("/collections/notes/delete", data={"csrf_token": token})
    assert unconfirmed.status_code == 400 and (Path(settings.data_dir) / "collections"
                                               / "notes.sqlite").exists()
    assert client.post("/collections/notes/delete",
                       data={"confirm": "notes"}).status_code == 403  # no CSRF token
    deleted = client.post("/collections/notes/delete",
                          data={"csrf_token": token, "confirm": "notes"})
    assert deleted.status_code == 303
    assert "Collection notes was deleted" in client.get(deleted.headers["location"]).text
    assert not kept.exists() and executor.store.collections() == []
    assert client.get("/collections/notes").status_code == 404


def test_upload_refuses_bad_files_and_keeps_nothing(settings: Settings) -> None:
    client = _client(settings, Executor(settings))
    response = _upload(client, "mixed", [("ok.md", b"fine"), ("run.exe", b"MZ")])
    assert response.status_code == 400
    assert "run.exe: file type .exe is not accepted" in response.text
    assert 'value="mixed"' in response.text  # the name is kept
    uploads = Path(settings.data_dir) / "uploads"
    assert not (uploads / "mixed").exists() and list(uploads.iterdir()) == []
    big = _upload(client, "big", [("big.txt", b"x" * (MAX_UPLOAD_BYTES + 1))])
    assert big.status_code == 413 and "20 MB limit per file" in big.text
    assert list(uploads.iterdir()) == []
    assert _upload(client, "demo", [("a.md", b"a")]).status_code == 409
    assert _upload(client, "../x", [("a.md", b"a")]).status_code == 400
    script = _upload(client, "x", [("<script>.md", b"a"), ("b.bin", b"")])
    assert "<script>" not in script.text


def test_folder_relative_to_root_and_messages(settings: Settings, tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n\nAlpha text.\n", encoding="utf-8")
    (root / "docs" / "bad.pdf").write_bytes(b"not a pdf at all")
    executor = Executor(settings)
    client = _client(settings, executor, roots=(str(root),))
    refused = client.post("/collections", data={
        "csrf_token": _csrf(client), "name": "docs", "folder": "../elsewhere"})
    assert refused.status_code == 400 and "inside one of the allowed folders" in refused.text
    assert 'value="docs"' in refused.text and 'value="../elsewhere"' in refused.text
    response = client.post("/collections", data={
        "csrf_token": _csrf(client), "name": "docs", "folder": "docs"})
    assert response.status_code == 303
    _wait("docs")
    page = client.get("/collections/docs").text
    assert "1 added" in page and "1 failed" in page
    assert "Failed documents" in page and "<code>bad.pdf</code>" in page

    # a restart: new app, same store - the folder and the outcome are still known
    restarted = _client(settings, Executor(settings), roots=(str(root),))
    again = restarted.get("/collections/docs").text
    assert "<code>bad.pdf</code>" in again and str((root / "docs").resolve()) in again
    reindexed = restarted.post("/collections/docs/reindex",
                               data={"csrf_token": _csrf(restarted)})
    assert reindexed.status_code == 303
    _wait("docs")
    assert "1 unchanged" in restarted.get("/collections/docs").text


def test_no_roots_names_the_option(settings: Settings) -> None:
    client = _client(settings, Executor(settings))
    page = client.get("/collections").text
    assert "--folder-root DIR" in page
    response = client.post("/collections", data={
        "csrf_token": _csrf(client), "name": "x", "folder": "/tmp"})
    assert response.status_code == 400
    assert "started with no folder roots - start it with --folder-root DIR" in response.text


def test_demo_cannot_be_deleted_and_login_is_checked(settings: Settings) -> None:
    client = _client(settings, Executor(settings))
    assert client.get("/collections/demo/delete").status_code == 409
    assert client.post("/collections/demo/delete", data={
        "csrf_token": _csrf(client), "confirm": "demo"}).status_code == 409
    assert client.get("/collections/no-such").status_code == 404
    app = FastAPI()
    app.include_router(pages_router(WebState(settings=settings, executor=Executor(settings),
                                             token="tok-123456789")))
    guarded = TestClient(app, follow_redirects=False)
    for path in ("/collections/notes", "/collections/notes/delete"):
        assert guarded.get(path).status_code == 303


def test_index_jobs_restore_marks_interrupted(settings: Settings) -> None:
    store = HistoryStore.open(settings)
    store.register_collection("half", backend="sqlite", location="/x", documents=0, chunks=0,
                              settings={"web": {"folder": "/data/half", "state": "indexing"}})
    jobs = IndexJobs()
    state = jobs.get("half", store)
    assert state is not None and state.state == "interrupted" and state.folder == "/data/half"
    assert not jobs.running("half")


def test_api_collection_detail_and_delete(settings: Settings) -> None:
    from deepcite.web.app import create_app

    executor = Executor(settings)
    pages = _client(settings, executor)
    _upload(pages, "notes", [("boil.md", b"# Boiling\n\nWater boils at 100 degrees.\n")])
    _wait("notes")
    api = TestClient(create_app(WebState(settings=settings, executor=executor)))
    detail = api.get("/api/v1/collections/notes")
    assert detail.status_code == 200, detail.text
    body = detail.json()
    assert body["documents"] == 1 and body["files"][0]["path"].endswith("boil.md")
    assert body["indexing"]["state"] == "done"
    assert api.delete("/api/v1/collections/demo").status_code == 409
    assert api.delete("/api/v1/collections/notes").json()["deleted"] is True
    assert api.get("/api/v1/collections/notes").status_code == 404
    assert api.delete("/api/v1/collections/notes").status_code == 404
