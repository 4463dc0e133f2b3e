"""Screenshots of every page, at a desktop size (1280x900) and on a phone (390x844).

They are written to ``docs/screenshots/`` (``NAME.png`` and ``NAME-phone.png``, plus
``NAME-dark.png`` of a few pages in the dark colour scheme) and listed in
``docs/web-pages.md``. The pages are the real ones: a research with the bundled model
and the demo collection, its live run page, its report and evidence popover, and so on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.support import QUESTION, SCREENSHOTS, research
from tests.browser.test_web_a11y import (
    DESKTOP,
    NOT_FOUND,
    PHONE,
    open_evidence,
    run_pages,
    serve_with_token,
    watch_pages,
)

pytestmark = [pytest.mark.integration, pytest.mark.browser]

SIZES = {"": DESKTOP, "-phone": PHONE}
DARK = ["new-research", "report", "history"]
LIVE = ("() => location.pathname.startsWith('/reports/') || "
        "parseInt((document.getElementById('calls') || {}).textContent || '0') > 0 || "
        "parseInt((document.getElementById('searches') || {}).textContent || '0') > 0")


def shoot(browser: Any, url: str, name: str, size: str, scheme: str = "light") -> bool:
    """One screenshot; False when the page moved on (a run that finished meanwhile)."""
    context = browser.new_context(viewport=SIZES[size], color_scheme=scheme,
                                  is_mobile=size == "-phone", has_touch=size == "-phone")
    page = context.new_page()
    try:
        page.goto(url)
        if url.endswith("#evidence"):
            open_evidence(page)
        if "/runs/" in url and "/runs/" not in page.url:
            return False
        suffix = size + ("-dark" if scheme == "dark" else "")
        path = str(SCREENSHOTS / f"{name}{suffix}.png")
        if url.endswith("#evidence"):  # the popover is fixed to the window
            page.screenshot(path=path)
        else:  # the whole page, as wide as the window (wide tables scroll inside it)
            height = page.evaluate(
                "Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
            page.screenshot(path=path, full_page=True, clip={
                "x": 0, "y": 0, "width": SIZES[size]["width"], "height": height})
        return True
    finally:
        context.close()


def live_run(browser: Any, server: str) -> Iterator[str]:
    """Submits a research and yields its run page's URL while it is still running."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        research(page, server, QUESTION, "demo")
        if "/runs/" in page.url:
            page.wait_for_function(LIVE, timeout=120_000)
            yield page.url
        page.wait_for_url(re.compile(r".*/reports/[0-9a-f]{32}"), timeout=300_000)
    finally:
        context.close()


def test_screenshots_of_every_page(browser: Any, server: str,
                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    live = {size: False for size in SIZES}
    for url in live_run(browser, server):
        for size in SIZES:
            live[size] = shoot(browser, url, "run-progress", size)
    visited = run_pages(browser, server)
    pages = {"new-research": server + "/", "report": visited["report"],
             "evidence": visited["evidence"], "history": server + "/history",
             "collections": server + "/collections", **watch_pages(browser, server),
             "settings": server + "/settings",
             "error": server + NOT_FOUND}
    for name, url in pages.items():
        for size in SIZES:
            assert shoot(browser, url, name, size)
        if name in DARK:
            shoot(browser, url, name, "", "dark")
    for size, done in live.items():  # the run finished before its screenshot
        if not done and "/runs/" in visited["run"]:
            shoot(browser, visited["run"], "run-progress", size)
    with serve_with_token(tmp_path_factory.mktemp("token-data")) as guarded:
        for size in SIZES:
            assert shoot(browser, guarded + "/login", "login", size)
    names = [*pages, "run-progress", "login"]
    for name in names:
        for size in SIZES:
            shot = SCREENSHOTS / f"{name}{size}.png"
            assert shot.exists(), shot
            assert shot.read_bytes().startswith(b"\x89PNG")
