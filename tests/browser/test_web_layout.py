"""Layout on a laptop and a phone: table cells keep their words whole (issue 47, item 7),
and "Start research" is not screens below the question on a phone (item 12).

On a 1280 px wide window the history table had "De/let/e" and "complet/ed" broken over
lines, squeezed into the reading column. Measured in real Chromium: each one-word cell
and the Delete button take one line, and the table may use more than the column.
"""

from __future__ import annotations

from typing import Any

from tests.browser.support import research

#: How many boxes (lines) each short cell of the first history row is drawn in.
_LINES = """() => {
  const row = document.querySelector("table.runs tbody tr");
  const lines = (node) => { const range = document.createRange();
    range.selectNodeContents(node); return range.getClientRects().length; };
  const cells = [...row.querySelectorAll("td[data-label]")].filter(
    (td) => td.innerText.trim() && !td.innerText.trim().includes(" "));
  return {
    cells: cells.map((td) => [td.dataset.label, td.innerText.trim(), lines(td)]),
    when: lines(row.querySelector("td")),
    remove: row.querySelector("a.button").getClientRects().length,
    width: document.querySelector("main").getBoundingClientRect().width,
  };
}"""


def test_history_cells_keep_their_words_whole_on_a_laptop(server: str, page: Any,
                                                          browser: Any) -> None:
    research(page, server, "Where do we keep the cache for the table check?", "xss")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        wide = context.new_page()
        wide.goto(server + "/history")
        drawn = wide.evaluate(_LINES)
    finally:
        context.close()
    assert {label for label, _, _ in drawn["cells"]} >= {"Mode", "Status"}, drawn
    assert all(count == 1 for _, _, count in drawn["cells"]), drawn
    assert drawn["when"] == 1 and drawn["remove"] == 1, drawn
    assert drawn["width"] > 52 * 16, drawn  # wider than the reading column on this page


def test_start_research_is_near_the_question_on_a_phone(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        phone = context.new_page()
        phone.goto(server + "/")
        phone.click("summary:has-text('Sources and model')")
        folded = phone.locator("details.unavailable-engines")
        drawn = phone.evaluate("""() => ({
          start: document.querySelector("form button[type=submit]")
                   .getBoundingClientRect().top + window.scrollY,
          question: document.querySelector("textarea[name=question]")
                   .getBoundingClientRect().top + window.scrollY})""")
        # engines that cannot run are listed, folded, with their reasons
        assert folded.count() == 1 and folded.get_attribute("open") is None
        assert folded.locator("input[disabled]").count() >= 1
    finally:
        context.close()
    assert drawn["start"] - drawn["question"] < 2 * 844, drawn
