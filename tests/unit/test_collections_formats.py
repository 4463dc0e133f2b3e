"""DOCX, CSV and EPUB loaders, encoding detection and loader plugins, on real files."""

from __future__ import annotations

import importlib.metadata
import sys
import zipfile
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from deepcite import plugins as registry
from deepcite.collections import Collection
from deepcite.collections import loaders as loaders_module
from deepcite.collections.files import discover
from deepcite.collections.loaders import (
    ENTRY_POINT_GROUP,
    LoadedDocument,
    LoadError,
    PageText,
    decode_text,
    is_supported,
    load_document,
    supported_suffixes,
)

docx = pytest.importorskip("docx")

# ----------------------------------------------------------------------- builders


def make_docx(path: Path, title: str | None = "Field Guide") -> Path:
    """A real DOCX: a title, nested headings, a list, a table (with a merged cell)."""
    document = docx.Document()
    if title:
        document.core_properties.title = title
    document.add_paragraph("Birds of the Marsh", style="Title")
    document.add_paragraph("An introduction to wetland birds.")
    document.add_heading("Herons", level=1)
    document.add_paragraph("The grey heron stands motionless in shallow water.")
    document.add_heading("Feeding", level=2)
    document.add_paragraph("Herons spear fish with a lightning strike of the bill.")
    document.add_paragraph("Fish", style="List Bullet")
    document.add_heading("Ducks", level=1)
    table = document.add_table(rows=3, cols=3)
    for r, row in enumerate([("Species", "Length", "Diet"), ("Mallard", "58 cm", "seeds"),
                             ("Teal", "36 cm", "insects")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    merged = table.cell(0, 1).merge(table.cell(0, 2))
    merged.text = "Facts"
    document.add_paragraph("   ")  # blank paragraphs are dropped
    document.save(str(path))
    return path


CONTAINER_XML = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf"
    media-type="application/oebps-package+xml"/></rootfiles>
</container>"""

OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:1234</dc:identifier>
    <dc:title>The Lighthouse Keeper</dc:title>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c2" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/>
    <item id="c1" href="text/chapter1.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine><itemref idref="c1"/><itemref idref="c2"/></spine>
</package>"""

CHAPTER = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title>
<style>p {{ color: red }}</style></head>
<body><h1>{title}</h1><p>{first}</p><h2>{sub}</h2><p>{second}<br/>after a break</p></body>
</html>"""


def make_epub(path: Path, *, encrypted: bool = False, missing: bool = False) -> Path:
    """A real EPUB 3: container.xml, an OPF with a spine of two XHTML chapters."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", CONTAINER_XML)
        archive.writestr("OEBPS/content.opf", OPF)
        archive.writestr("OEBPS/nav.xhtml", "<html><body><nav>Contents</nav></body></html>")
        archive.writestr("OEBPS/text/chapter1.xhtml", CHAPTER.format(
            title="The Storm", first="Waves crashed against the lamp room all night.",
            sub="Morning", second="The keeper trimmed the wick at dawn."))
        if not missing:
            archive.writestr("OEBPS/text/chapter 2.xhtml", CHAPTER.format(
                title="The Rescue", first="A fishing boat drifted toward the reef.",
                sub="The Rowboat", second="She rowed out through the breakers."))
        if encrypted:
            archive.writestr("META-INF/encryption.xml", """<encryption
  xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
  xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>
  <enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
  <enc:CipherData><enc:CipherReference URI="OEBPS/text/chapter1.xhtml"/></enc:CipherData>
</enc:EncryptedData></encryption>""")
    return path


# --------------------------------------------------------------------------- DOCX


def test_docx_headings_become_heading_lines_and_tables_rows(tmp_path: Path) -> None:
    doc = load_document(make_docx(tmp_path / "guide.docx"))
    assert (doc.title, doc.kind) == ("Field Guide", "docx")
    assert [p.page for p in doc.pages] == [None]
    assert doc.pages[0].text == (
        "Birds of the Marsh\n\n"
        "An introduction to wetland birds.\n\n"
        "# Herons\n\n"
        "The grey heron stands motionless in shallow water.\n\n"
        "## Feeding\n\n"
        "Herons spear fish with a lightning strike of the bill.\n\n"
        "- Fish\n\n"
        "# Ducks\n\n"
        "Species\tFacts\nMallard\t58 cm\tseeds\nTeal\t36 cm\tinsects"
    )


def test_docx_title_falls_back_to_title_style_then_stem(tmp_path: Path) -> None:
    assert load_document(make_docx(tmp_path / "a.docx", title=None)).title == (
        "Birds of the Marsh")
    empty = docx.Document()
    empty.add_paragraph("just text")
    empty.save(str(tmp_path / "plain.docx"))
    assert load_document(tmp_path / "plain.docx").title == "plain"


def test_docx_heading_path_reaches_search_results(make_settings: Any, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    make_docx(folder / "guide.docx")
    collection = Collection.create("birds", settings=make_settings())
    collection.add(folder)
    hit = collection.search("lightning strike")[0]
    assert hit.title == "Field Guide"
    assert hit.metadata["heading_path"] == ["Herons", "Feeding"]
    assert hit.metadata["heading"] == "Feeding"
    assert hit.metadata["kind"] == "docx"
    mallard = collection.search("mallard seeds")[0]
    assert "Mallard\t58 cm\tseeds" in mallard.snippet
    assert mallard.metadata["heading_path"] == ["Ducks"]


def test_docx_without_python_docx_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_docx(tmp_path / "guide.docx")
    monkeypatch.setitem(sys.modules, "docx", None)  # makes `import docx` fail
    with pytest.raises(LoadError) as info:
        load_document(path)
    assert "pip install 'deepcite[docx]'" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("content", [b"not a zip at all", b"PK\x03\x04 truncated"])
def test_corrupt_docx_is_a_one_line_load_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(content)
    with pytest.raises(LoadError, match=r"not a valid DOCX file") as info:
        load_document(path)
    assert "\n" not in str(info.value) and info.value.path == path


# ---------------------------------------------------------------------------- CSV


def test_csv_rows_become_self_describing_lines(tmp_path: Path) -> None:
    path = tmp_path / "stations.csv"
    path.write_text('city,height (m),"notes"\nOslo,23,"windy,\ncold"\n\n'
                    "Bergen,,rainy\nTromsø,10,north,extra\n", encoding="utf-8")
    doc = load_document(path)
    assert (doc.title, doc.kind) == ("stations", "csv")
    assert doc.pages[0].text == (
        "city: Oslo; height (m): 23; notes: windy, cold\n"
        "city: Bergen; notes: rainy\n"
        "city: Tromsø; height (m): 10; notes: north; column 4: extra"
    )


def test_csv_dialect_is_sniffed(tmp_path: Path) -> None:
    semicolons = tmp_path / "prices.csv"
    semicolons.write_text("item;price\napple;1,20\npear;0,90\n")
    assert load_document(semicolons).pages[0].text == (
        "item: apple; price: 1,20\nitem: pear; price: 0,90")
    tabs = tmp_path / "t.tsv"
    tabs.write_text("a\tb\n1\t2\n")
    assert load_document(tabs).pages[0].text == "a: 1; b: 2"
    header_only = tmp_path / "h.csv"
    header_only.write_text("name,age\n")
    assert load_document(header_only).pages[0].text == "name; age"


def test_unparsable_csv_is_a_load_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text('a,b\n1,"' + "x" * 200_000 + '"\n')  # over the csv field size limit
    with pytest.raises(LoadError, match=r"not a valid CSV file \(line 2: field larger"):
        load_document(path)


def test_csv_passages_are_found_by_value(make_settings: Any, tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    rows = "\n".join(f"Town{n},{n * 100},plain" for n in range(200))
    (folder / "towns.csv").write_text("town,population,terrain\n" + rows
                                      + "\nZermatt,5700,alpine glacier\n")
    collection = Collection.create("towns", settings=make_settings())
    collection.add(folder)
    hit = collection.search("glacier")[0]
    assert hit.title == "towns"
    assert "town: Zermatt; population: 5700; terrain: alpine glacier" in hit.snippet


# --------------------------------------------------------------------------- EPUB


def test_epub_spine_documents_are_numbered_sections(tmp_path: Path) -> None:
    doc = load_document(make_epub(tmp_path / "book.epub"))
    assert (doc.title, doc.kind) == ("The Lighthouse Keeper", "epub")
    assert [p.page for p in doc.pages] == [1, 2]
    assert doc.pages[0].text == (
        "# The Storm\n\nWaves crashed against the lamp room all night.\n\n## Morning\n\n"
        "The keeper trimmed the wick at dawn.\n\nafter a break"
    )
    assert doc.pages[1].text.startswith("# The Rescue\n\nA fishing boat")
    assert doc.warnings == []


def test_epub_hits_carry_section_and_heading_path(make_settings: Any, tmp_path: Path) -> None:
    folder = tmp_path / "books"
    folder.mkdir()
    make_epub(folder / "book.epub")
    collection = Collection.create("books", settings=make_settings())
    collection.add(folder)
    hit = collection.search("rowed breakers")[0]
    assert hit.metadata["page"] == 2
    assert hit.metadata["heading_path"] == ["The Rescue", "The Rowboat"]
    assert hit.metadata["kind"] == "epub"
    assert hit.url == (folder / "book.epub").resolve().as_uri()  # no #page= for EPUB
    assert collection.search("wick dawn")[0].metadata["page"] == 1


def test_epub_missing_section_is_a_warning(tmp_path: Path) -> None:
    doc = load_document(make_epub(tmp_path / "book.epub", missing=True))
    assert [p.page for p in doc.pages] == [1, 2] and doc.pages[1].text == ""
    assert doc.warnings == ["section 2: OEBPS/text/chapter 2.xhtml is missing from the archive"]


def test_drm_epub_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="DRM-protected"):
        load_document(make_epub(tmp_path / "drm.epub", encrypted=True))


def test_epub_without_container_uses_the_opf_it_finds(tmp_path: Path) -> None:
    path = tmp_path / "bare.epub"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("content.opf", OPF.replace("text/chapter1.xhtml", "c1.html"))
        archive.writestr("c1.html", "<p>Only chapter</p>")
    doc = load_document(path)
    assert doc.pages[0] == PageText(1, "Only chapter")
    assert doc.title == "The Lighthouse Keeper"


@pytest.mark.parametrize(("files", "reason"), [
    ({}, "no package document found"),
    ({"META-INF/container.xml": "<container><broken"}, "container.xml"),
    ({"content.opf": "<package/>"}, "the spine lists no documents"),
])
def test_invalid_epubs(tmp_path: Path, files: dict[str, str], reason: str) -> None:
    path = tmp_path / "bad.epub"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip")
        for name, content in files.items():
            archive.writestr(name, content)
    with pytest.raises(LoadError, match=f"not a valid EPUB .*{reason}"):
        load_document(path)


def test_corrupt_office_files_fail_while_the_rest_is_indexed(
    make_settings: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    make_docx(folder / "good.docx")
    make_epub(folder / "good.epub")
    (folder / "bad.docx").write_bytes(b"garbage")
    (folder / "bad.epub").write_bytes(b"PK\x05\x06" + b"\x00" * 18)  # an empty zip
    (folder / "notes.md").write_text("# Notes\n\nmarsh lighthouse\n")
    collection = Collection.create("mixed", settings=make_settings())
    report = collection.add(folder)
    assert sorted(p.name for p in report.added) == ["good.docx", "good.epub", "notes.md"]
    failed = dict((p.name, reason) for p, reason in report.failed)
    assert set(failed) == {"bad.docx", "bad.epub"}
    assert failed["bad.docx"].startswith("not a valid DOCX file")
    assert failed["bad.epub"].startswith("not a valid EPUB")
    assert {r.title for r in collection.search("heron lighthouse marsh")} >= {
        "Field Guide", "The Lighthouse Keeper", "Notes"}


# ----------------------------------------------------------------------- encodings


def test_cp1252_text_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "menu.txt"
    text = "Le café coûte 3 €, la crème brûlée 5 €.\r\nTrès bien, merci à vous.\r\n"
    path.write_bytes(text.encode("cp1252"))
    assert load_document(path).pages[0].text == text.replace("\r\n", "\n")


def test_shift_jis_text_is_detected(tmp_path: Path, make_settings: Any) -> None:
    path = tmp_path / "jp" / "nihon.txt"
    path.parent.mkdir()
    text = "東京は日本の首都です。富士山はとても美しい山です。\n"
    path.write_bytes(text.encode("shift_jis"))
    assert load_document(path).pages[0].text == text
    collection = Collection.create("jp", settings=make_settings())
    collection.add(path.parent)
    assert collection.search("富士山")[0].snippet == text.strip()


@pytest.mark.parametrize(("text", "encoding"), [
    ("Grüße aus München, schöne Straße", "cp1252"),
    ("Привет, как дела? Это тест кодировки.", "cp1251"),
    ("中文文本测试。自然语言处理很有趣。", "gb18030"),
    ("plain ascii", "ascii"),
])
def test_decode_text(text: str, encoding: str) -> None:
    assert decode_text(text.encode(encoding)) == text


def test_html_and_csv_use_detection_too(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_bytes("<html><head><title>Caf\u00e9</title></head><body><p>Men\u00fc 5 \u20ac"
                     "</p></body></html>".encode("cp1252"))
    assert load_document(page).title == "Café"
    table = tmp_path / "t.csv"
    table.write_bytes("name,price\ncrème,4 €\n".encode("cp1252"))
    assert load_document(table).pages[0].text == "name: crème; price: 4 €"


# ------------------------------------------------------------------------- plugins


def load_odt(path: Path) -> LoadedDocument:
    """A stand-in plugin loader (entry point target)."""
    return LoadedDocument(path, "From plugin", "odt", [PageText(None, path.read_text())])


def broken_loader(path: Path) -> LoadedDocument:
    raise ValueError("plugin bug")


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[EntryPoint]]:
    here = __name__
    found = [
        EntryPoint(".odt", f"{here}:load_odt", ENTRY_POINT_GROUP),
        EntryPoint("md", f"{here}:broken_loader", ENTRY_POINT_GROUP),  # shadows a built-in
        EntryPoint(".bug", f"{here}:broken_loader", ENTRY_POINT_GROUP),
        EntryPoint(".gone", "no_such_module_xyz:load", ENTRY_POINT_GROUP),
    ]

    def fake_entry_points(*, group: str) -> list[EntryPoint]:
        return found if group == ENTRY_POINT_GROUP else []

    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points)
    registry.refresh()
    yield found
    registry.refresh()  # the next scan, after the monkeypatch is undone, is the real one


def test_plugins_add_suffixes_but_cannot_shadow_builtins(
    plugins: list[EntryPoint], tmp_path: Path
) -> None:
    assert {".odt", ".bug", ".gone", ".md"} <= set(supported_suffixes())
    odt = tmp_path / "letter.ODT"
    odt.write_text("dear reader")
    assert is_supported(odt)
    assert load_document(odt).title == "From plugin"
    md = tmp_path / "x.md"
    md.write_text("# Still built in\n")
    assert load_document(md).title == "Still built in"
    assert ".md" not in loaders_module.LOADER_REGISTRY.plugins()
    assert discover(tmp_path).files == [odt.resolve(), md.resolve()]


def test_broken_plugins_cost_one_file(plugins: list[EntryPoint], tmp_path: Path) -> None:
    bug, gone = tmp_path / "a.bug", tmp_path / "b.gone"
    bug.write_text("x")
    gone.write_text("x")
    with pytest.raises(LoadError, match=r"cannot load \(ValueError: plugin bug\)"):
        load_document(bug)
    with pytest.raises(LoadError, match="loader plugin no_such_module_xyz:load cannot be"):
        load_document(gone)
