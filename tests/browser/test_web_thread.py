"""A report as a thread, in a real headless Chromium with the bundled model and the demo
collection: a follow-up asked in place under a quick answer (its progress live, then its
answer, the earlier answer still there, the numbers continuing, the page never left), a
detailed report's box, the whole journey by keyboard on a 390 px phone, and axe on the
thread page. Writes ``docs/screenshots/thread.png`` and ``thread-phone.png``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from deepcite.config import load_settings
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult, Source
from tests.browser.support import SCREENSHOTS, research, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser]

REPORT = re.compile(r".*/reports/[0-9a-f]{32}$")
PHONE = {"width": 390, "height": 844}
AXE_OPTIONS = {"resultTypes": ["violations"], "rules": {"target-size": {"enabled": True}}}
DETAILED = "How do I parse command line arguments in Python?"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, playwright_api: Any
           ) -> Iterator[tuple[str, str]]:
    """`deepcite serve` on a data dir holding one detailed report on the demo collection
    (stored as a finished run: writing one with the bundled model takes minutes); the
    base URL and the report's id."""
    data_dir = tmp_path_factory.mktemp("thread-data")
    settings = load_settings({"data_dir": str(data_dir)}, config_files=[], environ={})
    body = ("## Contents\n\n- Summary\n- 1. The argparse module\n\n## Summary\n\n"
            "The argparse module parses the command line [1].\n\n"
            "## 1. The argparse module\n\nAn ArgumentParser holds the arguments [1].\n")
    source = Source(number=1, title="argparse - Parser for command-line options",
                    url="https://docs.python.org/3/library/argparse.html",
                    canonical_url="https://docs.python.org/3/library/argparse.html",
                    snippet="The argparse module makes it easy to write user-friendly "
                            "command-line interfaces.", engine="web")
    with HistoryStore.open(settings) as store:
        run_id = store.begin(DETAILED, mode="detailed", settings=settings,
                             request={"question": DETAILED, "mode": "detailed",
                                      "collections": ["demo"]})
        store.finish(run_id, ResearchResult(question=DETAILED, answer=body, mode="detailed",
                                            strategy="s", handler="h", sources=[source]))
    with serving(data_dir) as base:
        yield base, run_id


def _answered_report(page: Any, base: str, question: str) -> str:
    research(page, base, question, "demo")
    page.wait_for_url(REPORT, timeout=300_000)
    page.wait_for_selector("#report-text a.cite")
    return str(page.url)


def _numbers(page: Any, selector: str) -> list[int]:
    texts = page.locator(selector).all_inner_texts()
    return [int(n) for text in texts for n in re.findall(r"\d+", text)]


def _answer(text: str) -> str:
    """A rendered answer without its Sources list (whose titles two turns may share)."""
    return re.split(r"\n\s*Sources\s*\n", text, maxsplit=1)[0]


def _sentences(text: str) -> set[str]:
    plain = re.sub(r"\s*\[\d+(?:,\s*\d+)*\]", "", text)
    return {s.strip() for s in re.split(r"(?<=[.!?])\s+", plain) if len(s.strip()) > 30}


def _no_axe_violations(page: Any, where: str) -> None:
    from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]

    violations = Axe().run(page, options=AXE_OPTIONS).response["violations"]
    assert not violations, where + ": " + "; ".join(
        f"{v['id']}: {v['help']} {[n.get('target') for n in v['nodes'][:4]]}"
        for v in violations)


