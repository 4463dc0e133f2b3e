"""The source viewer, its document route and its API: what a source shows, and that no
request can make the server serve a file outside an indexed collection."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.collections.collection import Collection
from deepcite.config import Settings
from deepcite.store import HistoryStore
from deepcite.types import CitationCheck, ResearchResult, Source
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.sources_view import source_view
from tests.unit.test_web_pages import FakeExecutor

TOKEN = "viewer-token-1234"
SECRET_TEXT = "top secret outside the collection"


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    value: Settings = make_settings()
    return value


@pytest.fixture
def notes(tmp_path: Path, settings: Settings) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "cache.md").write_text("# Cache\n\nWe keep the cache in Redis for one hour.\n",
                                     encoding="utf-8")
    (folder / "page.html").write_text("<h1>Page</h1><script>alert(1)</script><p>html</p>",
                                      encoding="utf-8")
    Collection.create("notes", settings=settings).add(folder)
    (tmp_path / "secret.txt").write_text(SECRET_TEXT, encoding="utf-8")
    return folder


def _source(number: int, path: Path | str, **extra: Any) -> Source:
    fields: dict[str, Any] = dict(
        number=number, title=f"<b>Doc {number}</b>", url=Path(path).as_uri()
        if Path(path).is_absolute() else str(path), canonical_url="",
        snippet="We keep the cache in Redis for one hour.", engine="local",
        metadata={"collection": "notes", "path": str(path), "page": 2,
                  "heading_path": ["Cache", "<i>Redis</i>"]})
    fields.update(extra)
    return Source(**fields)


def _store_run(settings: Settings, sources: list[Source]) -> str:
    checks = [CitationCheck(number=1, sentence="The cache lives in Redis [1].",
                            outcome="supported", method="exact", source_number=1,
                            start=21, end=26, quote="Redis")]
    result = ResearchResult(question="Where is the cache?", answer="In Redis [1].",
                            strategy="standard", handler="standard", sources=sources,
                            citation_checks=checks)
    with HistoryStore.open(settings) as store:
        run_id = store.begin(result.question, mode="quick", settings=settings)
        store.finish(run_id, result)
    return run_id


def _client(settings: Settings, token: str | None = None) -> TestClient:
    state = WebState(settings=settings, executor=FakeExecutor(settings),  # type: ignore[arg-type]
                     token=token)
    return TestClient(create_app(state), follow_redirects=False)


def test_viewer_cleans_markup_around_and_inside_the_mark() -> None:
    text = ("Use :py:data:`sys.argv` and ``argparse``; see :ref:`the guide <howto>` "
            "and `docs <https://x.org>`_.\n+----+----+\n| a  | b  |\n+====+====+")
    start = text.index("sys.argv")
    end = text.index("; see")
    source = Source(number=1, title="t", url="https://e.org", canonical_url="",
                    snippet=text, engine="web")
    result = ResearchResult(question="q", answer="a [1].", strategy="s", handler="h",
                            sources=[source], citation_checks=[CitationCheck(
                                number=1, sentence="a [1].", outcome="supported",
                                method="exact", source_number=1, start=start, end=end,
                                quote=text[start:end])])
    view = source_view("r", result, 1)
    assert view is not None
    assert "".join(s.text for s in view.segments) == (
        "Use sys.argv and argparse; see the guide and docs.\n\na, b;")
    assert [s.text for s in view.segments if s.marked] == ["sys.argv and argparse"]
    assert view.as_json()["quotes"][0]["start"] == start


def test_viewer_page_marks_the_quote_and_escapes(settings: Settings, notes: Path) -> None:
    run_id = _store_run(settings, [_source(1, notes / "cache.md")])
    page = _client(settings).get(f"/runs/{run_id}/sources/1")
    assert page.status_code == 200
    text = page.text
    assert "<mark>Redis</mark>" in text
    assert "&lt;b&gt;Doc 1&lt;/b&gt;" in text and "<b>Doc" not in text
    assert "Cache › &lt;i&gt;Redis&lt;/i&gt;" in text and str(notes / "cache.md") in text
    assert f'href="/runs/{run_id}/sources/1/document"' in text
    document = _client(settings).get(f"/runs/{run_id}/sources/1/document")
    assert document.status_code == 200 and "Redis for one hour" in document.text
    assert document.headers["content-type"].startswith("text/plain")
    assert document.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in document.headers["content-security-policy"]
    assert _client(settings).get(f"/runs/{run_id}/sources/9").status_code == 404


def test_html_document_is_never_served_as_html(settings: Settings, notes: Path) -> None:
    run_id = _store_run(settings, [_source(1, notes / "page.html")])
    document = _client(settings).get(f"/runs/{run_id}/sources/1/document")
    assert document.status_code == 200
    assert document.headers["content-type"] == "application/octet-stream"
    assert document.headers["content-disposition"].startswith("attachment")


@pytest.mark.parametrize("where", ["dotdot", "absolute", "other_collection", "no_collection"])
def test_document_outside_the_collection_is_refused(settings: Settings, notes: Path,
                                                    tmp_path: Path, where: str) -> None:
    secret = tmp_path / "secret.txt"
    paths: dict[str, Source] = {
        "dotdot": _source(1, f"{notes}/../secret.txt"),
        "absolute": _source(1, secret),
        "other_collection": _source(1, notes / "cache.md", metadata={
            "collection": "../../etc", "path": str(notes / "cache.md")}),
        "no_collection": _source(1, secret, metadata={"path": str(secret)}),
    }
    run_id = _store_run(settings, [paths[where]])
    for url in (f"/runs/{run_id}/sources/1/document",
                f"/api/v1/runs/{run_id}/sources/1/document"):
        reply = _client(settings).get(url)
        assert reply.status_code == 404 and SECRET_TEXT not in reply.text


def test_symlink_put_in_place_of_an_indexed_file_is_refused(settings: Settings, notes: Path,
                                                            tmp_path: Path) -> None:
    run_id = _store_run(settings, [_source(1, notes / "cache.md")])
    (notes / "cache.md").unlink()
    os.symlink(tmp_path / "secret.txt", notes / "cache.md")
    reply = _client(settings).get(f"/runs/{run_id}/sources/1/document")
    assert reply.status_code == 404 and SECRET_TEXT not in reply.text


def test_material_says_it_is_not_kept(settings: Settings) -> None:
    material = Source(number=1, title="notes.md", url="/uploads/notes.md",
                      canonical_url="/uploads/notes.md", snippet="my text",
                      engine="user_material", metadata={"material_id": "m1"})
    run_id = _store_run(settings, [material])
    text = _client(settings).get(f"/runs/{run_id}/sources/1").text
    assert "not kept on the server" in text and "/document" not in text
    assert _client(settings).get(f"/runs/{run_id}/sources/1/document").status_code == 404


def test_web_source_links_out(settings: Settings) -> None:
    web = Source(number=1, title="Example", url="https://example.org/a",
                 canonical_url="https://example.org/a", snippet="We keep the cache in "
                 "Redis for one hour.", engine="wiki")
    run_id = _store_run(settings, [web])
    text = _client(settings).get(f"/runs/{run_id}/sources/1").text
    assert 'href="https://example.org/a" rel="noopener noreferrer"' in text


def test_api_source_and_access_rules(settings: Settings, notes: Path) -> None:
    run_id = _store_run(settings, [_source(1, notes / "cache.md")])
    client = _client(settings, token=TOKEN)
    assert client.get(f"/api/v1/runs/{run_id}/sources/1").status_code == 401
    assert client.get(f"/api/v1/runs/{run_id}/sources/1/document").status_code == 401
    page = client.get(f"/runs/{run_id}/sources/1")
    assert page.status_code == 303 and page.headers["location"].startswith("/login")
    assert client.get(f"/runs/{run_id}/sources/1/document").status_code == 303
    reply = client.get(f"/api/v1/runs/{run_id}/sources/1",
                       headers={"Authorization": f"Bearer {TOKEN}"})
    assert reply.status_code == 200
    data = reply.json()
    assert data["passage"][data["highlights"][0]["start"]:data["highlights"][0]["end"]] == "Redis"
    assert data["path"] == str(notes / "cache.md") and data["page"] == 2
    assert data["document_url"] == f"/api/v1/runs/{run_id}/sources/1/document"
    assert client.get(f"/api/v1/runs/{run_id}/sources/7", headers={
        "Authorization": f"Bearer {TOKEN}"}).status_code == 404


def test_view_falls_back_to_finding_the_quote() -> None:
    source = Source(number=1, title="t", url="https://e.org", canonical_url="",
                    snippet="alpha ``beta`` gamma", engine="web")
    result = ResearchResult(question="q", answer="a [1].", strategy="s", handler="h",
                            sources=[source], citation_checks=[CitationCheck(
                                number=1, sentence="a [1].", outcome="partial",
                                method="fuzzy", source_number=1, start=90, end=99,
                                quote="gamma")])
    view = source_view("r", result, 1)
    assert view is not None and [s.text for s in view.segments if s.marked] == ["gamma"]
    assert "".join(s.text for s in view.segments) == "alpha beta gamma"
