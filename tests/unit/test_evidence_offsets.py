"""Evidence offsets are exact: for every citation check, ``text[start:end] == quote``
where ``text`` is the source's stored text (code points), the span starts and ends on
whole words, and what the popover and the viewer show is that very span, cleaned.

The sources are the awkward kind: accents, CJK, an emoji outside the BMP (two UTF-16
units, one code point), CRLF line ends, tabs and repeated spaces, reST roles and HTML
entities that the display cleans. The answers cite the way answers do: a marker after
each sentence ("... 305 [1]. csv - ... [1]."), quotes in their cleaned form, a word or
two changed (fuzzy).
"""

from __future__ import annotations

import re

import pytest

from deepcite.citations.display import display_text
from deepcite.citations.verify import verify
from deepcite.types import CitationCheck, ResearchResult, Source
from deepcite.web.pages._views import evidence
from deepcite.web.sources_view import source_view

CSV = ("csv - CSV File Reading and Writing\r\n"
       "==================================\r\n\r\n"
       "NAME\r\n    csv - CSV parsing and writing.\r\n\r\n"
       "DESCRIPTION\r\n    This module implements the interface described by PEP 305.  "
       "Use :func:`csv.reader` to read rows\r\n    from a file opened with "
       "``newline=''``.\tThe  reader   returns lists of strings.\r\n")
CAFE = ("Le café Été 😀 ouvre à 7 h 30 chaque matin. Les crêpes coûtent 4 €.\r\n"
        "The caf&eacute; &amp; bakery closes at 18:00 on Sundays.\r\n")
CJK = "斑马缓存的条目保留三百秒。\r\n过期的条目每分钟清理一次。缓存最多保存两千个条目。"


def _sources() -> list[Source]:
    return [Source(number=n, title=f"Doc {n}", url=f"https://docs.example/{n}",
                   canonical_url=f"https://docs.example/{n}", snippet=text, engine="web")
            for n, text in enumerate((CSV, CAFE, CJK), 1)]


ANSWER = (
    "This module implements the interface described by PEP 305 [1]. "
    "csv - CSV parsing and writing [1]. "
    "Use csv.reader to read rows from a file opened with newline='' [1]. "
    "The reader returns lists of string values [1].\n\n"
    "Le café Été 😀 ouvre à 7 h 30 chaque matin [2]. "
    "The café & bakery closes at 18:00 on Sundays [2].\n\n"
    "斑马缓存的条目保留三百秒 [3]。过期的条目每分钟清理一次 [3]。"
)

_WORD = re.compile(r"\w+")


def _checked(answer: str = ANSWER) -> tuple[list[Source], list[CitationCheck]]:
    sources = _sources()
    result = verify(answer, sources)
    checks = [c for c in result.citations if c.quote is not None]
    assert len(checks) >= 7, [c.sentence for c in result.citations]
    return sources, checks


def test_every_span_is_its_quote_in_the_stored_text() -> None:
    sources, checks = _checked()
    for check in checks:
        text = sources[(check.source_number or check.number) - 1].text
        assert check.start is not None and check.end is not None
        assert text[check.start:check.end] == check.quote


def test_spans_start_and_end_on_the_supporting_sentences_words() -> None:
    """No quote begins with the last letter of the word before ("E csv - ...") or part
    way into a word ("hen the ..."): its first and last words are the claim's."""
    sources, checks = _checked()
    for check in checks:
        assert check.quote and check.start is not None and check.end is not None
        text = sources[(check.source_number or check.number) - 1].text
        if not re.search(r"[\u3040-\u9fff]", check.quote):
            assert not (check.start and text[check.start - 1].isalnum()), check.quote
            assert not (check.end < len(text) and text[check.end].isalnum()), check.quote
        claim_words = _WORD.findall(display_text(check.sentence).text)
        shown_words = _WORD.findall(display_text(check.quote).text)
        assert shown_words[0] == claim_words[0], (check.sentence, check.quote)
        if check.method == "exact":
            assert shown_words[-1] == claim_words[-1], (check.sentence, check.quote)


def test_a_claim_starting_at_the_marker_before_is_quoted_from_its_first_word() -> None:
    _, checks = _checked()
    name = next(c for c in checks if "parsing and writing" in (c.quote or ""))
    assert name.quote == "csv - CSV parsing and writing"
    assert name.sentence.startswith("csv")


@pytest.mark.parametrize("claim", [
    "The reader returns lists of strings",
    "Le café Été 😀 ouvre à 7 h 30 chaque matin",
])
def test_a_fuzzy_or_partial_claim_never_cuts_a_word(claim: str) -> None:
    sources = _sources()
    changed = claim.replace("strings", "string").replace("chaque", "chaques")
    result = verify(f"See below. {changed} [1][2].", sources)
    quoted = [c for c in result.citations if c.quote]
    assert quoted
    for check in quoted:
        assert check.start is not None and check.end is not None
        text = sources[(check.source_number or check.number) - 1].text
        assert text[check.start:check.end] == check.quote
        assert not (check.start and text[check.start - 1].isalnum())
        assert not (check.end < len(text) and text[check.end].isalnum())


def _result() -> ResearchResult:
    sources, _ = _checked()
    checked = verify(ANSWER, sources)
    return ResearchResult(question="q", answer=checked.text, strategy="standard",
                          handler="standard", sources=sources,
                          citation_checks=checked.citations)


