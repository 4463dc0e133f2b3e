"""Watches in real Chromium: create a watch through the form, see it listed, run it now,
and read its changes in the inbox - the first run, then "Nothing new since ..." - with its
private Atom feed; a bad schedule is refused on the form with what was typed kept.

The server is the browser tests' `deepcite serve` (``conftest.py``): the bundled model,
a collection whose document title is HTML (``xss``: no dialog may open), and the watch
scheduler ticking every second (``watches.tick_seconds``), so a run's change is stored
soon after it ends.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.support import create_watch, inbox_says

pytestmark = [pytest.mark.integration, pytest.mark.browser]

QUESTION = "Where do we keep the cache?"


def test_create_a_watch_run_it_and_read_its_changes(server: str, page: Any) -> None:
    page.goto(server + "/watches")
    assert "No watches yet" in page.content()
    watch_url = create_watch(page, server, QUESTION, "xss")
    assert "The watch was created" in page.inner_text("main")

    page.click("header nav a[href='/watches']")
    row = page.locator("table.watches tbody tr", has_text=QUESTION)
    assert row.count() == 1
    assert "on demand" in row.inner_text() and "not run yet" in row.inner_text()
    row.locator("button", has_text="Run now").click()
    page.wait_for_url("**/watches?done=started")

    page.goto(watch_url)
    inbox_says(page, "First run:")
    first = page.locator("ol.inbox li").first
    report = first.locator("a", has_text="the report").get_attribute("href") or ""
    assert re.fullmatch(r"/reports/[0-9a-f]{32}", report)
    page.click("button:has-text('Run now')")
    page.wait_for_url("**?done=started")
    inbox_says(page, "Nothing new since")
    assert page.locator("ol.inbox li").count() == 2
    assert "compare with the previous run" in page.locator("ol.inbox li").first.inner_text()

    page.click("button:has-text('New feed address')")
    feed_url = page.inner_text("#feed-url")
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/feeds/watches/dcf_[\w-]+\.atom", feed_url)
    feed = page.request.get(feed_url)
    assert feed.status == 200 and "Nothing new since" in feed.text()

    page.goto(server + "/watches")
    assert "Nothing new since" in page.locator("table.watches").inner_text()
    page.goto(server + report)  # the first run is an ordinary stored run
    assert QUESTION in page.inner_text("main")
    assert page.dialogs == []  # the HTML title of the source stayed text


def test_a_bad_schedule_is_shown_on_the_form(server: str, page: Any) -> None:
    page.goto(server + "/watches")
    page.fill("textarea[name=question]", "Is the cache <warm>?")
    page.fill("input[name=schedule]", "hourly")
    page.click("#watch-form button[type=submit]")
    alert = page.locator("main [role=alert]")
    assert "Schedule 'hourly' is not understood" in alert.inner_text()
    assert page.input_value("textarea[name=question]") == "Is the cache <warm>?"
    assert page.input_value("input[name=schedule]") == "hourly"
    assert page.locator("table.watches tbody tr", has_text="Is the cache").count() == 0
