"""The report page as a workspace, in a real headless Chromium: the source viewer and
its document, follow-up, run again and compare, the contents of a detailed report
linked - with the bundled model and the demo collection (nothing faked) - and one
popover at a time closed by Esc, each quoting exactly its cited sentence, over a stored
run whose answer is fixed (:func:`tests.browser.support.stored_run`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.support import QUESTION, open_sources, research, serving, stored_run
from tests.fakes import passage

pytestmark = [pytest.mark.integration, pytest.mark.browser]

REPORT = re.compile(r".*/reports/[0-9a-f]{32}$")


def _report(page: Any, server: str, question: str = QUESTION) -> str:
    research(page, server, question, "demo")
    page.wait_for_url(REPORT, timeout=300_000)
    page.wait_for_selector("a.cite")
    return str(page.url)


def test_a_citation_opens_its_passage_and_the_document_without_javascript(
        browser: Any, server: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(server + "/")
        page.fill("textarea[name=question]", QUESTION)
        open_sources(page)
        page.check("input[name=collections][value=demo]")
        page.click("form button[type=submit]")
        for _ in range(300):  # the run page reloads itself every few seconds
            if REPORT.match(page.url):
                break
            page.wait_for_timeout(1000)
            page.reload()
        assert REPORT.match(page.url), page.url
        citation = page.locator(".report-body a.cite").first
        href = citation.get_attribute("href") or ""
        assert re.search(r"/runs/[0-9a-f]{32}/sources/\d+$", href), href
        citation.click()  # no script: the link itself goes to the viewer
        page.wait_for_url(re.compile(r".*/sources/\d+$"))
        assert page.locator("mark").count() >= 1  # the cited quote, highlighted
        document = page.locator("a[href$='/document']").first
        url = server + (document.get_attribute("href") or "")
        served = page.request.get(url)
        assert served.status == 200 and served.headers["x-content-type-options"] == "nosniff"
        assert len(served.body()) > 0
        outside = page.request.get(url.replace("/document", "/../../etc/passwd"))
        assert outside.status != 200 or b"root:" not in outside.body()
    finally:
        context.close()


# A German source and a Chinese one, each cited once, the way small models cite: the
# German sentence stands after another on its line and after an emoji outside the BMP
# (two UTF-16 units in the page, one code point in Python), with CRLF line ends; the
# Chinese one has no space on either side, and the answer leaves a space before its
# marker ("三百秒 [n]。").
BAKERY = ("Öffnungszeiten der Bäckerei 🥨\r\n\r\n"
          "Die Bäckerei „Süße Ähre“ liegt am Marktplatz. "
          "Übrigens öffnet die Bäckerei samstags schon um 6 Uhr früh.\r\n"
          "Brötchen kosten 0,45 €.\r\n")
ZEBRA = ("斑马缓存说明\r\n\r\n"
         "本文说明斑马缓存的设置。缓存条目默认保留三百秒。超过时间后条目会被删除。\r\n")
ANSWER = ("Übrigens öffnet die Bäckerei samstags schon um 6 Uhr früh [{bakery}]. "
          "缓存条目默认保留三百秒 [{zebra}]。")
#: What each source's citation quotes: its cited sentence, first to last character;
#: and the text just around it in the viewer's passage.
CITED = {"Bäckerei opening hours": ("Übrigens öffnet die Bäckerei samstags schon um 6 Uhr früh",
                                    "liegt am Marktplatz. ", ".\nBrötchen"),
         "Zebra cache 斑马缓存": ("缓存条目默认保留三百秒。", "本文说明斑马缓存的设置。",
                                 "超过时间")}


@pytest.fixture(scope="module")
def two_sources(tmp_path_factory: pytest.TempPathFactory, playwright_api: Any
                ) -> Iterator[tuple[str, str, dict[int, tuple[str, str, str]]]]:
    """A served app whose history holds one run citing both sources: its base URL, the
    run id, and for each source number what its citation quotes (see ``CITED``)."""
    data_dir = tmp_path_factory.mktemp("popover-data")
    run_id, result = stored_run(
        data_dir, "When does the Bäckerei open, and how long does the zebra cache keep "
        "entries?", {"bakery": passage("Bäckerei opening hours", BAKERY),
                     "zebra": passage("Zebra cache 斑马缓存", ZEBRA)}, ANSWER)
    cited = {s.number: CITED[s.title] for s in result.sources}
    with serving(data_dir) as base:
        yield base, run_id, cited


_QUOTES = """box => Array.from(box.querySelectorAll('blockquote')).map(quote =>
    Array.from(quote.childNodes).filter(node => node.nodeType === Node.TEXT_NODE)
      .map(node => node.textContent).join(''))"""


def test_one_popover_at_a_time_quoting_its_sentence_closed_by_escape_keeping_the_scroll(
        page: Any, two_sources: tuple[str, str, dict[int, tuple[str, str, str]]]) -> None:
    base, run_id, cited = two_sources
    page.goto(f"{base}/reports/{run_id}")
    citations = page.locator(".report-body a.cite")
    numbers = [int(citations.nth(i).get_attribute("data-evidence") or 0)
               for i in range(citations.count())]
    assert sorted(numbers) == sorted(cited)  # one citation of each source
    for at, number in enumerate(numbers):
        citations.nth(at).click()  # the second click opens the other source's popover
        box = page.locator(".evidence:visible")
        assert box.count() == 1
        assert box.get_attribute("id") == f"evidence-{number}"
        # the text around the outcome label: ' “QUOTE”', nothing more or less
        assert box.evaluate(_QUOTES) == [f" “{cited[number][0]}”"]
    scrolled = page.evaluate("window.scrollY")
    history = page.evaluate("history.length")
    page.keyboard.press("Escape")
    assert page.locator(".evidence:visible").count() == 0
    assert page.evaluate("window.scrollY") == scrolled
    assert page.evaluate("history.length") == history


_FOCUS = """() => { const el = document.activeElement; const box = el && el.closest('.evidence');
    return {box: box ? box.id : null, cite: el && el.matches('a.cite') ? el.dataset.evidence : null,
            name: box ? document.getElementById(box.getAttribute('aria-labelledby')).textContent
                      : null}; }"""


def test_enter_on_a_citation_moves_focus_into_its_popover_and_escape_brings_it_back(
        page: Any, two_sources: tuple[str, str, dict[int, tuple[str, str, str]]]) -> None:
    base, run_id, cited = two_sources
    page.goto(f"{base}/reports/{run_id}")
    citations = page.locator(".report-body a.cite")
    numbers = [citations.nth(i).get_attribute("data-evidence") or ""
               for i in range(citations.count())]
    assert sorted(int(n) for n in numbers) == sorted(cited)  # each source's popover tried
    for at, number in enumerate(numbers):
        citations.nth(at).focus()  # reached by keyboard: no pointer involved
        page.keyboard.press("Enter")
        assert page.locator(".evidence:visible").count() == 1
        focus = page.evaluate(_FOCUS)
        assert focus["box"] == f"evidence-{number}"  # focus is inside the open popover
        assert focus["name"].startswith(f"[{number}]")  # named by its title
        page.keyboard.press("Escape")
        assert page.locator(".evidence:visible").count() == 0
        assert page.evaluate(_FOCUS) == {"box": None, "cite": number, "name": None}
    # Tab from the citation then Enter on the popover's close button: focus comes back too
    citations.first.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "close"
    page.keyboard.press("Enter")
    assert page.locator(".evidence:visible").count() == 0
    assert page.evaluate(_FOCUS)["cite"] == citations.first.get_attribute("data-evidence")
    # a mouse click leaves focus where it is (no jump for pointer users)
    citations.first.click()
    assert page.evaluate(_FOCUS)["box"] is None


def test_the_viewer_marks_exactly_each_cited_sentence(
        page: Any, two_sources: tuple[str, str, dict[int, tuple[str, str, str]]]) -> None:
    base, run_id, cited = two_sources
    for number, (sentence, before, after) in cited.items():
        page.goto(f"{base}/runs/{run_id}/sources/{number}")
        # each mark with the passage text before and after it, as the browser holds them
        found = page.evaluate("""() => Array.from(document.querySelectorAll('.passage mark'))
            .map(mark => {
              const passage = document.querySelector('.passage');
              const head = document.createRange(), tail = document.createRange();
              head.setStart(passage, 0);
              head.setEndBefore(mark);
              tail.setStartAfter(mark);
              tail.setEnd(passage, passage.childNodes.length);
              return [head.toString(), mark.textContent, tail.toString()];
            })""")
        assert len(found) == 1, (number, found)
        head, mark, tail = found[0]
        assert mark == sentence
        assert head.endswith(before) and tail.startswith(after), (head, tail)


def test_follow_up_run_again_and_compare_from_the_report(page: Any, server: str) -> None:
    first = _report(page, server)
    first_id = first.rsplit("/", 1)[-1]
    page.fill("#follow-up-question", "And how do I add subcommands?")
    page.click("form.follow-up button[type=submit]")
    # answered in place, under the first answer (tests/browser/test_web_thread.py)
    page.wait_for_selector("#thread .turn .turn-body, #thread .turn .problem",
                           timeout=300_000)
    follow_up = page.locator("#thread .turn").first.get_attribute("data-run")
    assert follow_up and follow_up != first_id
    page.goto(first)
    page.click("section.again button:has-text('Run again')")
    page.wait_for_url(REPORT, timeout=300_000)
    again_id = page.url.rsplit("/", 1)[-1]
    assert again_id != first_id
    page.goto(f"{server}/compare?a={first_id}&b={again_id}")
    text = page.inner_text("main")
    assert "kept" in text.lower() and "gained" in text.lower() and "lost" in text.lower()


def test_a_detailed_reports_contents_link_to_its_parts(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.fill("textarea[name=question]", QUESTION)
    page.check("input[name=mode][value=detailed]")
    open_sources(page)
    page.check("input[name=collections][value=demo]")
    page.click("form button[type=submit]")
    page.wait_for_url(REPORT, timeout=600_000)
    links = page.locator(".report-body a[href^='#']:not(.cite)")
    assert links.count() >= 2
    target = (links.first.get_attribute("href") or "#")[1:]
    assert page.locator(f"[id='{target}']").count() == 1


def test_copy_answer_puts_the_report_text_on_the_clipboard(
        two_sources: tuple[str, str, dict[int, tuple[str, str, str]]], browser: Any) -> None:
    base, run_id, _ = two_sources
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    try:
        page = context.new_page()
        page.goto(f"{base}/reports/{run_id}")
        page.click("button[data-copy=report-text]")
        page.wait_for_function(
            "document.getElementById('report-text-copied').textContent === 'Copied'")
        copied = page.evaluate("navigator.clipboard.readText()")
        shown = page.locator("#report-text").inner_text().strip()
    finally:
        context.close()
    assert copied == shown and "[1]" in copied and "Bäckerei" in copied
