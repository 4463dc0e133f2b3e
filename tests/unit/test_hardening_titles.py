"""A report's title (or, without one, the user's question) is as inert in every
exporter's metadata as the body is: Quarto's front matter, pandoc's document metadata,
HTML's <title>, the bibliographies' records.

Quarto reads a front-matter string as Markdown and expands shortcodes in it, so a title
``{{< env HOME >}}`` would print the server's environment into the rendered page, and a
title with ``<script>`` would put the tag into it. Quarto itself is not installed here:
the Quarto checks read the front matter the exporter writes (with a YAML parser) and
render it with pandoc's default Markdown reader, which is what Quarto reads it with.
"""

from __future__ import annotations

import html
import re
import subprocess

import pytest
import yaml

from deepcite.export import export_report
from deepcite.export.inert import inert_line
from deepcite.types import ResearchResult, Source

#: One-line titles that would do something when read as Markdown by Quarto or pandoc.
HOSTILE_TITLES = {
    "shortcode": "Home is {{< env HOME >}} and {{< include /etc/passwd >}}",
    "percent shortcode": "{{% env SECRET %}} first",
    "meta shortcode": "{{< meta title >}}{{< var secret >}}",
    "raw html": "<script>alert(1)</script><img src=x onerror=alert(2)>",
    "raw attribute": "x `<b>y</b>`{=html} and `\\input{/etc/passwd}`{=latex}",
    "tex": "\\input{/etc/passwd} \\write18{id}",
    "math": "$\\input{/etc/hostname}$ costs $$5$$",
    "image": "![x](file:///etc/passwd) ![y](https://tracker.example/p.png)",
    "unsafe link": "[click](javascript:alert(3))",
    "yaml break": 'A title\n---\ntitle: injected\nformat: pdf\n---\n',
    "yaml key": "key: value: other",
    "quotes": "'single' \"double\" # comment",
    "heading": "# Heading",
    "list": "- item",
    "ordered": "1. first",
    "quote": "> quoted",
    "fence": "```{=html}",
    "reference": "[x]: https://example.org/",
}

_SHORTCODE = re.compile(r"(?<!\{)\{\{[<%]")


def _report(title: str, question: str = "Q?") -> ResearchResult:
    source = Source(number=1, title="A page", url="https://example.org/one",
                    canonical_url="https://example.org/one", snippet="text", engine="web")
    return ResearchResult(question=question, title=title, answer="Text [1].",
                          strategy="standard", handler="standard", sources=[source])


def _front(text: str) -> dict[str, object]:
    assert text.startswith("---\n")
    front = yaml.safe_load(text.split("\n---\n", 1)[0].removeprefix("---\n"))
    assert isinstance(front, dict)
    return front


def _pandoc(markdown: str, to: str) -> str:
    pypandoc = pytest.importorskip("pypandoc")
    return subprocess.run([pypandoc.get_pandoc_path(), "-f", "markdown", "-t", to, "-s"],
                          input=markdown, capture_output=True, text=True, check=True,
                          timeout=60).stdout


@pytest.mark.parametrize("case", sorted(HOSTILE_TITLES))
@pytest.mark.parametrize("where", ["title", "question"])
def test_quarto_front_matter_holds_the_title_inert(case: str, where: str) -> None:
    hostile = HOSTILE_TITLES[case]
    report = _report(hostile) if where == "title" else _report("", question=hostile)
    text = export_report(report, "quarto").data.decode()
    front = _front(text)
    # nothing was added to the front matter, and the title stays one string
    assert set(front) == {"title", "date", "format", "engine", "execute"}
    assert front["format"] == "html" and front["execute"] == {"enabled": False}
    title = front["title"]
    assert isinstance(title, str) and "\n" not in title
    assert not _SHORTCODE.search(title), title  # only Quarto's escaped {{{< x >}}}
    rendered = _pandoc(text, "html")
    title_html = " ".join(part for m in re.finditer(
        r"<title>(.*?)</title>|<header[^>]*>(.*?)</header>", rendered, re.S)
        for part in m.groups() if part)
    assert title_html
    for bad in ("<script", "<img", "<b>", 'href="javascript', ">injected<", "<h1>Heading",
                "<li>", "<blockquote>", "<pre", "<ul>", "<ol>"):
        assert bad not in title_html, (bad, title_html)
    latex = _pandoc(text, "latex")
    preamble = latex.split("\\begin{document}", 1)[0]
    for command in ("\\input{", "\\write18", "\\includegraphics", "\\title{injected"):
        assert command not in preamble, (command, preamble[-400:])


@pytest.mark.parametrize("title", ["# Heading", "- item", "1. first", "> quoted",
                                   "Plain words: with a colon", "I. Introduction",
                                   "Costs $5 <b>", "{{< env HOME >}}"])
def test_the_quarto_title_still_reads_as_what_was_written(title: str) -> None:
    rendered = _pandoc(export_report(_report(title), "quarto").data.decode(), "html")
    shown = re.search(r"<title>(.*?)</title>", rendered, re.S)
    assert shown is not None
    # pandoc shows Quarto's escaped shortcode with its third brace; Quarto drops it
    expected = title.replace("{{<", "{{{<").replace(">}}", ">}}}")
    assert html.unescape(shown.group(1)) == expected


def test_inert_line_is_stable_and_one_line() -> None:
    for title in HOSTILE_TITLES.values():
        once = inert_line(title)
        assert "\n" not in once and inert_line(once) == once


@pytest.mark.parametrize("case", sorted(HOSTILE_TITLES))
def test_other_exports_keep_the_hostile_title_as_text(case: str) -> None:
    report = _report(HOSTILE_TITLES[case])
    page = export_report(report, "html").data.decode()
    head = page.split("</h1>", 1)[0]
    assert "<script" not in head and "<img" not in head and "<b>" not in head
    markdown = export_report(report, "markdown").data.decode()
    title_line = markdown.split("\n", 1)[0]
    assert title_line.startswith("# ") and not _SHORTCODE.search(title_line)
    for fmt in ("bibtex", "ris", "csl-json"):
        assert "injected\n" not in export_report(report, fmt).data.decode()


def test_source_fields_cannot_add_records_or_commands_to_the_bibliographies() -> None:
    """Titles, authors, venues and paths of sources are metadata too: each stays one
    value of one record in RIS (line-based) and BibTeX (brace-counted)."""
    rispy = pytest.importorskip("rispy")
    hostile = "Real\nER  - \nTY  - JOUR\nTI  - injected\n"
    source = Source(number=1, title=hostile + "}, note = {x", url="https://example.org/a",
                    canonical_url="https://example.org/a", snippet="text",
                    engine="openalex",
                    metadata={"authors": [hostile, "Ann \\input{/etc/passwd} Lee"],
                              "venue": hostile, "doi": "10.1/x\nER  - ", "year": 2024})
    report = ResearchResult(question="Q?", title=HOSTILE_TITLES["yaml break"],
                            answer="Text [1].", strategy="standard", handler="standard",
                            sources=[source])
    records = rispy.loads(export_report(report, "ris").data.decode())
    assert len(records) == 1 and "injected" not in records[0].get("type_of_reference", "")
    assert all("\n" not in str(value) for value in records[0].values())
    bib = export_report(report, "bibtex").data.decode()
    assert bib.count("@") == 1 and "\\input{" not in bib and "\nTI  - " not in bib
