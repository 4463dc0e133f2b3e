"""The settings page in real Chromium, from the keyboard alone (issue 47 item 9): an
unknown model is refused in one line beside the field, saved changes - a default
collection, an engine's API key - are what the running `deepcite serve` uses next,
without a restart, and the page stays axe-clean at a desktop size and on a phone.

The served app has its own config folder (tests/browser/support.server_env) and runs
the bundled model (``DEEPCITE_LLM_PROVIDER=local``), so the local provider's one model
is the only valid name.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.browser]

AXE_OPTIONS = {"resultTypes": ["violations"], "rules": {"target-size": {"enabled": True}}}
BRAVE_KEY = "brave-browser-key-4410"


def tab_to(page: Any, selector: str, most: int = 120) -> None:
    """Press Tab until ``selector`` has the focus, as a keyboard user moves."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)",
                         selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def axe_violations(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]

    results = Axe().run(page, options=AXE_OPTIONS).response["violations"]
    return [f"{v['id']}: {v['help']} {[n.get('target') for n in v['nodes'][:4]]}"
            for v in results]


@pytest.mark.parametrize(("size", "scheme"), [("desktop", "light"), ("phone", "dark")])
def test_an_unknown_model_is_refused_beside_the_field(browser: Any, server: str,
                                                      size: str, scheme: str) -> None:
    phone = size == "phone"
    context = browser.new_context(
        viewport={"width": 390, "height": 844} if phone else {"width": 1280, "height": 900},
        color_scheme=scheme, is_mobile=phone, has_touch=phone, device_scale_factor=1)
    page = context.new_page()
    try:
        page.goto(server + "/settings")
        tab_to(page, "input[name='llm.model']")
        page.keyboard.type("llama3.2")
        with page.expect_response(lambda r: r.request.method == "POST") as posted:
            page.keyboard.press("Enter")
        assert posted.value.status == 400
        page.wait_for_load_state()
        problem = page.locator("#problem-llm-model")
        assert problem.inner_text() == (
            "llm.model: the local provider runs only SmolLM2-135M-Instruct.Q4_1.gguf "
            "(llm.gguf_path picks another file), not llama3.2 - leave the model blank, "
            "or choose provider ollama or openai for llama3.2")
        field = page.locator("input[name='llm.model']")
        assert field.input_value() == "llama3.2"  # kept to correct
        assert field.get_attribute("aria-describedby") == "problem-llm-model"
        assert page.get_by_role("alert").first.inner_text().startswith("Not saved: 1 value")
        assert not axe_violations(page)
        wide = page.evaluate("document.documentElement.scrollWidth - "
                             "document.documentElement.clientWidth")
        assert wide <= 0, f"the page scrolls sideways by {wide}px"
    finally:
        context.close()


def test_saved_changes_are_used_without_a_restart(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(server + "/")
        assert not page.locator("input[name='collections'][value='xss']").is_checked()
        assert page.locator("input[name='engines'][value='brave']").is_disabled()
        page.goto(server + "/settings")
        brave = page.locator("#state-engines-brave_api_key")
        assert brave.inner_text() == "not set"
        tab_to(page, "input[name='search.collections'][value='xss']")
        page.keyboard.press("Space")
        tab_to(page, "input[name='engines.brave_api_key']")
        page.keyboard.type(BRAVE_KEY)
        tab_to(page, "form.settings-form button[type=submit]")
        page.keyboard.press("Enter")
        page.wait_for_url("**/settings?saved=1")
        assert BRAVE_KEY not in page.content()
        assert page.get_by_role("status").inner_text().endswith(
            "New runs use it from now on; runs already going keep the settings they "
            "started with.")
        assert brave.inner_text().startswith("set (from ")
        row = page.locator("tr", has=page.locator("td", has_text=re.compile("^brave$")))
        assert row.first.locator("td").nth(1).inner_text() == "yes"  # usable now
        setting = page.locator("tr", has=page.locator("code", has_text=re.compile(
            r"^search\.collections$")))
        assert setting.locator("td").nth(1).inner_text() == '["xss"]'
        assert "restart to apply" not in setting.inner_text()
        assert not axe_violations(page)
        # the research form of the same running server: the saved default is ticked
        page.goto(server + "/")
        assert page.locator("input[name='collections'][value='xss']").is_checked()
        assert page.locator("input[name='engines'][value='brave']").is_enabled()
    finally:
        context.close()
