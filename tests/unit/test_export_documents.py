"""The document exports read back: HTML parsed, PDF text extracted, Word and ODT reopened,
LaTeX compiled where a TeX engine is installed; and none of them runs, fetches or
includes anything a hostile report asks for."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from deepcite.export import ExportOptions, export_report
from deepcite.export.pdf import load_weasyprint, offline_url_fetcher
from deepcite.types import ResearchResult
from tests.unit.test_export import CJK_PASSAGE, CJK_TITLE, _hostile, _paper, big_report


@cache
def exported(fmt: str, links: str = "none") -> bytes:
    """Each format of the shared report, exported once per test session."""
    return export_report(big_report(), fmt, ExportOptions(links=links)).data


def _squash(text: str) -> str:
    """Text without whitespace: PDF extraction and word processors break lines anywhere."""
    return "".join(text.split())


# ------------------------------------------------------------------------------ HTML


class _Page(HTMLParser):
    """Every tag with its attributes, ids, hrefs, and the text inside <a class=cite>."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.cite_labels: list[str] = []
        self._in_cite = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        self.tags.append((tag, values))
        if "id" in values:
            assert values["id"] not in self.ids, f"duplicate id {values['id']}"
            self.ids.add(values["id"])
        if tag == "a" and "href" in values:
            self.hrefs.append(values["href"])
            self._in_cite = values.get("class") == "cite"

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._in_cite = False

    def handle_data(self, data: str) -> None:
        if self._in_cite:
            self.cite_labels.append(data)


def _page(data: bytes) -> _Page:
    page = _Page()
    page.feed(data.decode("utf-8"))
    return page


def test_html_is_a_standalone_page_with_cjk_table_and_code() -> None:
    text = exported("html").decode("utf-8")
    assert text.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in text
    assert f"<title>{CJK_TITLE}</title>" in text and CJK_PASSAGE in text
    assert "<table>" in text and 'style="text-align:right"' in text
    assert '<pre tabindex="0"><code class="language-python">' in text
    assert "<code>code [9]</code>" in text  # markers in code are not citations
    assert not re.search(r"(src|href)=\"(?:https?:)?//[^\"]*\.(css|js|png|woff2?)", text)
    assert "<link" not in text and "<img" not in text


def test_html_citations_resolve_to_source_anchors() -> None:
    page = _page(exported("html"))
    local = [href for href in page.hrefs if href.startswith("#")]
    assert local, "no citation links"
    assert all(href[1:] in page.ids for href in local), set(local) - {f"#{i}" for i in page.ids}
    assert {f"source-{n}" for n in range(1, 61)} <= page.ids
    assert {"#source-1", "#source-2", "#source-21", "#source-22", "#source-60"} <= set(local)
    assert "[1]" in page.cite_labels


def test_html_links_mode_labels_citations_but_keeps_anchors() -> None:
    page = _page(exported("html", links="domain"))
    assert "[openalex.org]" in page.cite_labels
    assert all(href.startswith(("#", "http", "file:")) for href in page.hrefs)


def test_html_sources_link_out_and_group_passages_of_one_file() -> None:
    text = exported("html").decode("utf-8")
    assert 'href="https://openalex.org/W1"' in text
    assert '<span id="source-21">21</span>, <span id="source-22">22</span>' in text
    # the report asks in Chinese: its Sources list is labelled in Chinese
    assert "资料集：papers · report-21.pdf, pp. 2, 3" in text


def test_html_leaves_hostile_content_inert() -> None:
    data = exported("html")
    text = data.decode("utf-8")
    assert "<script" not in text.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; 31" in text  # the title, as text
    assert "&lt;script&gt;alert('body')" in text  # the answer's tag, as text
    page = _page(data)
    for tag, attrs in page.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        for name in ("href", "src"):
            value = attrs.get(name, "")
            assert not value or value.startswith(("#", "https:", "http:", "file:")), value
    assert "\x1b" not in text


