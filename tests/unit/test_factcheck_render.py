"""A checked document shown: Markdown with verdicts and Sources, HTML escaped with the
evidence on hover, DOCX with one comment per claim, JSON in the issue's shape."""

from __future__ import annotations

import zipfile
from pathlib import Path

from deepcite.factcheck import check_json, render_docx, render_html, render_markdown
from deepcite.factcheck.render import annotate
from deepcite.types import ClaimEvidence, ClaimVerdict, ResearchResult, Source

DOCUMENT = ("# Draft <script>alert(1)</script>\n\n"
            "Refunds are accepted within 30 days. The sensor weighs 240 grams.\n\n"
            "The office is on the Moon.\n")


def _claim(number: int, text: str, verdict: str, note: str = "",
           cited: tuple[int, ...] = ()) -> ClaimVerdict:
    start = DOCUMENT.index(text)
    evidence = [ClaimEvidence(number=n, quote=QUOTES[n], start=0, end=len(QUOTES[n]))
                for n in cited]
    return ClaimVerdict(number=number, text=text, start=start, end=start + len(text),
                        verdict=verdict, citations=list(cited), evidence=evidence,  # type: ignore[arg-type]
                        note=note)


QUOTES = {1: "Refunds are accepted within 90 days <b>of</b> purchase.",
          2: "It weighs 240 grams."}
SOURCES = [Source(number=n, title=f"Doc {n} <img src=x onerror=alert(2)>",
                  url=f"file:///docs/{n}.md", canonical_url=f"file:///docs/{n}.md",
                  snippet=QUOTES[n], engine="local") for n in QUOTES]
CLAIMS = [
    _claim(1, "Refunds are accepted within 30 days.", "contradicted",
           "draft: 30 days; source [1]: 90 days", (1,)),
    _claim(2, "The sensor weighs 240 grams.", "supported", "stated by source [2]", (2,)),
    _claim(3, "The office is on the Moon.", "not_found", "no source states this"),
]
RESULT = ResearchResult(question="Draft", answer=annotate(DOCUMENT, CLAIMS), strategy="check",
                        handler="check", sources=SOURCES, claims=CLAIMS)


def test_markdown_marks_each_claim_and_ends_with_the_sources() -> None:
    text = render_markdown(RESULT)
    assert "within 30 days. [1] *(contradicted: draft: 30 days; source [1]: 90 days)*" in text
    assert "240 grams. [2] *(supported)*" in text
    assert "on the Moon. *(not found: no source states this)*" in text
    assert "<script>" not in text
    body, sources = text.split("## Sources")
    assert "[1] Doc 1" in sources and "[2] Doc 2" in sources
    assert "3 claims checked: 1 supported, 1 contradicted, 1 not found" in body


def test_html_escapes_everything_and_shows_the_evidence_on_focus() -> None:
    page = render_html(RESULT, DOCUMENT)
    assert "<script>" not in page and "<img" not in page and "<b>of</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'class="claim contradicted" id="claim-1" tabindex="0"' in page
    assert 'title="contradicted: draft: 30 days; source [1]: 90 days' in page
    assert "&lt;b&gt;of&lt;/b&gt; purchase." in page  # the quote, in the tooltip
    assert '<li id="source-1">[1] <a href="file:///docs/1.md">' in page
    assert ".claim:focus .tip" in page


def test_docx_has_one_comment_per_claim(tmp_path: Path) -> None:
    out = tmp_path / "checked.docx"
    render_docx(RESULT, DOCUMENT, out)
    with zipfile.ZipFile(out) as docx:
        comments = docx.read("word/comments.xml").decode()
        body = docx.read("word/document.xml").decode()
    assert comments.count("<w:comment ") == 3
    assert "contradicted: draft: 30 days; source [1]: 90 days" in comments
    assert "Refunds are accepted within 90 days" in comments
    assert body.count("commentRangeStart") == 3
    assert "Refunds are accepted within 30 days." in body


def test_json_is_the_issues_shape() -> None:
    data = check_json(RESULT, run_id="abc123")
    assert list(data) == ["id", "claims", "sources", "counts", "metrics", "warnings"]
    assert data["id"] == "abc123"
    first = data["claims"][0]  # type: ignore[index]
    assert list(first) == ["number", "text", "start", "end", "verdict", "citations",
                           "evidence", "note"]
    assert first["evidence"] == [{"number": 1, "quote": QUOTES[1]}]
    assert data["counts"] == {"supported": 1, "partly_supported": 0, "contradicted": 1,
                              "not_found": 1}
    assert [s["number"] for s in data["sources"]] == [1, 2]  # type: ignore[index]


def test_the_documents_own_citation_marks_are_not_taken_for_the_checks() -> None:
    document = "A report from another tool says refunds take 30 days [7]. Its sources: [7]."
    text = "A report from another tool says refunds take 30 days [7]."
    claim = ClaimVerdict(number=1, text=text, start=0, end=len(text), verdict="not_found",
                         note="no source states this")
    annotated = annotate(document, [claim])
    assert "[7]" not in annotated.replace("\\[7\\]", "")
    assert annotated.startswith("A report from another tool says refunds take 30 days \\[7\\]."
                                " *(not found: no source states this)*")