def test_the_popover_shows_each_checked_span_cleaned() -> None:
    result = _result()
    shown = {item.number: [quote for _, quote in item.quotes] for item in evidence(result)}
    assert "csv - CSV parsing and writing" in shown[1]
    assert "Use csv.reader to read rows from a file opened with newline=''" in shown[1]
    assert any(q.startswith("Le café Été 😀 ouvre") for q in shown[2])
    assert "The café & bakery closes at 18:00 on Sundays" in shown[2]
    assert "斑马缓存的条目保留三百秒" in shown[3][0]
    for quotes in shown.values():
        for quote in quotes:
            assert not re.match(r"\w\s", quote), quote  # never a stray letter first
            assert "\r" not in quote and "`" not in quote and "&amp;" not in quote


def test_the_viewer_marks_exactly_the_checked_spans() -> None:
    result = _result()
    for number, text in ((1, CSV), (2, CAFE), (3, CJK)):
        view = source_view("r", result, number)
        assert view is not None
        marked = [s.text for s in view.segments if s.marked]
        spans = [(c.start, c.end) for c in result.citation_checks
                 if c.quote and c.source_number == number]
        assert marked, number
        shown = display_text(text, keep_lines=True)
        expected = [shown.shown(a, b) for a, b in sorted(spans) if a is not None and b is not None]
        for mark in marked:  # merged spans: each mark holds whole checked spans
            assert any(part in mark for part in expected) and mark == mark.strip()
            assert "\r" not in mark
        data = view.as_json()
        for item in data["quotes"]:
            assert text[item["start"]:item["end"]] == item["quote"]
        for span in data["highlights"]:
            assert data["passage"][span["start"]:span["end"]] in marked


def test_a_result_put_together_from_parts_keeps_its_spans_true() -> None:
    """A detailed report's checks come from its parts; against the report's own sources
    a span that moved is found again, and one whose quote is gone loses its span."""
    from deepcite.citations.verify import anchored

    sources = _sources()
    at = CAFE.index("The caf&eacute;")
    quote = CAFE[at:at + 20]
    moved = CitationCheck(number=2, sentence="s", outcome="supported", method="exact",
                          source_number=2, start=at - 3, end=at + 17, quote=quote)
    gone = CitationCheck(number=1, sentence="s", outcome="partial", method="fuzzy",
                         source_number=1, start=0, end=5, quote="nowhere")
    fixed = anchored([moved, gone], sources)
    assert (fixed[0].start, fixed[0].end) == (at, at + 20)
    assert fixed[1].outcome == "partial" and fixed[1].quote is None and fixed[1].start is None


def test_a_name_with_underscores_is_quoted_whole() -> None:
    text = "Options:\n        strict_parsing: flag indicating what to do with parsing errors.\n"
    source = Source(number=1, title="t", url="https://e.org", canonical_url="",
                    snippet=text, engine="web")
    checked = verify("strict_parsing: flag indicating what to do with errors [1].", [source])
    check = checked.citations[0]
    assert check.quote is not None and check.quote.startswith("strict_parsing: flag")
    assert text[check.start:check.end] == check.quote


ZEBRA = ("斑马缓存说明\r\n\r\n"
         "本文说明斑马缓存的设置。缓存条目默认保留三百秒。超过时间后条目会被删除。\r\n")
SHIMAUMA = ("キャッシュの設定\r\n\r\n「キャッシュの項目は三百秒保持されます」と書かれています。"
            "期限切れの項目は毎分削除されます。\r\n")


@pytest.mark.parametrize(("text", "answer", "quote"), [
    # a space left before the marker ("三百秒 [1]。", as small models write)
    (ZEBRA, "缓存条目默认保留三百秒 [1]。", "缓存条目默认保留三百秒。"),
    (ZEBRA, "本文说明斑马缓存的设置 [1]。", "本文说明斑马缓存的设置。"),
    # a claim one character longer than its source sentence (fuzzy)
    (ZEBRA, "缓存条目默认会保留三百秒[1]。", "缓存条目默认保留三百秒。"),
    (ZEBRA, "缓存的条目默认保留三百秒[1]。", "缓存条目默认保留三百秒。"),
    # a passage the source puts in brackets, cited without them
    (SHIMAUMA, "キャッシュの項目は三百秒保持されます [1]。",
     "キャッシュの項目は三百秒保持されます"),
])
def test_a_cjk_quote_is_its_own_sentence(text: str, answer: str, quote: str) -> None:
    """CJK has no spaces: a quote one character too long would take the first character
    of the next sentence ("保留三百秒。超") or a bracket the claim lacks, and the popover
    and the viewer would show it."""
    source = Source(number=1, title="缓存", url="https://docs.example/cache",
                    canonical_url="", snippet=text, engine="web")
    check = verify(answer, [source]).citations[0]
    assert check.outcome == "supported" and check.quote == quote
    assert check.start is not None and text[check.start:check.end] == quote
    result = ResearchResult(question="缓存条目保留多久？", answer=answer, strategy="standard",
                            handler="standard", sources=[source], citation_checks=[check])
    assert evidence(result)[0].quotes == [("supported", quote)]
    view = source_view("r", result, 1)
    assert view is not None and [s.text for s in view.segments if s.marked] == [quote]
