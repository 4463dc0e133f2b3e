"""The web app in a real headless Chromium: research, live progress, report, download.

The server is `deepcite serve` in its own process with the bundled model and the demo
collection (nothing faked); the browser is Debian's Chromium driven by Playwright with
``executable_path``. The screenshots are ``test_web_screenshots.py``'s.
Outside CI a missing Chromium or Playwright skips these tests with the reason; in CI
(``CI`` set) it fails them, so they never silently stop running.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.support import QUESTION, research

pytestmark = [pytest.mark.integration, pytest.mark.browser]


def test_research_in_the_browser_from_form_to_download(page: Any, server: str) -> None:
    page.goto(server + "/")
    research(page, server, QUESTION, "demo")
    if "/runs/" in page.url:  # live progress: events arrive before the report opens
        page.wait_for_function(
            "() => location.pathname.startsWith('/reports/') || "
            "parseInt((document.getElementById('calls') || {}).textContent || '0') > 0 || "
            "parseInt((document.getElementById('searches') || {}).textContent || '0') > 0",
            timeout=120_000)
    page.wait_for_url(re.compile(r".*/reports/[0-9a-f]{32}"), timeout=300_000)
    page.wait_for_selector("a.cite")
    report_url = page.url

    citation = page.locator("a.cite").first
    number = citation.get_attribute("data-evidence")
    citation.click()
    evidence = page.locator(f"#evidence-{number}")
    assert evidence.is_visible()
    assert f"[{number}]" in evidence.inner_text()

    page.goto(report_url)  # the popover closed
    with page.expect_download() as download_info:
        page.click("a[href$='/export/pdf']")
    pdf = Path(download_info.value.path()).read_bytes()
    assert pdf.startswith(b"%PDF")

    page.goto(server + "/history")
    assert QUESTION in page.content()


def test_a_source_title_with_html_renders_as_text(page: Any, server: str) -> None:
    research(page, server, "What did we decide about the cache?", "xss")
    page.wait_for_url(re.compile(r".*/reports/[0-9a-f]{32}"), timeout=300_000)
    assert page.get_by_text("onerror=alert(1)", exact=False).count() > 0
    assert page.locator("img[src='x']").count() == 0
    assert page.dialogs == []
