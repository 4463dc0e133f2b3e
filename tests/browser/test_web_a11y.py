"""Accessibility of every page, checked by axe-core in a real headless Chromium.

The pages - new research, a run, a report (and its evidence popover), the history, the
collections, the watches and a watch's inbox, the settings, the login page of a server
with a token and the error page - are checked at a desktop size and on a 390x844 phone,
in the light and the dark colour scheme, with axe's default rules plus ``target-size``
(24 px touch targets). Any violation fails the test, listing rule, page and elements. On
the phone no page may scroll sideways. The bytes each page costs (HTML + CSS + JS) are printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.browser.support import QUESTION, research, serving, watched_once

pytestmark = [pytest.mark.integration, pytest.mark.browser]

TOKEN = "a11y-test-token"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
AXE_OPTIONS = {"resultTypes": ["violations"], "rules": {"target-size": {"enabled": True}}}
NOT_FOUND = "/reports/" + "0" * 32
TEXT_BOX = ("e => { const text = [...e.childNodes].find(n => n.nodeType === 3 && "
            "n.textContent.trim()); const range = document.createRange(); "
            "range.selectNodeContents(text); const box = range.getBoundingClientRect(); "
            "return {left: box.left, top: box.top}; }")


@contextmanager
def serve_with_token(data_dir: Path) -> Iterator[str]:
    """`deepcite serve --token` on loopback: every page then asks for the login."""
    with serving(data_dir, "--token", TOKEN, ports=(40001, 60000)) as base:
        yield base


def run_pages(browser: Any, server: str) -> dict[str, str]:
    """A finished research (its report) and a cancelled one (its run page stays)."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        research(page, server, QUESTION, "demo")
        page.wait_for_url(re.compile(r".*/reports/[0-9a-f]{32}"), timeout=300_000)
        page.wait_for_selector("a.cite")
        report = page.url
        research(page, server, "What does the demo collection say about testing?", "demo")
        run = page.url
        if "/runs/" in run and page.locator("form[action$='/cancel'] button").count():
            page.click("form[action$='/cancel'] button")
            page.wait_for_load_state()
            run = page.url
    finally:
        context.close()
    return {"report": report, "evidence": report + "#evidence", "run": run}


def watch_pages(browser: Any, server: str) -> dict[str, str]:
    """The Watches list and a watch's page with its first run in the inbox."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        watch = watched_once(page, server, QUESTION, "demo")
    finally:
        context.close()
    return {"watches": server + "/watches", "watch": watch}


def open_evidence(page: Any) -> None:
    """Opens the evidence popover of the report's first citation, as a click does."""
    page.locator("a.cite").first.click()
    page.wait_for_selector(".evidence.open, .evidence:target")


@pytest.fixture(scope="module")
def pages(browser: Any, server: str, tmp_path_factory: pytest.TempPathFactory,
          ) -> Iterator[dict[str, str]]:
    """Page name -> URL of every page the app serves (the login one on its own server)."""
    visited = run_pages(browser, server)
    watches = watch_pages(browser, server)
    with serve_with_token(tmp_path_factory.mktemp("token-data")) as guarded:
        yield {
            **watches,
            "new-research": server + "/",
            "run": visited["run"],
            "report": visited["report"],
            "evidence": visited["evidence"],
            "history": server + "/history",
            "collections": server + "/collections",
            "settings": server + "/settings",
            "collection": server + "/collections/demo",
            "collection-document": server + "/collections/demo/documents/1",
            "source": visited["report"].replace("/reports/", "/runs/") + "/sources/1",
            "compare": (f"{server}/compare?a={visited['report'].rsplit('/', 1)[-1]}"
                        f"&b={visited['report'].rsplit('/', 1)[-1]}"),
            "login": guarded + "/login",
            "error": server + NOT_FOUND,
        }


def describe(name: str, violations: list[dict[str, Any]]) -> list[str]:
    lines = []
    for violation in violations:
        nodes = "; ".join(" ".join(map(str, node.get("target", []))) + " -> "
                          + node.get("failureSummary", "").replace("\n", " ")
                          for node in violation["nodes"][:6])
        lines.append(f"{name}: {violation['id']} ({violation.get('impact')}): "
                     f"{violation['help']} [{len(violation['nodes'])}] {nodes}")
    return lines


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_page_passes_axe(browser: Any, pages: dict[str, str], size: str,
                               scheme: str) -> None:
    from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]

    axe = Axe()
    viewport = DESKTOP if size == "desktop" else PHONE
    context = browser.new_context(viewport=viewport, color_scheme=scheme,
                                  is_mobile=size == "phone", has_touch=size == "phone",
                                  device_scale_factor=1)
    problems: list[str] = []
    try:
        for name, url in pages.items():
            page = context.new_page()
            response = page.goto(url)
            if name == "collection-document":  # the document, not the not-found page
                assert response is not None and response.status == 200, url
            page.wait_for_load_state("load")
            if name == "evidence":
                open_evidence(page)
            results = axe.run(page, options=AXE_OPTIONS)
            problems += describe(f"{name} ({url})", results.response["violations"])
            wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            if size == "phone" and wide > 0:
                problems.append(f"{name}: the page scrolls sideways by {wide}px on a phone")
            page.close()
    finally:
        context.close()
    assert not problems, f"{len(problems)} accessibility problems ({size}, {scheme}):\n" + \
        "\n".join(problems)


def test_the_skip_link_is_the_first_tab_stop(page: Any, server: str) -> None:
    page.goto(server + "/history")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.textContent")
    assert focused == "Skip to content"
    assert page.locator("a.skip").is_visible()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "content"


def test_only_the_run_status_is_a_live_region(pages: dict[str, str], browser: Any) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        for name, url in pages.items():
            page.goto(url)
            live = page.locator("[aria-live]")
            if name == "run":
                assert live.count() == 1, page.content()
                assert live.first.evaluate("e => e.tagName") != "SECTION"
            else:
                assert live.count() == 0, f"{name} has aria-live"
    finally:
        context.close()


def test_checkboxes_and_radio_buttons_sit_beside_their_labels(page: Any,
                                                               server: str) -> None:
    page.goto(server + "/")
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    for selector in ["input[name=mode][value=quick]", "input[name=collections][value=demo]"]:
        control = page.locator(selector).bounding_box()
        text = page.locator(f"label:has({selector})").evaluate(TEXT_BOX)
        assert control and text
        assert text["left"] >= control["x"] + control["width"]  # to its right
        assert text["top"] < control["y"] + control["height"]  # on the same line


def test_delete_buttons_are_named_after_their_run(pages: dict[str, str], browser: Any) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        page.goto(pages["history"])
        deletes = page.get_by_role("button", name=re.compile("^Delete")).all() + \
            page.get_by_role("link", name=re.compile("^Delete")).all()
        assert deletes, page.content()
        for delete in deletes:
            name = delete.evaluate("e => e.getAttribute('aria-label') || e.textContent")
            assert name.strip() not in {"Delete", "Delete run", "Delete run:"}, name
    finally:
        context.close()
