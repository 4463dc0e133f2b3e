"""The text of a document to check, from each format, and a one-line error otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepcite.errors import InputError
from deepcite.factcheck import read_document, split_claims
from tests.factories import make_pdf


def test_markdown_is_read_as_written(tmp_path: Path) -> None:
    path = tmp_path / "draft.md"
    path.write_bytes(b"# Draft\r\n\r\nThe sensor weighs 240 grams.\r\n")
    text = read_document(path)
    assert text == "# Draft\n\nThe sensor weighs 240 grams.\n"
    [claim] = split_claims(text)
    assert text[claim.start:claim.end] == "The sensor weighs 240 grams."


def test_html_docx_and_pdf_give_their_text(tmp_path: Path) -> None:
    html = tmp_path / "draft.html"
    html.write_text("<html><head><title>Draft</title></head><body><p>The sensor weighs "
                    "240 grams and ships in March 2024.</p><script>var x = 1;</script>"
                    "</body></html>", encoding="utf-8")
    assert "The sensor weighs 240 grams" in read_document(html)
    assert "var x" not in read_document(html)
    from docx import Document

    doc = Document()
    doc.add_heading("Draft", level=1)
    doc.add_paragraph("The sensor weighs 240 grams.")
    doc.save(str(tmp_path / "draft.docx"))
    assert "The sensor weighs 240 grams." in read_document(tmp_path / "draft.docx")
    pdf = make_pdf(tmp_path / "draft.pdf", ["The sensor weighs 240 grams."])
    assert "The sensor weighs 240 grams." in read_document(pdf)


@pytest.mark.parametrize(("name", "content", "says"), [
    ("missing.md", None, "No document at"),
    ("table.xlsx", b"PK\x03\x04", "cannot check .xlsx files"),
    ("broken.pdf", b"%PDF-1.4 not really", "broken.pdf"),
    ("empty.txt", b"  \n", "has no text to check"),
])
def test_a_file_that_cannot_be_checked_says_what_to_do(tmp_path: Path, name: str,
                                                        content: bytes | None,
                                                        says: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError) as raised:
        read_document(path)
    message = str(raised.value)
    assert says in message and "\n" not in message
    if content is not None:
        assert "Markdown, plain text, HTML, DOCX or PDF" in message