def test_a_quick_answer_is_followed_up_in_place(page: Any,
                                                served: tuple[str, str]) -> None:
    base, _ = served
    _answered_report(page, base, "How do I parse JSON text?")
    first = page.inner_text("#report-text")
    first_numbers = _numbers(page, "#report-text [id^='source-']")
    page.evaluate("window.stayed = true")  # gone if the browser loads another page
    page.fill("#follow-up-question", "How do I write JSON to a file?")
    page.click("#follow-up button[type=submit]")
    turn = page.locator("#thread article.turn").first
    turn.wait_for(timeout=30_000)
    # its progress, live, while it runs; then its answer in the same place
    page.wait_for_selector("#thread .turn .turn-progress", timeout=30_000)
    page.wait_for_selector("#thread .turn .turn-body a.cite", timeout=300_000)
    assert page.evaluate("window.stayed === true")
    assert turn.locator(".turn-question").inner_text().endswith("How do I write JSON to a file?")
    answer = _answer(turn.locator(".turn-body").inner_text())
    # the earlier answer is still shown, above; the new one is about writing
    assert page.inner_text("#report-text") == first
    assert "writ" in answer.lower(), answer
    assert not _sentences(_answer(first)) & _sentences(answer), answer
    # numbers continue: what the follow-up found is numbered after the first answer
    later = set(_numbers(turn, ".turn-body [id*='source-']")) - set(first_numbers)
    assert not later or min(later) > max(first_numbers), (first_numbers, later)
    # the address is the new turn's: opening it shows the whole thread at that turn
    turn_id = str(turn.get_attribute("data-run"))
    assert turn_id in page.url
    page.goto(f"{base}/reports/{turn_id}")
    assert page.inner_text("#report-text") == first
    assert page.locator(f"#turn-{turn_id}.asked").count() == 1
    _no_axe_violations(page, "thread")
    page.locator(f"#turn-{turn_id}").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "thread.png"), full_page=True)


def test_a_detailed_report_has_the_follow_up_box(page: Any,
                                                 served: tuple[str, str]) -> None:
    base, run_id = served
    page.goto(f"{base}/reports/{run_id}")
    box = page.locator("#follow-up-question")
    assert box.is_visible()
    page.fill("#follow-up-question", "What does argparse do with unknown options?")
    page.click("#follow-up button[type=submit]")
    turn = page.locator("#thread article.turn").first
    turn.locator(".turn-body, .problem").first.wait_for(timeout=300_000)
    assert page.locator("#report-text h2").count() >= 2  # the report stays above
    assert "unknown options" in turn.locator(".turn-question").inner_text()


def test_a_follow_up_by_keyboard_alone_on_a_phone(browser: Any,
                                                  served: tuple[str, str]) -> None:
    base, _ = served
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        _answered_report(page, base, "How do I compress data with gzip?")
        for _ in range(300):  # Tab through the page to the box, as a keyboard user does
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.id") == "follow-up-question":
                break
        assert page.evaluate("document.activeElement.id") == "follow-up-question"
        page.keyboard.type("How do I decompress a gzip file?")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent") == "Ask"
        page.keyboard.press("Enter")
        page.wait_for_selector("#thread .turn .turn-body, #thread .turn .problem",
                               timeout=300_000)
        # focus went to the new turn, not back to the top of the page
        assert page.evaluate("!!document.activeElement.closest('#thread')")
        wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert wide <= 0, f"the thread scrolls sideways by {wide}px on a phone"
        _no_axe_violations(page, "thread on a phone")
        page.screenshot(path=str(SCREENSHOTS / "thread-phone.png"), full_page=True)
    finally:
        context.close()


def test_without_scripts_the_follow_up_comes_back_to_the_thread(
        browser: Any, served: tuple[str, str]) -> None:
    base, run_id = served
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{base}/reports/{run_id}")
        page.fill("#follow-up-question", "Which module parses options?")
        page.click("#follow-up button[type=submit]")
        page.wait_for_url(re.compile(r".*/reports/[0-9a-f]{32}#turn-[0-9a-f]{32}$"))
        turn_id = page.url.rsplit("#turn-", 1)[1]
        assert page.locator(f"#turn-{turn_id}.asked").count() == 1
        assert page.locator("#report-text h2").count() >= 2
        for _ in range(300):  # the page reloads itself while the turn runs
            if page.locator(f"#turn-{turn_id} .turn-body, #turn-{turn_id} .problem").count():
                break
            page.wait_for_timeout(1000)
            page.reload()
        assert page.locator(f"#turn-{turn_id} .turn-body").count() == 1
    finally:
        context.close()
