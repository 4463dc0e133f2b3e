"""The "Check a document" page in a real Chromium, against `deepcite serve` with the
bundled model, offline, on the demo collection: paste a document, follow the check
claim by claim on the run page, read the annotated result - and reach each claim's
evidence with the keyboard as well as the mouse, on a phone-sized screen too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.support import serving

pytestmark = [pytest.mark.integration, pytest.mark.browser]

DRAFT = ("The argparse module is an optparse-inspired command-line parsing library. "
         "The shlex module splits strings using shell-like syntax. "
         "<img src=x onerror=alert(1)> The moon is made of green cheese.\n\n"
         "The csv module reads and writes tabular data in CSV format. "
         "The json module encodes Python objects as JSON strings. "
         "The sqlite3 module provides an interface to SQLite databases. "
         "The gzip module compresses files in the zip format of 1989. "
         "The heapq module implements the heap queue algorithm.")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, playwright_api: Any) -> Iterator[str]:
    """`deepcite serve`, offline (only the demo collection can be searched)."""
    data_dir = tmp_path_factory.mktemp("web-check-data")
    with serving(data_dir, env={"DEEPCITE_SECURITY_OFFLINE": "1"}) as base:
        yield base


def _check(page: Any, server: str, *, progress: bool = False) -> str:
    """Paste DRAFT on the check page, follow the run page to the result; its URL.
    ``progress``: the run page must have been seen counting the claims."""
    page.goto(server + "/")
    page.click("nav >> text=Check")
    page.wait_for_url(re.compile(r".*/check$"))
    page.fill("textarea[name=text]", DRAFT)
    page.fill("input[name=title]", "Parsing <notes>")
    page.check("input[name=collections][value=demo]")
    page.click("form#check-form button[type=submit]")
    page.wait_for_url(re.compile(r".*/(runs|reports)/[0-9a-f]{32}"), timeout=60_000)
    if "/runs/" in page.url:
        # the run page counts the claims ("Claim: 2 of 3"), unless the check ended first
        seen = page.wait_for_function(
            "() => { if (location.pathname.startsWith('/reports/')) { return 'ended'; }"
            " const step = document.getElementById('step');"
            " const text = step ? step.textContent.trim() : '';"
            " return / of \\d+$/.test(text) ? step.previousElementSibling.textContent"
            " + ': ' + text : null; }", timeout=300_000).json_value()
        assert seen == "ended" or re.fullmatch(r"Claim: \d+ of \d+", seen), seen
        assert seen != "ended" or not progress
    page.wait_for_url(re.compile(r".*/reports/[0-9a-f]{32}"), timeout=600_000)
    return str(page.url)


def test_paste_progress_result_and_evidence_by_keyboard(page: Any, server: str) -> None:
    _check(page, server, progress=True)
    assert page.dialogs == []  # the pasted <img onerror> stayed text
    document = page.locator("#report-text")
    assert "<img src=x onerror=alert(1)>" in document.inner_text()
    assert "Parsing <notes>" in page.locator("h1").inner_text()
    marks = page.locator(".claim mark")
    assert marks.count() >= 2
    first = marks.first
    evidence = page.locator("#" + str(first.get_attribute("aria-describedby")))
    assert not evidence.is_visible()
    # keyboard: Tab until the first claim has the focus, and its evidence shows
    page.locator("#report-text").scroll_into_view_if_needed()
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement && "
                         "document.activeElement.matches('.claim mark')"):
            break
    focused = page.evaluate("() => document.activeElement.getAttribute('aria-describedby')")
    assert focused == first.get_attribute("aria-describedby")
    assert evidence.is_visible()
    assert re.search(r"Supported|Partly supported|Contradicted|Not found",
                     evidence.inner_text())
    page.keyboard.press("Tab")  # on into the evidence's own links: it stays open
    if page.evaluate("() => document.activeElement.closest('.claim-evidence') !== null"):
        assert evidence.is_visible()
    # the mouse: pointing at another claim shows its evidence
    page.mouse.move(0, 0)
    last = marks.nth(marks.count() - 1)
    last.hover()
    assert page.locator("#" + str(last.get_attribute("aria-describedby"))).is_visible()
    # a source opens in the in-app viewer
    link = page.locator("ol.check-sources a").first
    if link.count():
        href = str(link.get_attribute("href"))
        assert re.fullmatch(r"/runs/[0-9a-f]{32}/sources/\d+", href)


def test_the_result_fits_a_phone(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    phone = context.new_page()
    try:
        phone.goto(server + "/check")
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
        phone.dialogs = []
        _check(phone, server)
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
        mark = phone.locator(".claim mark").first
        mark.focus()
        evidence = phone.locator("#" + str(mark.get_attribute("aria-describedby")))
        box = evidence.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    finally:
        context.close()
