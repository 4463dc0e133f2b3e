"""The web app in a real headless Chromium: research, live progress, report, download.

The server is `deepcite serve` in its own process with the bundled model and the demo
collection (nothing faked); the browser is Debian's Chromium driven by Playwright with
``executable_path``. Screenshots of the main pages land in ``docs/screenshots/``.
Outside CI a missing Chromium or Playwright skips these tests with the reason; in CI
(``CI`` set) it fails them, so they never silently stop running.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.browser]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DEEPCITE = str(Path(sys.executable).parent / "deepcite")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
QUESTION = "How do I parse command line arguments?"
XSS_TITLE = "<img src=x onerror=alert(1)> Cache notes"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI runs the browser tests; `make system-deps` installs it)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def playwright_api() -> Any:
    if not Path(CHROMIUM).exists():
        _unavailable("Chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright is not installed (pip install playwright)")
    return sync_playwright


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=str(data_dir), DEEPCITE_LLM_PROVIDER="local",
               OLLAMA_HOST="127.0.0.1:1", NO_COLOR="1")
    return env


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, playwright_api: Any) -> Iterator[str]:
    """`deepcite serve` on a free loopback port, with a collection whose title is HTML."""
    data_dir = tmp_path_factory.mktemp("web-data")
    notes = tmp_path_factory.mktemp("xss-notes")
    (notes / "cache.md").write_text(f"# {XSS_TITLE}\n\nWe decided to keep the cache in "
                                    "Redis with a one hour expiry.\n", encoding="utf-8")
    added = subprocess.run([DEEPCITE, "collection", "add", str(notes), "--name", "xss"],
                           env=_env(data_dir), capture_output=True, text=True, timeout=300,
                           check=False)
    assert added.returncode == 0, added.stderr
    for _attempt in range(5):
        port = random.randint(20000, 40000)
        process = subprocess.Popen(
            [DEEPCITE, "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=_env(data_dir), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        assert process.stderr is not None
        started = time.monotonic()
        lines: list[str] = []
        while time.monotonic() - started < 60:
            line = process.stderr.readline()
            lines.append(line)
            if "Uvicorn running on" in line or "Application startup complete" in line:
                break
            if not line and process.poll() is not None:
                break
        if process.poll() is None:
            break
    else:
        pytest.fail("deepcite serve did not start:\n" + "".join(lines))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def browser(playwright_api: Any) -> Iterator[Any]:
    with playwright_api() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(accept_downloads=True, viewport={"width": 1100,
                                                                   "height": 900})
    opened = context.new_page()
    dialogs: list[str] = []
    opened.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    opened.dialogs = dialogs
    yield opened
    context.close()


def _research(page: Any, base: str, question: str, collection: str) -> str:
    """Submit the form; returns the run page's URL."""
    page.goto(base + "/")
    page.fill("textarea[name=question]", question)
    page.click("summary:has-text('Sources and model')")  # a folded part of the form
    page.check(f"input[name=collections][value={collection}]")
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r".*/(runs|reports)/[0-9a-f]{32}"), timeout=30_000)
    return str(page.url)


def test_research_in_the_browser_from_form_to_download(page: Any, server: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(server + "/")
    page.screenshot(path=str(SCREENSHOTS / "new-research.png"), full_page=True)
    _research(page, server, QUESTION, "demo")
    if "/runs/" in page.url:  # live progress: events arrive before the report opens
        page.wait_for_function(
            "() => location.pathname.startsWith('/reports/') || "
            "parseInt((document.getElementById('calls') || {}).textContent || '0') > 0 || "
            "parseInt((document.getElementById('searches') || {}).textContent || '0') > 0",
            timeout=120_000)
        if "/runs/" in page.url:
            page.screenshot(path=str(SCREENSHOTS / "run-progress.png"), full_page=True)
    page.wait_for_url(re.compile(r".*/reports/[0-9a-f]{32}"), timeout=300_000)
    page.wait_for_selector("a.cite")
    report_url = page.url
    page.screenshot(path=str(SCREENSHOTS / "report.png"), full_page=True)

    citation = page.locator("a.cite").first
    number = citation.get_attribute("data-evidence")
    citation.click()
    evidence = page.locator(f"#evidence-{number}")
    assert evidence.is_visible()
    assert f"[{number}]" in evidence.inner_text()
    page.screenshot(path=str(SCREENSHOTS / "evidence.png"))

    page.goto(report_url)  # the popover closed
    with page.expect_download() as download_info:
        page.click("a[href$='/export/pdf']")
    pdf = Path(download_info.value.path()).read_bytes()
    assert pdf.startswith(b"%PDF")

    page.goto(server + "/history")
    assert QUESTION in page.content()
    page.screenshot(path=str(SCREENSHOTS / "history.png"), full_page=True)


def test_a_source_title_with_html_renders_as_text(page: Any, server: str) -> None:
    _research(page, server, "What did we decide about the cache?", "xss")
    page.wait_for_url(re.compile(r".*/reports/[0-9a-f]{32}"), timeout=300_000)
    assert page.get_by_text("onerror=alert(1)", exact=False).count() > 0
    assert page.locator("img[src='x']").count() == 0
    assert page.dialogs == []
