"""One document of a collection on the pages: its indexed text (escaped), its file
(only from the collection's uploads or a folder root, served with the sandbox policy),
its removal (CSRF, then gone from list, search and uploads), links to it from the
collection's list and search hits, the "Modified" column, "Ask this collection", and a
PDF titled from its first line when its metadata title is a placeholder.

A bare app with a stub executor (its store is real), real collections indexed from files.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.collections.collection import Collection
from deepcite.collections.loaders.registry import load_document, placeholder_title
from deepcite.config import Settings
from tests.factories import make_pdf
from tests.unit.test_web_collections import Executor, _csrf
from tests.unit.test_web_collections import _client as pages_client


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    value: Settings = make_settings()
    return value


def _client(settings: Settings, roots: tuple[str, ...] = ()) -> TestClient:
    return pages_client(settings, Executor(settings), roots)


def _upload(client: TestClient, name: str, files: list[tuple[str, bytes]]) -> None:
    reply = client.post("/collections/upload",
                        data={"csrf_token": _csrf(client, "/collections"), "name": name},
                        files=[("files", (n, body, "application/octet-stream"))
                               for n, body in files])
    assert reply.status_code == 303, reply.text
    for thread in threading.enumerate():
        if thread.name == f"deepcite-index-{name}":
            thread.join(timeout=60)


def _links(page: str, name: str) -> dict[str, str]:
    """File name -> document page, from a collection page's documents table."""
    return {Path(file).name: url for url, file in re.findall(
        rf'<a href="(/collections/{name}/documents/\d+)"><code>([^<]+)</code></a>', page)}


def test_a_document_is_shown_escaped_downloaded_and_removed(settings: Settings) -> None:
    client = _client(settings)
    _upload(client, "notes", [
        ("boil.md", b"# Boiling\n\nWater boils at 100 degrees. <script>alert(1)</script>\n"),
        ("ice.txt", b"Ice melts at zero degrees.\n")])
    page = client.get("/collections/notes").text
    links = _links(page, "notes")
    assert set(links) == {"boil.md", "ice.txt"}
    # Freshly uploaded files were "modified" too recently for mtime_ns: the date shows.
    rows = re.findall(r"<tr><td>.*?</td><td>\d+</td><td>.*?</td><td>([^<]*)</td></tr>", page)
    assert len(rows) == 2 and all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", r) for r in rows)

    shown = client.get(links["boil.md"])
    assert shown.status_code == 200
    assert "Water boils at 100 degrees." in shown.text
    assert "<script>alert(1)</script>" not in shown.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown.text
    assert shown.text.count("Water boils at 100 degrees.") == 1  # overlaps read once
    download = client.get(links["boil.md"] + "/file")
    assert download.status_code == 200 and download.content.startswith(b"# Boiling")
    assert "sandbox" in download.headers["content-security-policy"]
    assert download.headers["x-content-type-options"] == "nosniff"

    hits = client.get("/collections/notes", params={"q": "water boils"}).text
    assert f'<a href="{links["boil.md"]}">Boiling</a>' in hits

    assert client.post(links["boil.md"] + "/delete").status_code == 403  # no CSRF token
    assert "boil.md" in _links(client.get("/collections/notes").text, "notes")
    token = _csrf(client, links["boil.md"])
    removed = client.post(links["boil.md"] + "/delete", data={"csrf_token": token})
    assert removed.status_code == 303
    after = client.get(removed.headers["location"]).text
    assert "boil.md was removed from notes" in after
    assert set(_links(after, "notes")) == {"ice.txt"}
    assert "Boiling" not in client.get("/collections/notes", params={"q": "water boils"}).text
    assert not (Path(settings.data_dir) / "uploads" / "notes" / "boil.md").exists()
    assert client.get(links["boil.md"]).status_code == 404
    assert client.get(links["boil.md"] + "/file").status_code == 404
    assert client.get("/collections/ghost/documents/1").status_code == 404
    # A link cannot make the page say a listed document was removed.
    claimed = client.get("/collections/notes", params={"removed": "ice.txt"}).text
    assert "was removed" not in claimed


