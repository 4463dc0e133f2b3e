"""The Sources block (ordering, entry shapes) and in-text citation hyperlinks."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from deepcite.citations.hyperlinks import MODES, hyperlink, registrable_domain, source_tag
from deepcite.citations.render import EntryLike, answer_body, normalise, render_sources
from deepcite.types import Source

GH_A = {"number": 1, "title": "Repo A", "url": "https://github.com/a/a"}
GH_B = {"number": 2, "title": "Repo B", "url": "https://github.com/b/b"}
ARXIV = {"number": 3, "title": "Paper", "url": "https://arxiv.org/abs/2401.00001"}
ENTRIES = [GH_A, GH_B, ARXIV]


def _source(number: int, url: str, title: str = "T", engine: str = "duckduckgo",
            **metadata: Any) -> Source:
    return Source(number=number, title=title, url=url, canonical_url=url, snippet="s",
                  engine=engine, metadata=metadata)


# ------------------------------------------------------------------------ render_sources


def test_render_orders_by_first_citation_then_uncited_by_number() -> None:
    entries = [*ENTRIES, {"number": 4, "title": "Unused", "url": "https://u.org/"}]
    block = render_sources(entries, text="Start [3]. Then [2, 1].\n\n## Sources\n[4] x")
    titles = [line.split("] ", 1)[1].split(" (")[0] for line in block.split("\n")
              if line.startswith("[")]
    assert titles == ["Paper", "Repo B", "Repo A", "Unused"]
    assert render_sources(entries).startswith("[1] Repo A (source nr: 1)")


def test_render_groups_by_canonical_url_sorting_and_deduplicating_numbers() -> None:
    entries = [
        {"number": 4, "title": "Guide", "url": "https://x.org/guide"},
        {"number": 1, "title": "Guide first", "url": "https://X.org/guide/?utm_source=a"},
        {"number": 4, "title": "Duplicate number", "url": "https://x.org/other"},
    ]
    assert render_sources(entries) == (
        "[1, 4] Guide first (source nr: 1, 4)\n   URL: https://X.org/guide/?utm_source=a")


def test_render_accepts_mappings_and_sources_alike() -> None:
    local = {"number": 1, "title": "Paper", "url": "file:///d/paper.pdf#page=3",
             "collection": "papers", "page": 3, "path": "/d/paper.pdf"}
    from_source = _source(2, "file:///d/paper.pdf#page=5", title="Paper", engine="local",
                          collection="papers", page=5, path="/d/paper.pdf")
    assert render_sources([local, from_source]) == (
        "[1, 2] Paper (source nr: 1, 2)\n   URL: file:///d/paper.pdf#page=3\n"
        "   Collection: papers · paper.pdf, pp. 3, 5")
    assert normalise({"number": 7, "title": "t", "url": "https://a.org",
                      "metadata": {"page": 2}}).page == 2


def test_a_chinese_answers_sources_block_has_no_english_label() -> None:
    """Every label of an entry is in the question's language, the entry's numbers and
    pages included: a Chinese reader sees no "source nr" or "pp."."""
    local = {"number": 1, "title": "手册", "url": "file:///d/manual.pdf#page=3",
             "collection": "手册", "page": 3, "path": "/d/manual.pdf"}
    other = dict(local, number=2, page=5, url="file:///d/manual.pdf#page=5")
    assert render_sources([local, other], language="zh") == (
        "[1, 2] 手册（来源编号：1, 2）\n   网址：file:///d/manual.pdf#page=3\n"
        "   资料集：手册 · manual.pdf, 第 3, 5 页")


def test_render_skips_entries_without_url_and_empty_gives_empty() -> None:
    assert render_sources([{"number": 1, "title": "No URL", "url": ""}]) == ""
    assert render_sources([]) == ""
    assert render_sources([], text="Text [1].") == ""


@pytest.mark.parametrize("heading", ["## Sources", "# References", "### bibliography",
                                     "#### Citations", "## SOURCES:"])
def test_answer_body_splits_at_every_heading_variant(heading: str) -> None:
    text = f"Body [1].\n\n{heading}\n[1] x"
    assert answer_body(text) == ("Body [1].\n\n", f"{heading}\n[1] x")


def test_answer_body_ignores_headings_in_code_and_in_prose() -> None:
    text = "Sources are good [1].\n```\n## Sources\n```\nEnd."
    assert answer_body(text) == (text, "")


# ------------------------------------------------------------------------------ hyperlink


def test_number_mode_links_each_number_adjacently() -> None:
    assert hyperlink("See [1, 2].", ENTRIES) == (
        "See [[1]](https://github.com/a/a)[[2]](https://github.com/b/b).")


def test_unknown_numbers_stay_plain_text() -> None:
    assert hyperlink("A [9]. B [1, 9].", ENTRIES) == (
        "A [9]. B [[1]](https://github.com/a/a)[9].")


@pytest.mark.parametrize("heading", ["## Sources", "# References", "### Bibliography",
                                     "## citations"])
def test_text_after_the_sources_heading_is_untouched(heading: str) -> None:
    tail = f"{heading}\n\n[1] Repo A (source nr: 1)\n   URL: https://github.com/a/a"
    assert hyperlink(f"Fact [1].\n\n{tail}", ENTRIES) == (
        f"Fact [[1]](https://github.com/a/a).\n\n{tail}")


def test_code_spans_and_blocks_are_untouched() -> None:
    text = "Use `xs[1]` here [1].\n```python\nys[2] = 3\n```\n"
    assert hyperlink(text, ENTRIES) == (
        "Use `xs[1]` here [[1]](https://github.com/a/a).\n```python\nys[2] = 3\n```\n")


def test_hyperlinking_twice_changes_nothing() -> None:
    once = hyperlink("A [1] and [see](https://x.org) [2](https://y.org).", ENTRIES)
    assert hyperlink(once, ENTRIES) == once


def test_domain_mode_uses_registrable_domain_and_file_names() -> None:
    entries = [{"number": 1, "title": "t", "url": "https://www.bbc.co.uk/news/1"},
               {"number": 2, "title": "t", "url": "file:///data/my%20paper.pdf#page=2"}]
    assert hyperlink("A [1] B [2]", entries, "domain") == (
        "A [[bbc.co.uk]](https://www.bbc.co.uk/news/1) "
        "B [[my paper.pdf]](file:///data/my%20paper.pdf#page=2)")


def test_domain_id_suffixes_only_repeated_domains_in_first_cited_order() -> None:
    assert hyperlink("X [2]. Y [3]. Z [1].", ENTRIES, "domain-id") == (
        "X [[github.com-1]](https://github.com/b/b). Y [[arxiv.org]](https://arxiv.org/abs/2401.00001)."
        " Z [[github.com-2]](https://github.com/a/a).")
    # Only cited sources count: with [2] uncited, github.com no longer repeats.
    assert hyperlink("Z [1].", ENTRIES, "domain-id") == "Z [[github.com]](https://github.com/a/a)."


def test_domain_id_always_suffixes_every_domain() -> None:
    assert hyperlink("Y [3]. Z [1][2].", ENTRIES, "domain-id-always") == (
        "Y [[arxiv.org-1]](https://arxiv.org/abs/2401.00001). "
        "Z [[github.com-1]](https://github.com/a/a)[[github.com-2]](https://github.com/b/b).")


def test_source_tagged_uses_engine_domain_or_metadata_and_the_global_number() -> None:
    entries: list[EntryLike] = [
        _source(1, "https://api.example/x", engine="semantic_scholar"),
        _source(2, "https://en.wikipedia.org/wiki/X"),
        _source(3, "https://publisher.example/p", doi="10.1/x"),
        _source(4, "https://github.com/a"),
        {"number": 5, "title": "t", "url": "file:///d/a.pdf", "collection": "c"},
    ]
    assert [source_tag(normalise(e)) for e in entries] == ["s2", "wikipedia", "doi", "web",
                                                           "local"]
    assert hyperlink("A [3]", ENTRIES, "source-tagged") == (
        "A [[arxiv-3]](https://arxiv.org/abs/2401.00001)")


def test_none_mode_returns_text_unchanged() -> None:
    assert hyperlink("A [1, 2] B", ENTRIES, "none") == "A [1, 2] B"


def test_unknown_mode_lists_the_modes() -> None:
    with pytest.raises(ValueError, match="domain-id-always") as caught:
        hyperlink("A [1]", ENTRIES, "bogus")
    assert all(mode in str(caught.value) for mode in MODES)


def test_urls_and_labels_are_escaped_for_markdown() -> None:
    entries = [{"number": 1, "title": "t", "url": "https://w.org/a_(b)"},
               {"number": 2, "title": "t", "url": "file:///d/draft%20[v2].pdf"}]
    assert hyperlink("A [1] B [2]", entries, "domain") == (
        "A [[w.org]](https://w.org/a_%28b%29) B [[draft \\[v2\\].pdf]](file:///d/draft%20[v2].pdf)")


def test_registrable_domain_works_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepcite.citations import hyperlinks

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network used")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    hyperlinks._extractor.cache_clear()
    assert registrable_domain("https://x.co.uk/a") == "x.co.uk"
    assert registrable_domain("https://a.b.x.co.uk:8443/") == "x.co.uk"
    assert registrable_domain("http://localhost:8000/x") == "localhost"
