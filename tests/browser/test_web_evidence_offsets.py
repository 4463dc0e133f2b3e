"""The evidence popover and the source viewer show exactly the checked span, in a real
headless Chromium, for a source with CRLF line ends, accents, an emoji outside the BMP
(two UTF-16 units in the page's JavaScript, one code point in Python) and CJK.

The run is stored straight into the served app's history (its answer verified by
:func:`deepcite.citations.verify.verify`, as every run is), so no model is needed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepcite.citations.display import display_text
from deepcite.citations.verify import verify
from deepcite.config import load_settings
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult, Source
from tests.browser.support import serving

pytestmark = [pytest.mark.integration, pytest.mark.browser]

TEXT = ("Horaires du café\r\n================\r\n\r\n"
        "Le café Été 😀 ouvre à 7 h 30 chaque matin.\r\n"
        "Les crêpes coûtent 4 €.\tThe caf&eacute; &amp; bakery closes at 18:00.\r\n"
        "斑马缓存的条目保留三百秒。\r\n")
ANSWER = ("Le café Été 😀 ouvre à 7 h 30 chaque matin [1]. "
          "The café & bakery closes at 18:00 [1].")


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory, playwright_api: Any
           ) -> Iterator[tuple[str, str, ResearchResult]]:
    """A served app whose history holds one verified run; its base URL and run id."""
    data_dir: Path = tmp_path_factory.mktemp("offsets-data")
    settings = load_settings({"data_dir": str(data_dir)}, config_files=[], environ={})
    source = Source(number=1, title="Horaires", url="https://cafe.example/horaires",
                    canonical_url="https://cafe.example/horaires", snippet=TEXT,
                    engine="web")
    checked = verify(ANSWER, [source])
    assert [c.outcome for c in checked.citations] == ["supported", "supported"]
    result = ResearchResult(question="Quand ouvre le café ?", answer=checked.text,
                            strategy="standard", handler="standard", sources=[source],
                            citation_checks=checked.citations)
    with HistoryStore.open(settings) as store:
        run_id = store.begin(result.question, mode="quick", settings=settings)
        store.finish(run_id, result)
    with serving(data_dir) as base:
        yield base, run_id, result


def _expected(result: ResearchResult, *, keep_lines: bool) -> list[str]:
    shown = display_text(TEXT, keep_lines=keep_lines)
    return [shown.shown(c.start, c.end) for c in result.citation_checks
            if c.start is not None and c.end is not None]


def test_the_popover_quotes_the_checked_span(page: Any,
                                             stored: tuple[str, str, ResearchResult]) -> None:
    base, run_id, result = stored
    page.goto(f"{base}/reports/{run_id}")
    page.locator(".report-body a.cite").first.click()
    box = page.locator(".evidence:visible")
    assert box.count() == 1
    quotes = [re.sub(r"^\s*\w+\s*“|”\s*$", "", text)
              for text in box.locator("blockquote").all_inner_texts()]
    assert quotes == ["Le café Été 😀 ouvre à 7 h 30 chaque matin",
                      "The café & bakery closes at 18:00"]
    assert quotes == _expected(result, keep_lines=False)


def test_the_viewer_marks_from_the_first_to_the_last_character(
        page: Any, stored: tuple[str, str, ResearchResult]) -> None:
    base, run_id, result = stored
    page.goto(f"{base}/runs/{run_id}/sources/1")
    # What the browser holds (UTF-16 strings): each mark and the passage text before it.
    found = page.evaluate("""() => Array.from(document.querySelectorAll('.passage mark'))
        .map(mark => {
          const range = document.createRange();
          range.setStart(document.querySelector('.passage'), 0);
          range.setEndBefore(mark);
          return [range.toString(), mark.textContent];
        })""")
    passage = display_text(TEXT, keep_lines=True).text
    marks = [mark for _, mark in found]
    assert marks == _expected(result, keep_lines=True)
    assert marks[0].startswith("Le café Été 😀") and marks[1].endswith("18:00")
    for before, mark in found:
        assert passage.startswith(before + mark)  # the mark sits where the span is
        assert not before or not before[-1].isalnum()