def test_html_renders_no_images_and_no_raw_html() -> None:
    report = big_report(answer="![pixel](https://tracker.example/p.png) <iframe src=x> "
                               "<a href=\"javascript:alert(1)\">x</a> [1] "
                               "[up](../../etc/passwd) [root](/etc/shadow) [v](vbscript:x)")
    page = _page(export_report(report, "html").data)
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"img", "iframe", "script", "link", "object", "embed"}
    assert page.hrefs[0] == "#source-1"  # the image is text: neither a load nor a link
    assert "https://tracker.example/p.png" not in page.hrefs
    assert all(href.startswith(("#", "http", "file:///data/")) for href in page.hrefs)


# ------------------------------------------------------------------------------- PDF


def test_pdf_text_holds_the_cjk_passage_and_source_titles() -> None:
    pypdf = pytest.importorskip("pypdf")
    reader = pypdf.PdfReader(io.BytesIO(exported("pdf")))
    text = _squash("\n".join(page.extract_text() for page in reader.pages))
    assert _squash(CJK_PASSAGE) in text
    assert _squash(CJK_TITLE) in text
    for title in ("Attention Is All You Need", "本地文档 21", "Web page 60 中文资料",
                  "Title with {braces} & 100% 32", "<script>alert(1)</script> 31"):
        assert _squash(title) in text, title
    assert reader.metadata is not None and reader.metadata.title == CJK_TITLE


def test_pdf_fetches_nothing_but_data_uris() -> None:
    weasyprint = load_weasyprint()
    fetcher = offline_url_fetcher(weasyprint)
    fetch: Callable[[str], Any] = fetcher if callable(fetcher) else fetcher.fetch
    for url in ("https://example.org/x.png", "http://169.254.169.254/", "file:///etc/passwd",
                "FILE:///etc/hostname", "ftp://example.org/a"):
        with pytest.raises(ValueError, match="fetch nothing"):
            fetch(url)
    response = fetch("data:text/plain;base64,aGk=")
    assert response.read() == b"hi"


def test_pdf_of_a_page_with_remote_resources_fetches_none(tmp_path: Path) -> None:
    weasyprint = load_weasyprint()
    secret = tmp_path / "secret.css"
    secret.write_text("body { background: red }")
    page = (f'<link rel="stylesheet" href="{secret.as_uri()}">'
            '<img src="https://tracker.example/p.png"><p>x</p>')
    seen: list[str] = []
    fetcher = offline_url_fetcher(weasyprint)
    if not hasattr(fetcher, "fetch"):
        pytest.skip("this WeasyPrint takes a fetcher function; covered by the test above")
    original = type(fetcher).fetch

    def spy(self: Any, url: str, headers: Any = None) -> Any:
        seen.append(url)
        return original(self, url, headers)

    type(fetcher).fetch = spy  # the class is made per call: no other fetcher changes
    data = weasyprint.HTML(string=page, url_fetcher=fetcher).write_pdf()
    assert data.startswith(b"%PDF-")
    assert sorted(seen) == [secret.as_uri(), "https://tracker.example/p.png"]


# ---------------------------------------------------------------------- Word and ODT


def test_docx_reopens_with_sections_table_and_sources() -> None:
    docx = pytest.importorskip("docx")
    document = docx.Document(io.BytesIO(exported("docx")))
    paragraphs = [(p.style.name if p.style is not None else "", p.text)
                  for p in document.paragraphs]
    assert ("Title", CJK_TITLE) in paragraphs
    headings = {text for style, text in paragraphs if style.startswith("Heading")}
    # asked in Chinese: the Sources heading is Chinese (deepcite.text.frames)
    assert {"Contents", "Summary", "1. 背景", "1.1 Details", "2. Methods", "来源"} <= headings
    assert ("Heading 1", "1. 背景") in paragraphs  # "##" sections are the top level
    body = "\n".join(text for _, text in paragraphs)
    assert CJK_PASSAGE in body
    assert "[1] Attention Is All You Need（来源编号：1）" in body
    assert "[21, 22] 本地文档 21（来源编号：21, 22）" in body
    assert "Title with {braces} & 100% 32" in body
    cells = [cell.text for table in document.tables for row in table.rows for cell in row.cells]
    assert "Base" in cells and "[6]" in cells


