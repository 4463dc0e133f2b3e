"""Hostile documents and uploads: decompression bombs, text that multiplies, huge or
numerous uploads, non-ASCII names, and parsing that must not block the event loop.

Every hostile file is built here at test time: small on disk, huge when expanded.
"""

from __future__ import annotations

import io
import re
import sys
import threading
import tracemalloc
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.datastructures import Headers, UploadFile
from typer.testing import CliRunner

from deepcite.cli import app as cli_app
from deepcite.collections.documents import LoadedDocument, LoadError, PageText
from deepcite.collections.loaders import limits, load_document
from deepcite.config import Settings
from deepcite.materials.limits import MAX_MATERIALS
from deepcite.web import page_forms
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.page_forms import (
    MAX_NAME_BYTES,
    MAX_UPLOAD_BYTES,
    UploadBudget,
    material_of_upload,
    safe_upload_name,
)
from deepcite.web.pages import mount_static, pages_router
from tests.bombs import MB, docx_bomb, lie_about_size, stream_entry
from tests.recording_executor import RecordingExecutor
from tests.servers import serving

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX sparse files")


# ------------------------------------------------------------------ hostile files


CONTAINER_XML = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="content.opf"
    media-type="application/oebps-package+xml"/></rootfiles>
</container>"""


def _opf(sections: int, spine: list[int]) -> str:
    items = "".join(f'<item id="s{i}" href="s{i}.xhtml" media-type="application/xhtml+xml"/>'
                    for i in range(sections))
    refs = "".join(f'<itemref idref="s{i}"/>' for i in spine)
    return ('<package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Bomb</dc:title>'
            f"</metadata><manifest>{items}</manifest><spine>{refs}</spine></package>")


def epub(path: Path, sections: list[bytes | tuple[bytes, int]], spine: list[int]) -> Path:
    """An EPUB; a section is bytes, or ``(chunk, times)`` streamed into the entry."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", CONTAINER_XML)
        archive.writestr("content.opf", _opf(len(sections), spine))
        for number, section in enumerate(sections):
            if isinstance(section, tuple):
                stream_entry(archive, f"s{number}.xhtml", *section)
            else:
                archive.writestr(f"s{number}.xhtml", section)
    return path


def _words(count: int, seed: int = 7) -> bytes:
    """Varied text that packs like prose (about 3x), not like a bomb."""
    import random

    rng = random.Random(seed)
    vocabulary = [bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
                  for _ in range(5000)]
    return b" ".join(rng.choice(vocabulary) for _ in range(count))


def _too_large(path: Path) -> LoadError:
    with pytest.raises(LoadError) as caught:
        load_document(path)
    error = caught.value
    assert "too large" in error.reason and "\n" not in str(error)
    return error


# ------------------------------------------------------------------ item 4: loaders


def test_docx_bomb_is_refused_as_too_large(tmp_path: Path) -> None:
    bomb = docx_bomb(tmp_path / "bomb.docx")
    assert bomb.stat().st_size < 2 * MB
    error = _too_large(bomb)
    assert "split it" in error.reason


def test_docx_bomb_under_the_total_is_refused_by_its_ratio(tmp_path: Path) -> None:
    # 40 MB of one repeated paragraph: under the size caps, but packed ~1000:1
    bomb = docx_bomb(tmp_path / "ratio.docx", unpacked=40 * MB)
    assert "times its packed size" in _too_large(bomb).reason


def test_docx_that_lies_about_its_size_is_refused(tmp_path: Path) -> None:
    bomb = docx_bomb(tmp_path / "liar.docx")
    lie_about_size(bomb, b"word/document.xml", 1000)
    with pytest.raises(LoadError) as caught:
        load_document(bomb)
    assert "\n" not in str(caught.value)


def test_archive_with_too_many_entries_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "many.docx"
    with zipfile.ZipFile(path, "w") as archive:
        for number in range(limits.MAX_ARCHIVE_ENTRIES + 1):
            archive.writestr(f"e{number}", b"")
    assert "entries" in _too_large(path).reason


def test_epub_bomb_listing_one_big_section_many_times_is_refused(tmp_path: Path) -> None:
    chunk = b"<p>" + b"all work and no play " * 50_000 + b"</p>"  # ~1 MB
    bomb = epub(tmp_path / "bomb.epub", [(chunk, 60)], [0] * 30)
    assert bomb.stat().st_size < MB
    _too_large(bomb)