def test_only_files_in_uploads_or_folder_roots_are_downloadable(
        settings: Settings, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nThe vault code is 1234.\n",
                                       encoding="utf-8")
    Collection.create("elsewhere", settings=settings).add(outside)
    client = _client(settings, roots=(str(tmp_path / "roots"),))
    (tmp_path / "roots").mkdir()
    url = _links(client.get("/collections/elsewhere").text, "elsewhere")["secret.md"]
    page = client.get(url)
    assert page.status_code == 200 and "The vault code is 1234." in page.text
    assert "Download the file" not in page.text
    assert client.get(url + "/file").status_code == 404

    allowed = _client(settings, roots=(str(outside),))
    served = allowed.get(url + "/file")
    assert served.status_code == 200 and b"vault code" in served.content


def test_ask_this_collection_ticks_it_on_the_research_form(settings: Settings) -> None:
    client = _client(settings)
    _upload(client, "notes", [("ice.txt", b"Ice melts at zero degrees.\n")])
    assert 'href="/?collection=notes"' in client.get("/collections/notes").text
    form = client.get("/", params={"collection": "notes"}).text
    assert re.search(r'value="notes" checked', form)
    assert not re.search(r'value="demo" checked', form)
    unknown = client.get("/", params={"collection": "ghost"}).text
    assert 'value="ghost"' not in unknown


def test_a_document_of_the_bundled_demo_cannot_be_removed(settings: Settings,
                                                          tmp_path: Path) -> None:
    folder = tmp_path / "demo-files"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nAlpha text.\n", encoding="utf-8")
    Collection.create("demo", settings=settings).add(folder)
    client = _client(settings)
    url = _links(client.get("/collections/demo").text, "demo")["a.md"]
    page = client.get(url).text
    assert "Remove from demo" not in page
    token = _csrf(client, "/collections")
    assert client.post(url + "/delete", data={"csrf_token": token}).status_code == 409
    assert "a.md" in _links(client.get("/collections/demo").text, "demo")


@pytest.mark.parametrize("title", ["", "untitled", "Untitled document", "Microsoft Word - "
                                   "draft 3.docx", "report.pdf", "   ", "---", "Slide 1"])
def test_a_pdf_with_a_placeholder_title_is_titled_by_its_first_line(
        tmp_path: Path, title: str) -> None:
    path = make_pdf(tmp_path / "paper.pdf",
                    ["Soil Moisture in Alpine Meadows", "We measured water content."],
                    title=title)
    assert placeholder_title(title)
    assert load_document(path).title == "Soil Moisture in Alpine Meadows"


def test_a_pdf_with_a_real_title_keeps_it(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "paper.pdf", ["First line of the body"],
                    title="Glacier Retreat Since 1850")
    assert not placeholder_title("Glacier Retreat Since 1850")
    assert load_document(path).title == "Glacier Retreat Since 1850"
    blank = make_pdf(tmp_path / "blank.pdf", [""], title="untitled")
    assert load_document(blank).title == "blank"


def test_a_long_documents_text_reads_once_in_order_and_removal_empties_search(
        settings: Settings, tmp_path: Path) -> None:
    folder = tmp_path / "long"
    folder.mkdir()
    sentences = [f"Sentence number {n} tells of river {n * 7}." for n in range(1500)]
    (folder / "river.txt").write_text("\n\n".join(
        " ".join(sentences[i:i + 5]) for i in range(0, len(sentences), 5)), encoding="utf-8")
    collection = Collection.create("long", settings=settings)
    collection.add(folder)
    [key] = collection.index.documents()
    assert collection.index.documents()[key].chunks > 3  # overlapping chunks
    text = collection.document_text(key)
    assert text is not None
    joined = "".join(part.text for part in text.parts)
    assert [joined.count(s) for s in sentences] == [1] * len(sentences)
    assert joined.index(sentences[10]) < joined.index(sentences[1000])
    assert collection.search("river 6993", 3)
    assert collection.remove_document(key) is True
    assert collection.remove_document(key) is False
    assert collection.document_text(key) is None
    assert collection.search("river 6993", 3) == []
    assert collection.info().documents == 0
