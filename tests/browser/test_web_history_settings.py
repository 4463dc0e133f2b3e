"""The history's delete (confirmation, trash, restore) and filters, and the settings
form, in real Chromium with JavaScript off: both pages work without it.

The settings form is saved into the served app's own config folder (the browser
servers get one: ``tests/browser/support.server_env``), never a real user's file; the
validation of what is saved is covered in tests/unit/test_web_settings_page.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.support import research


@pytest.fixture
def no_js_page(browser: Any) -> Any:
    context = browser.new_context(java_script_enabled=False)
    opened = context.new_page()
    yield opened
    context.close()


def test_delete_confirm_and_restore_without_javascript(server: str, page: Any,
                                                       no_js_page: Any) -> None:
    research(page, server, "Where do we keep the cache for history?", "xss")
    page.wait_for_timeout(500)
    browse = no_js_page
    browse.goto(server + "/history?origin=web")
    delete = browse.locator("a[aria-label^='Delete run: Where do we keep the cache']").first
    delete.click()
    assert "Delete run?" in browse.content()
    browse.click("button[aria-label^='Delete run:']")
    browse.wait_for_url("**/history?deleted=*")
    table = browse.locator("table.runs")
    assert table.count() == 0 or "Where do we keep the cache" not in table.inner_text()
    browse.click("button[aria-label^='Restore run: Where do we keep the cache']")
    browse.wait_for_url("**/history")
    assert "Where do we keep the cache" in browse.locator("table.runs").inner_text()
    browse.goto(server + "/history?origin=mcp")
    assert "No run matches" in browse.content()


def test_settings_form_renders_without_javascript(server: str, no_js_page: Any) -> None:
    no_js_page.goto(server + "/settings")
    assert no_js_page.locator("select[name='llm.provider']").count() == 1
    key = no_js_page.locator("input[name='llm.api_key']")
    assert key.get_attribute("type") == "password" and key.input_value() == ""
    assert no_js_page.locator("input[name='search.collections'][value='xss']").count() == 1
    assert "from default" in no_js_page.content()


def test_settings_are_saved_to_the_config_file_it_names(server: str, no_js_page: Any) -> None:
    """The served app has a config folder of its own (tests/browser/support.server_env),
    so saving here never touches the user's file."""
    no_js_page.goto(server + "/settings")
    no_js_page.select_option("select[name='citations.answer_mode']", "grounded")
    no_js_page.fill("input[name='research.max_model_calls']", "12")
    no_js_page.fill("input[name='llm.api_key']", "sk-never-shown-again")
    no_js_page.click("form.settings-form button[type=submit]")
    no_js_page.wait_for_url("**/settings?saved=1")
    page_text = no_js_page.content()
    assert "sk-never-shown-again" not in page_text
    path = Path(re.search(r"(/[^<>\s\"']+\.toml)", page_text).group(1))  # type: ignore[union-attr]
    assert "config" in path.parts and path.exists()
    saved = path.read_text(encoding="utf-8")
    assert "grounded" in saved and "12" in saved
    assert no_js_page.locator("select[name='citations.answer_mode']").input_value() == "grounded"