def test_epub_spine_repeats_are_read_once(tmp_path: Path) -> None:
    section = b"<html><body><p>" + _words(40_000) + b"</p></body></html>"
    book = epub(tmp_path / "echo.epub", [section, b"<p>Second chapter.</p>"],
                [0] * 200 + [1])
    doc = load_document(book)
    assert [page.page for page in doc.pages] == [1, 201]
    assert any("again" in warning for warning in doc.warnings)
    assert sum(len(page.text) for page in doc.pages) < 2 * len(section)


def test_epub_with_huge_spine_is_refused(tmp_path: Path) -> None:
    book = epub(tmp_path / "long.epub", [b"<p>x</p>"], [0] * (limits.MAX_PAGES + 1))
    assert "pages or sections" in _too_large(book).reason


def test_csv_whose_header_multiplies_its_rows_is_refused(tmp_path: Path) -> None:
    columns = 2000
    header = ",".join(f"{'wide column name ' * 6}{n}" for n in range(columns))
    row = ",".join("1" * columns)
    path = tmp_path / "wide.csv"
    path.write_text(header + "\n" + "\n".join([row] * 120) + "\n")
    assert path.stat().st_size < MB
    _too_large(path)


def test_text_file_too_big_to_read_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "sparse.txt"
    with path.open("wb") as handle:  # sparse: takes no disk space
        handle.truncate(limits.MAX_TEXT_FILE_BYTES + 1)
    tracemalloc.start()
    try:
        _too_large(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MB


def _pdf_sharing_one_content_stream(path: Path, pages: int, text_chars: int) -> Path:
    from pypdf import PdfWriter
    from pypdf.generic import (
        DecodedStreamObject,
        DictionaryObject,
        NameObject,
    )

    writer = PdfWriter()
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"),
                             NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    resources = DictionaryObject({NameObject("/Font"): DictionaryObject(
        {NameObject("/F1"): writer._add_object(font)})})
    content = DecodedStreamObject()
    words = " ".join(["repeated"] * (text_chars // 9))
    content.set_data(f"BT /F1 12 Tf 10 700 Td ({words}) Tj ET".encode())
    shared = writer._add_object(content)
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Contents")] = shared
        page[NameObject("/Resources")] = resources
    writer.write(path)
    return path


def test_pdf_pages_sharing_one_content_stream_are_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real limit takes 20 million characters to reach; a smaller one shows the same
    # guard: 400 pages repeat one 10,000-character stream, from a file of a few KB.
    monkeypatch.setattr(limits, "MAX_DOCUMENT_CHARS", 1_000_000)
    path = _pdf_sharing_one_content_stream(tmp_path / "echo.pdf", 400, 10_000)
    assert path.stat().st_size < 200_000
    _too_large(path)


def test_plugin_loader_with_huge_text_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugins: Callable[..., None]
) -> None:
    plugins("deepcite.loaders", odt=f"{__name__}:_endless_loader")
    monkeypatch.setattr(limits, "MAX_DOCUMENT_CHARS", 1000)
    path = tmp_path / "big.odt"
    path.write_bytes(b"PK")
    _too_large(path)


def _endless_loader(path: Path) -> LoadedDocument:
    """A plugin loader that expands a tiny file into many pages of text."""
    return LoadedDocument(path, "big", "odt", [PageText(n, "x" * 600) for n in (1, 2)])


def test_folder_with_bombs_still_indexes_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "notes"
    folder.mkdir()
    docx_bomb(folder / "bomb.docx")
    epub(folder / "bomb.epub", [(b"<p>" + b"no play " * 100_000 + b"</p>", 60)], [0] * 30)
    (folder / "good.md").write_text("# Good\n\nThe cache lives in Redis for an hour.\n")
    result = CliRunner().invoke(cli_app, ["collection", "add", str(folder), "--name", "n"])
    output = " ".join(result.output.split())
    assert "1 added" in output and "2 failed" in output, output
    assert "too large" in output
    found = CliRunner().invoke(cli_app, ["collection", "search", "n", "redis"])
    assert "cache lives in Redis" in " ".join(found.output.split())


# ------------------------------------------------------------------ the web form


@pytest.fixture
def executor() -> RecordingExecutor:
    return RecordingExecutor(state="running")


@pytest.fixture
def client(make_settings: Callable[..., Settings], executor: RecordingExecutor) -> TestClient:
    app = FastAPI()
    app.include_router(pages_router(WebState(settings=make_settings(), executor=executor)))
    mount_static(app)
    return TestClient(app, follow_redirects=False)


def _csrf(page: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match, "the page has no CSRF field"
    return match.group(1)


def _post(client: TestClient, files: list[tuple[str, tuple[str, bytes, str]]]) -> Any:
    data = {"csrf_token": _csrf(client.get("/").text), "question": "Boiling?"}
    return client.post("/", data=data, files=files)


# ------------------------------------------------------------------ item 8: names


@pytest.mark.parametrize(("sent", "kept"), [
    ("论文.txt", "论文.txt"),
    ("日本語.md", "日本語.md"),
    ("файл.txt", "файл.txt"),
    ("e\u0301te\u0301.txt", "\u00e9t\u00e9.txt"),  # NFC: one code point per letter
    ("???.txt", "upload.txt"),
    ("..\\..\\etc\\论文.txt", "论文.txt"),
    ("report\u202egpj.txt", "report_gpj.txt"),
    ("CON.txt", "upload_CON.txt"),
    (".hidden.md", "hidden.md"),
])
def test_unicode_upload_names_are_kept_safely(client: TestClient, executor: RecordingExecutor,
                                              sent: str, kept: str) -> None:
    response = _post(client, [("files", (sent, b"Water boils at 100 C.\n", "text/plain"))])
    assert response.status_code == 303, response.text
    [request] = executor.requests
    assert request.materials[0].url == f"/uploads/{kept}"


def test_unsafe_characters_never_reach_the_name() -> None:
    for sent in ["a/b\\c\x00d\x1f\u202e\u200b\u2066e.txt", "\u202e\u202e\u202e.pdf",
                 "x" * 5000 + ".pdf", "论" * 5000 + ".md"]:
        name = safe_upload_name(sent)
        assert name.endswith(sent[sent.rindex("."):])
        assert len(name.encode("utf-8")) <= MAX_NAME_BYTES
        assert not name.startswith(".") and "/" not in name and "\\" not in name
        assert all(ch.isalnum() or ch in "._-" for ch in name), name


def test_rtl_override_cannot_disguise_the_type(client: TestClient,
                                               executor: RecordingExecutor) -> None:
    response = _post(client, [("files", ("photo\u202egpj.exe", b"MZ", "image/jpeg"))])
    assert response.status_code == 400
    assert "file type .exe is not accepted" in response.text
    assert executor.requests == []


@pytest.mark.parametrize("sent", ["x.txt\u202egpj", "x.t\u200bx\u2066t\x00\x1b[2J",
                                  "x.\u2028pdf\u00ad"])
def test_refused_type_message_echoes_no_control_or_format_character(sent: str) -> None:
    upload = UploadFile(io.BytesIO(b"text"), filename=sent, headers=Headers({}))
    with pytest.raises(ValueError, match="is not accepted") as refused:
        material_of_upload(upload, UploadBudget())
    message = str(refused.value)
    assert all(unicodedata.category(ch)[0] not in "CZ" or ch == " " for ch in message), \
        ascii(message)
    if "\u202e" in sent:
        assert "file type .txt\\u202egpj is not accepted" in message


def test_refused_type_page_shows_the_override_escaped(client: TestClient,
                                                      executor: RecordingExecutor) -> None:
    response = _post(client, [("files", ("x.txt\u202egpj", b"hi", "text/plain"))])
    assert response.status_code == 400
    assert "\u202e" not in response.text
    assert "file type .txt\\u202egpj is not accepted" in response.text
    assert executor.requests == []


# ------------------------------------------------------------------ item 17: many files


def test_more_files_than_materials_are_refused(client: TestClient,
                                               executor: RecordingExecutor) -> None:
    files = [("files", (f"n{i}.txt", b"note\n", "text/plain"))
             for i in range(MAX_MATERIALS + 1)]
    response = _post(client, files)
    assert response.status_code == 400
    assert f"at most {MAX_MATERIALS}" in response.text
    assert executor.requests == []


def test_files_together_over_the_request_limit_are_refused(
    client: TestClient, executor: RecordingExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(page_forms, "MAX_UPLOAD_TOTAL_BYTES", 3 * MB)
    files = [("files", (f"part{i}.txt", b"water boils\n" * (MB // 12), "text/plain"))
             for i in range(4)]
    response = _post(client, files)
    assert response.status_code == 400
    assert "part3.txt: not read" in response.text and "limit per request" in response.text
    assert "part2.txt" not in response.text
    assert executor.requests == []


def test_materials_over_the_character_limit_stop_at_the_file_that_passes_it(
    client: TestClient, executor: RecordingExecutor
) -> None:
    text = _words(600_000)  # about 3.5 million characters each
    files = [("files", (f"book{i}.txt", text, "text/plain")) for i in range(2)]
    response = _post(client, files)
    assert response.status_code == 400
    assert "book1.txt: too large" in response.text
    assert "book0.txt" not in response.text


def test_an_oversized_upload_is_never_held_in_memory(tmp_path: Path) -> None:
    source = tmp_path / "big.txt"
    with source.open("wb") as handle:
        handle.truncate(MAX_UPLOAD_BYTES + 10 * MB)
    with source.open("rb") as handle:
        upload = UploadFile(handle, filename="big.txt", headers=Headers({}))
        tracemalloc.start()
        try:
            with pytest.raises(ValueError, match="20 MB limit per file"):
                material_of_upload(upload, UploadBudget())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 4 * MB


def test_docx_bomb_upload_is_refused_with_its_name(client: TestClient, tmp_path: Path,
                                                   executor: RecordingExecutor) -> None:
    bomb = docx_bomb(tmp_path / "bomb.docx").read_bytes()
    response = _post(client, [("files", ("论文.docx", bomb, "application/octet-stream"))])
    assert response.status_code == 400
    assert "论文.docx: too large" in response.text
    assert executor.requests == []


# ------------------------------------------------------------------ item 5: event loop


@pytest.fixture
def server(make_settings: Callable[..., Settings],
           executor: RecordingExecutor) -> Iterator[str]:
    """The whole app served by uvicorn on 127.0.0.1 in a thread; yields its base URL."""
    app = create_app(WebState(settings=make_settings(), executor=executor))
    with serving(app) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.mark.enable_socket  # a real server on loopback
def test_health_answers_while_an_upload_is_parsed(
    server: str, executor: RecordingExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, release = threading.Event(), threading.Event()

    def slow_loader(path: Path) -> LoadedDocument:
        started.set()
        release.wait(30)  # the test sets it; the bound only stops a hang
        return LoadedDocument(path, "Slow", "epub", [PageText(1, "Water boils at 100 C.")])

    monkeypatch.setattr("deepcite.collections.loaders.load_document", slow_loader)
    replies: list[httpx.Response] = []
    with httpx.Client(base_url=server, timeout=60, follow_redirects=False) as browser:
        token = _csrf(browser.get("/").text)

        def upload() -> None:
            replies.append(browser.post("/", data={"csrf_token": token, "question": "q"},
                                        files=[("files", ("book.epub", b"PK", "x"))]))

        poster = threading.Thread(target=upload)
        poster.start()
        try:
            assert started.wait(30), "the upload never reached the loader"
            with httpx.Client(base_url=server, timeout=10) as probe:
                health = probe.get("/api/v1/health")  # times out if the loop is blocked
            assert health.status_code == 200
            assert not replies, "the upload finished before the loader was released"
        finally:
            release.set()
            poster.join(30)
    [reply] = replies
    assert reply.status_code == 303, reply.text
    assert executor.requests[0].materials[0].title == "Slow"


# ------------------------------------------------------------------ parse work (F4)

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _real_docx(path: Path, paragraphs: list[str]) -> Path:
    import docx

    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    document.save(str(path))
    return path


def paragraph_bomb(path: Path, elements: int) -> Path:
    """A well-formed DOCX whose document.xml holds ``elements`` elements in one-letter
    paragraphs: varied enough to pack only ~10:1, and under every byte limit."""
    import random

    rng = random.Random(3)
    template = _real_docx(path.with_suffix(".template.docx"), ["x"])
    with zipfile.ZipFile(template) as source, \
            zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for info in source.infolist():
            if info.filename != "word/document.xml":
                archive.writestr(info, source.read(info))
        with archive.open("word/document.xml", "w") as entry:
            entry.write(f'<?xml version="1.0"?><w:document {_W}><w:body>'.encode())
            letters = b"abcdefghijklmnopqrstuvwxyz"
            for _ in range(elements // 3 // 1000 + 1):  # 3 elements per paragraph
                entry.write(b"".join(b"<w:p><w:r><w:t>%c</w:t></w:r></w:p>" % rng.choice(letters)
                                     for _ in range(1000)))
            entry.write(b"</w:body></w:document>")
    return path


def test_docx_with_too_many_elements_is_refused_before_python_docx(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bomb = paragraph_bomb(tmp_path / "paras.docx", limits.MAX_XML_ELEMENTS + 3_000)
    assert bomb.stat().st_size < 8 * MB
    with zipfile.ZipFile(bomb) as archive:  # under the byte limits: only elements catch it
        info = archive.getinfo("word/document.xml")
        assert info.file_size < limits.MAX_ENTRY_BYTES
        assert info.file_size < limits.MAX_COMPRESSION_RATIO * info.compress_size

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("python-docx was asked to parse the bomb")

    monkeypatch.setattr("docx.Document", never)
    error = _too_large(bomb)
    assert "XML elements" in error.reason and "word/document.xml" in error.reason
    assert "split it" in error.reason


def test_a_normal_docx_still_loads(tmp_path: Path) -> None:
    path = _real_docx(tmp_path / "fine.docx",
                      [f"Paragraph {n}: water boils at 100 C." for n in range(500)])
    document = load_document(path)
    assert "Paragraph 499: water boils" in document.pages[0].text


def test_epub_section_with_too_many_elements_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_XML_ELEMENTS", 5_000)
    body = b"<html><body>" + b"".join(b"<p>%d</p>" % n for n in range(6_000)) + \
        b"</body></html>"
    book = epub(tmp_path / "paras.epub", [b"<html><body><p>Intro</p></body></html>", body],
                [0, 1])
    assert "XML elements" in _too_large(book).reason
    fine = epub(tmp_path / "fine.epub", [b"<html><body><p>Intro</p></body></html>"], [0])
    assert load_document(fine).pages[0].text.strip() == "Intro"


def test_renamed_xml_part_is_counted_but_binary_parts_are_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_XML_ELEMENTS", 1_000)
    for name, data, refused in [("media/x.bin", b"\xef\xbb\xbf  <a>" + b"<b/>" * 2_000, True),
                                ("media/x.png", b"\x89PNG" + b"<b/>" * 2_000, False)]:
        path = tmp_path / "p.zip"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr(name, data)
        with path.open("rb") as handle, limits.ZipReader.open(path, handle) as reader:
            if refused:
                with pytest.raises(LoadError, match="XML elements"):
                    reader.check_all()
            else:
                reader.check_all()


@pytest.mark.parametrize("sample", [
    b'<?xml version="1.0"?><a><!-- c --><b x="1"/><c>t</c></a>',
    '<?xml version="1.0" encoding="utf-16"?><a><b/><c>t</c></a>'.encode("utf-16-le"),
    '<a><b/><c>t</c></a>'.encode("utf-16-be"),
])
def test_element_count_is_the_same_wherever_the_chunks_split(sample: bytes) -> None:
    expected = 3  # a, b, c
    for first in range(len(sample) + 1):
        for second in range(first, min(first + 4, len(sample)) + 1):
            counter = limits._ElementCounter()
            for piece in (sample[:first], sample[first:second], sample[second:]):
                counter.feed(piece)
            assert counter.count == expected, (first, second)


def test_at_most_two_uploads_are_parsed_at_once(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    lock = threading.Lock()
    running = [0]
    most = [0]

    def slow_loader(path: Path) -> LoadedDocument:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        threading.Event().wait(0.2)
        with lock:
            running[0] -= 1
        return LoadedDocument(path, "Slow", "epub", [PageText(1, "Water boils at 100 C.")])

    monkeypatch.setattr("deepcite.collections.loaders.load_document", slow_loader)
    errors: list[BaseException] = []

    def parse(number: int) -> None:
        source = tmp_path / f"b{number}.epub"
        source.write_bytes(b"PK")
        try:
            with source.open("rb") as handle:
                upload = UploadFile(handle, filename=source.name, headers=Headers({}))
                material_of_upload(upload, UploadBudget())
        except (AssertionError, OSError, ValueError) as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=parse, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert most[0] == page_forms.MAX_CONCURRENT_PARSES == 2
