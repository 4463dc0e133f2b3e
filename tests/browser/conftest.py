"""Fixtures of the browser tests: `deepcite serve` in its own process (bundled model,
demo collection, nothing faked) and Debian's Chromium driven by Playwright.

Each test module gets its own server (module scope) on a free loopback port, with a
collection whose title is HTML (``xss``) beside the bundled ``demo``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    DEEPCITE,
    XSS_TITLE,
    server_env,
    serving,
    unavailable,
)


@pytest.fixture(scope="module")
def playwright_api() -> Any:
    if not Path(CHROMIUM).exists():
        unavailable("Chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright is not installed (pip install playwright)")
    return sync_playwright


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, playwright_api: Any) -> Iterator[str]:
    """`deepcite serve` on a free loopback port, with a collection whose title is HTML."""
    data_dir = tmp_path_factory.mktemp("web-data")
    notes = tmp_path_factory.mktemp("xss-notes")
    (notes / "cache.md").write_text(f"# {XSS_TITLE}\n\nWe decided to keep the cache in "
                                    "Redis with a one hour expiry.\n", encoding="utf-8")
    added = subprocess.run([DEEPCITE, "collection", "add", str(notes), "--name", "xss"],
                           env=server_env(data_dir), capture_output=True, text=True, timeout=300,
                           check=False)
    assert added.returncode == 0, added.stderr
    with serving(data_dir) as base:
        yield base


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
