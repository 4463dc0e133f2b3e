"""User materials as evidence: passages, files, JSON lists and route logging."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from deepcite.errors import MaterialError
from deepcite.materials import (
    PageSpan,
    UserMaterial,
    log_missing_material_evidence,
    log_section_route,
    material_from_file,
    material_passages,
    materials_from_json,
    normalize_materials,
)
from tests.factories import make_pdf


def squeeze(text: str) -> str:
    return "".join(text.split())


# -------------------------------------------------------------------------- passages


def test_passages_keep_all_text_within_the_limit() -> None:
    content = "\n\n".join(
        f"Paragraph {i}. " + "Sentence with some words in it. " * (i * 7) for i in range(1, 12)
    ) + "\n\n" + "自然语言处理。" * 400
    material = UserMaterial(url="/docs/report.md", content=content, material_id="M1",
                            publish_time="2024", content_time="2023")
    passages = material_passages(material, max_chars=500)
    assert len(passages) > 10
    assert squeeze("".join(p.snippet for p in passages)) == squeeze(content)
    for passage in passages:
        meta = passage.metadata
        assert len(passage.snippet) <= 500
        assert content[meta["start"]:meta["end"]] == passage.snippet
        assert (passage.title, passage.url, passage.engine, passage.published) == (
            "report.md", "/docs/report.md", "user_material", "2024")
        assert (meta["material_id"], meta["content_time"], meta["page"]) == ("M1", "2023", None)


def test_passages_take_page_numbers_from_spans() -> None:
    pages = ["First page text. " * 20, "Second page text. " * 20, "Third page."]
    content = "\n\n".join(pages)
    spans, offset = [], 0
    for number, page in enumerate(pages, start=1):
        spans.append(PageSpan(page=number, start=offset, end=offset + len(page)))
        offset += len(page) + 2
    material = UserMaterial(url="C:\\papers\\x.pdf", content=content, title="X", pages=spans)
    passages = material_passages(material, max_chars=200)
    assert squeeze("".join(p.snippet for p in passages)) == squeeze(content)
    for passage in passages:
        page = passage.metadata["page"]
        assert pages[page - 1].find(passage.snippet.strip()) >= 0   # never crosses a page
    assert [p.metadata["page"] for p in passages][-1] == 3
    assert {p.title for p in passages} == {"X"}


def test_passage_title_falls_back_to_file_name_then_url() -> None:
    windows = UserMaterial(url="C:\\papers\\deep\\x.pdf", content="a")
    web = UserMaterial(url="https://example.org/a/b", content="a")
    assert material_passages(windows)[0].title == "x.pdf"
    assert material_passages(web)[0].title == "https://example.org/a/b"


def test_page_spans_must_lie_inside_the_content() -> None:
    with pytest.raises(MaterialError, match=r"Material 1 \(x\.pdf\): pages: page 2 ends at 50"):
        normalize_materials([{"url": "/x.pdf", "content": "short",
                              "pages": [{"page": 1, "start": 0, "end": 5},
                                        {"page": 2, "start": 5, "end": 50}]}])


# --------------------------------------------------------------------------- files


def test_material_from_pdf_keeps_pages(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "paper.pdf", ["Alpha on page one", "Beta on page two",
                                              "Gamma on page three"], title="The Paper")
    material = material_from_file(path, material_id="P1")
    assert (material.url, material.title, material.material_id) == (
        str(path.resolve()), "The Paper", "P1")
    assert [span.page for span in material.pages] == [1, 2, 3]
    for span, word in zip(material.pages, ["Alpha", "Beta", "Gamma"], strict=True):
        assert word in material.content[span.start:span.end]
    found = {p.metadata["page"] for p in material_passages(material) if "Beta" in p.snippet}
    assert found == {2}


def test_material_from_text_file_has_no_pages(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# My Notes\n\nThe cache lives in Redis.\n", encoding="utf-8")
    material = material_from_file(path)
    assert material.title == "My Notes" and material.pages == []
    assert "Redis" in material.content and Path(material.url).is_absolute()


def test_unreadable_files_are_one_line_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"not a pdf at all")
    with pytest.raises(MaterialError) as info:
        material_from_file(broken)
    assert str(info.value).startswith(f"Material file {broken.resolve()}: ")
    assert "\n" not in str(info.value)
    with pytest.raises(MaterialError, match=r"Material file .*missing\.txt"):
        material_from_file(tmp_path / "missing.txt")
    blank = make_pdf(tmp_path / "blank.pdf", [""])
    with pytest.raises(MaterialError, match="no text could be extracted"):
        material_from_file(blank)


def test_materials_from_json(tmp_path: Path) -> None:
    path = tmp_path / "materials.json"
    items = [{"url": "/a.md", "content": "a", "title": "A"},
             {"url": "https://example.org", "content": "b"}]
    path.write_text(json.dumps(items), encoding="utf-8")
    assert materials_from_json(path) == items
    kept, _ = normalize_materials(materials_from_json(path))
    assert [m.material_id for m in kept] == ["M1", "M2"]


@pytest.mark.parametrize(("text", "message"), [
    ("[{]", "not valid JSON (line 1, column 3"),
    ('{"url": "/a"}', "must hold a JSON list of materials, not an object"),
    ('[{"url": "/a", "content": "x"}, "b"]', "item 2 must be an object with url and content, "
                                             "not a string"),
])
def test_bad_materials_json(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "m.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MaterialError) as info:
        materials_from_json(path)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_missing_materials_json(tmp_path: Path) -> None:
    with pytest.raises(MaterialError, match="cannot read it"):
        materials_from_json(tmp_path / "nope.json")


# ------------------------------------------------------------------------ observability


def test_section_route_is_one_structured_info_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="deepcite.materials"):
        log_section_route("Results\nFAKE LINE", 2, 1, 3, 4, ["M1"])
    (record,) = caplog.records
    assert record.levelno == logging.INFO and record.name == "deepcite.materials"
    assert record.getMessage() == ("[MATERIAL_ROUTE] section='Results FAKE LINE' declared=2 "
                                   "resolved=1 material_docs=3 web_docs=4 ids=M1")
    assert record.material_route == {  # type: ignore[attr-defined]
        "section": "Results FAKE LINE", "declared": 2, "resolved": 1, "material_docs": 3,
        "web_docs": 4, "ids": ["M1"]}


def test_missing_material_evidence_is_an_error_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="deepcite.materials"):
        log_missing_material_evidence("Results", ["M1", "M2"])
    (record,) = caplog.records
    assert record.levelno == logging.ERROR
    assert "material-bound outline produced no material evidence" in record.getMessage()
    assert "ids=M1,M2" in record.getMessage()