def test_odt_reopens_with_sections_and_sources() -> None:
    with zipfile.ZipFile(io.BytesIO(exported("odt"))) as archive:
        assert archive.read("mimetype") == b"application/vnd.oasis.opendocument.text"
        root = ElementTree.fromstring(archive.read("content.xml"))
    text_ns = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    headings = ["".join(h.itertext()) for h in root.iter(f"{{{text_ns}}}h")]
    assert {"1. 背景", "1.1 Details", "来源"} <= set(headings)
    text = "".join(root.itertext())
    assert CJK_PASSAGE in text and CJK_TITLE in text
    assert "Attention Is All You Need（来源编号：1）" in text
    assert "本地文档 21（来源编号：21, 22）" in text


def test_pandoc_formats_include_no_local_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG\r\n\x1a\nSECRET-BYTES")
    report = big_report(answer=f"Look ![x]({secret}) and ![y]({secret.as_uri()}) [1]")
    for fmt in ("docx", "odt"):
        data = export_report(report, fmt).data
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            contents = b"".join(archive.read(name) for name in archive.namelist())
        assert b"SECRET-BYTES" not in contents, fmt


# ----------------------------------------------------------------------------- LaTeX


def test_latex_is_standalone_escaped_and_inert() -> None:
    report = big_report(answer="Raw \\input{/etc/passwd} and $\\immediate\\write18{ls}$ [1]\n\n"
                               "```{=latex}\n\\input{/etc/shadow}\n```\n")
    text = export_report(report, "latex").data.decode()
    assert text.lstrip().startswith("%") or text.lstrip().startswith("\\documentclass")
    assert "\\title{" + CJK_TITLE + "}" in text
    assert "\\input{/etc/passwd}" not in text and "\\write18{" not in text
    assert "\\textbackslash input\\{/etc/passwd\\}" in text
    assert "\\input{/etc/shadow}" not in text  # a raw ```{=latex} block is not raw


def _tex_engine() -> str | None:
    return next((engine for engine in ("xelatex", "lualatex", "pdflatex")
                 if shutil.which(engine)), None)


def _ascii_report() -> ResearchResult:
    """pdflatex has no CJK: the same shapes (table, code, hostile titles) in ASCII."""
    sources = [*(_paper(n) for n in range(1, 21)), *(_hostile(n) for n in range(31, 41))]
    body = ("## 1. Background\n\nTransformers [1] [2, 3]. Specials: 100% & $5 #1 a_b ^ ~ \\.\n\n"
            "| a | b |\n|---|--:|\n| x [31] | y [32] |\n\n```python\nprint([1])\n```\n")
    return big_report(title="Plain {report} & 100%", answer=body, sources=sources)


@pytest.mark.skipif(_tex_engine() is None,
                    reason="no LaTeX engine (xelatex, lualatex or pdflatex) is installed")
def test_latex_compiles(tmp_path: Path) -> None:
    engine = _tex_engine()
    assert engine is not None
    report = big_report() if engine != "pdflatex" else _ascii_report()
    source = tmp_path / "report.tex"
    source.write_bytes(export_report(report, "latex").data)
    done = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error",
                           "-no-shell-escape", source.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "report.pdf").stat().st_size > 1000


@pytest.mark.parametrize("mode", ["number", "domain", "domain-id", "domain-id-always",
                                  "source-tagged"])
def test_html_citation_labels_match_the_markdown_links(mode: str) -> None:
    markdown = exported("markdown", links=mode).decode().partition("## Sources")[0]
    labels = [label.replace("\\", "") for label in re.findall(r"\[\[(.+?)\]\]\(", markdown)]
    page = _page(exported("html", links=mode))
    hrefs = [v["href"] for tag, v in page.tags if tag == "a" and v.get("class") == "cite"]
    # Source 35's URL is javascript:, so Markdown cites it as text; HTML cites in-page.
    html_labels = [label.strip("[]") for label, href in zip(page.cite_labels, hrefs,
                                                            strict=True)
                   if href != "#source-35"]
    assert labels and html_labels == labels


def test_pandoc_titles_are_literal() -> None:
    docx = pytest.importorskip("docx")
    for title in ("*Bold*: [x](http://y) $z$ \\input{a}", "true"):
        data = export_report(big_report(title=title, answer="x [1]"), "docx").data
        titles = [p.text for p in docx.Document(io.BytesIO(data)).paragraphs
                  if p.style is not None and p.style.name == "Title"]
        assert [t.rstrip("\u200b") for t in titles] == [title]
