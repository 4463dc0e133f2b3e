"""The evidence popover and the source viewer show exactly the checked span, in a real
headless Chromium, for a French source with CRLF line ends, accents, HTML entities and
an emoji outside the BMP (two UTF-16 units in the page's JavaScript, one code point in
Python), and a Japanese one: no spaces, full-width brackets and stops, an emoji too.

The run is stored straight into the served app's history by
:func:`tests.browser.support.stored_run` (researched and verified as every run is, the
model's answer fixed), so no model is needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepcite.citations.display import display_text
from deepcite.types import ResearchResult
from tests.browser.support import serving, stored_run
from tests.fakes import passage

pytestmark = [pytest.mark.integration, pytest.mark.browser]

TEXT = ("Horaires du café\r\n================\r\n\r\n"
        "Le café Été 😀 ouvre à 7 h 30 chaque matin.\r\n"
        "Les crêpes coûtent 4 €.\tThe caf&eacute; &amp; bakery closes at 18:00.\r\n"
        "斑马缓存的条目保留三百秒。\r\n")
KANJI = ("キャッシュの設定 🦓\r\n\r\n"
         "この文書はシマウマ・キャッシュの設定を説明します。"
         "「キャッシュの項目は三百秒保持されます」と書かれています。期限切れの項目は毎分削除されます。\r\n")
ANSWER = ("Le café Été 😀 ouvre à 7 h 30 chaque matin [{cafe}]. "
          "The café & bakery closes at 18:00 [{cafe}]. "
          "キャッシュの項目は三百秒保持されます [{kanji}]。"
          "期限切れの項目は毎分削除されます [{kanji}]。")
#: Each source's title, text and what its citations quote, first to last character.
SOURCES = {"cafe": ("Horaires du café", TEXT,
                    ["Le café Été 😀 ouvre à 7 h 30 chaque matin",
                     "The café & bakery closes at 18:00"]),
           "kanji": ("キャッシュの設定 (café)", KANJI,
                     ["キャッシュの項目は三百秒保持されます",
                      "期限切れの項目は毎分削除されます。"])}
#: Source number -> (text, quotes), as the stored run numbered them.
Numbered = dict[int, tuple[str, list[str]]]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory, playwright_api: Any
           ) -> Iterator[tuple[str, str, ResearchResult, Numbered]]:
    """A served app whose history holds one verified run; its base URL, run id, result
    and what each of its sources' citations quote."""
    data_dir: Path = tmp_path_factory.mktemp("offsets-data")
    run_id, result = stored_run(
        data_dir, "Quand ouvre le café, et combien de temps la キャッシュ garde-t-elle ses "
        "entrées ?", {key: passage(title, text) for key, (title, text, _) in SOURCES.items()},
        ANSWER)
    by_title = {title: (text, quotes) for title, text, quotes in SOURCES.values()}
    numbered = {s.number: by_title[s.title] for s in result.sources}
    with serving(data_dir) as base:
        yield base, run_id, result, numbered


def _expected(result: ResearchResult, number: int, text: str, *, keep_lines: bool
              ) -> list[str]:
    shown = display_text(text, keep_lines=keep_lines)
    return [shown.shown(c.start, c.end) for c in result.citation_checks
            if c.source_number == number and c.start is not None and c.end is not None]


def test_the_popover_quotes_the_checked_span(
        page: Any, stored: tuple[str, str, ResearchResult, Numbered]) -> None:
    base, run_id, result, numbered = stored
    page.goto(f"{base}/reports/{run_id}")
    for number, (text, quotes) in numbered.items():
        page.locator(f".report-body a.cite[data-evidence='{number}']").first.click()
        box = page.locator(".evidence:visible")
        assert box.count() == 1 and box.get_attribute("id") == f"evidence-{number}"
        # the text beside the outcome label of each quote: ' “QUOTE”'
        shown = box.evaluate("""box => Array.from(box.querySelectorAll('blockquote'))
            .map(quote => Array.from(quote.childNodes)
              .filter(node => node.nodeType === Node.TEXT_NODE)
              .map(node => node.textContent).join(''))""")
        assert shown == [f" “{quote}”" for quote in quotes]
        assert quotes == _expected(result, number, text, keep_lines=False)
        page.keyboard.press("Escape")


def test_the_viewer_marks_from_the_first_to_the_last_character(
        page: Any, stored: tuple[str, str, ResearchResult, Numbered]) -> None:
    base, run_id, result, numbered = stored
    for number, (text, quotes) in numbered.items():
        page.goto(f"{base}/runs/{run_id}/sources/{number}")
        # What the browser holds (UTF-16 strings): each mark and the passage text before it.
        found = page.evaluate("""() => Array.from(document.querySelectorAll('.passage mark'))
            .map(mark => {
              const range = document.createRange();
              range.setStart(document.querySelector('.passage'), 0);
              range.setEndBefore(mark);
              return [range.toString(), mark.textContent];
            })""")
        passage_text = display_text(text, keep_lines=True).text
        marks = [mark for _, mark in found]
        assert marks == quotes
        assert marks == _expected(result, number, text, keep_lines=True)
        for before, mark in found:
            assert passage_text.startswith(before + mark)  # the mark sits where the span is
            assert not before or not before[-1].isalnum()
