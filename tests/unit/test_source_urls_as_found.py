"""Sources are grouped by canonical URL but shown and linked with the URL they were found at.

A reader who clicks a source must open the page that was read: the tracking parameter
or fragment a page was found with is part of that (a fragment may be the section that
was read), so only the key that tells two copies apart drops them.
"""

from __future__ import annotations

from deepcite.citations.hyperlinks import hyperlink
from deepcite.citations.numbering import SourceNumbering
from deepcite.citations.render import render_sources
from deepcite.export import ExportOptions, export_report
from deepcite.export.pandoc import local_sources
from deepcite.types import ResearchResult, SearchResult, Source

FOUND = "https://example.com/a?utm_source=x#frag"
CANONICAL = "https://example.com/a"
LOCAL = "file:///data/paper.pdf"


def _result(url: str, snippet: str = "The passage that was read.", **meta: object
            ) -> SearchResult:
    return SearchResult(title="Page A", url=url, snippet=snippet, engine="duckduckgo",
                        metadata=dict(meta))


def _sources() -> list[Source]:
    """The page found with tracking and fragment first, then again without them."""
    numbering = SourceNumbering()
    first = numbering.add(_result(FOUND))
    again = numbering.add(_result(CANONICAL))
    assert again is first  # the second copy is the same passage: deduplicated into it
    return numbering.sources()


def _report(sources: list[Source], answer: str = "Page A says so [1].") -> ResearchResult:
    return ResearchResult(question="What does page A say?", answer=answer,
                          strategy="source-based", handler="standard", sources=sources)


def test_second_copy_is_deduplicated_and_the_first_url_is_kept() -> None:
    sources = _sources()
    assert len(sources) == 1
    assert sources[0].url == FOUND and sources[0].canonical_url == CANONICAL


def test_sources_block_shows_the_url_as_found() -> None:
    block = render_sources(_sources())
    assert block == f"[1] Page A (source nr: 1)\n   URL: {FOUND}"


def test_two_passages_of_one_page_are_one_entry_showing_the_first_url() -> None:
    numbering = SourceNumbering()
    numbering.add(_result(FOUND))
    numbering.add(_result("https://EXAMPLE.com/a/?utm_medium=y", snippet="Another passage."))
    block = render_sources(numbering.sources(), text="A [2]. B [1].")
    assert block == f"[1, 2] Page A (source nr: 1, 2)\n   URL: {FOUND}"


def test_in_text_links_open_the_url_as_found() -> None:
    linked = hyperlink("Page A says so [1].", _sources())
    assert linked == f"Page A says so [[1]]({FOUND})."


def test_markdown_export_lists_and_links_the_url_as_found() -> None:
    text = export_report(_report(_sources()), "markdown",
                         ExportOptions(links="number")).data.decode()
    assert f"[[1]]({FOUND})" in text
    assert f"   URL: {FOUND}" in text
    assert f"URL: {CANONICAL}\n" not in text


def test_html_export_lists_and_links_the_url_as_found() -> None:
    page = export_report(_report(_sources()), "html").data.decode()
    escaped = FOUND.replace("&", "&amp;")
    assert f'class="source-title" href="{escaped}"' in page
    assert f'<span class="source-url">{escaped}</span>' in page


def test_a_url_outside_the_allow_list_is_shown_as_text_not_linked() -> None:
    bad = Source(number=1, title="Odd", url="javascript:alert(1)",
                 canonical_url="javascript:alert(1)", snippet="s", engine="web")
    page = export_report(_report([bad]), "html").data.decode()
    assert 'href="javascript' not in page
    assert '<a class="source-title" rel="noopener noreferrer">Odd</a>' in page  # text
    assert hyperlink("x [1].", [bad]) == "x \\[1\\]."


def test_local_pdf_pages_keep_their_page_links_and_one_entry() -> None:
    numbering = SourceNumbering()
    numbering.add(SearchResult(title="Paper", url=f"{LOCAL}#page=3", snippet="Page three.",
                               engine="local", metadata={"collection": "papers", "page": 3,
                                                         "path": "/data/paper.pdf"}))
    numbering.add(SearchResult(title="Paper", url=f"{LOCAL}#page=5", snippet="Page five.",
                               engine="local", metadata={"collection": "papers", "page": 5,
                                                         "path": "/data/paper.pdf"}))
    sources = numbering.sources()
    assert render_sources(sources) == (
        f"[1, 2] Paper (source nr: 1, 2)\n   URL: {LOCAL}#page=3\n"
        "   Collection: papers · paper.pdf, pp. 3, 5")
    linked = hyperlink("Three [1], five [2].", sources)
    assert linked == f"Three [[1]]({LOCAL}#page=3), five [[2]]({LOCAL}#page=5)."
    assert local_sources(_report(sources)) >= {f"{LOCAL}#page=3", f"{LOCAL}#page=5"}


def test_bibliography_records_carry_the_url_as_found() -> None:
    text = export_report(_report(_sources()), "ris").data.decode()
    assert FOUND in text
