"""The usage page in real Chromium against a real ``deepcite serve`` (issue 47, item 14):
alice sees her own model calls, tokens and searches, the admin everyone's with a line per
user; the local model says it costs nothing and a priced one shows its cost; the page
passes axe and does not scroll sideways on a 390 px phone, its tables scrolling in their
own focusable regions.

The users are made with the command line before the server starts and their runs
recorded straight into its store with their metrics: no model is needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepcite.config import load_settings
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult, RunMetrics
from tests.browser.support import SCREENSHOTS, serving
from tests.browser.test_web_a11y import AXE_OPTIONS, describe
from tests.browser.test_web_accounts import PASSWORDS, _add_user

pytestmark = [pytest.mark.integration, pytest.mark.browser]

LOCAL = "SmolLM2-135M-Instruct.Q4_1.gguf (in-process llama.cpp)"
HOSTED = "gpt-4o-mini (OpenAI-compatible server)"
PHONE = {"width": 390, "height": 844}
#: What each user's runs used: (model, calls, prompt, completion, searches, status).
RUNS = {
    "alice": [(LOCAL, 4, 2_400, 300, 6, "completed"),
              (HOSTED, 2, 800_000, 200_000, 3, "completed")],
    "bob": [(LOCAL, 9, 5_000, 700, 12, "completed"), (LOCAL, 1, 100, 0, 1, "failed")],
}


def _record_runs(data_dir: Path) -> None:
    settings = load_settings({"data_dir": str(data_dir)}, config_files=[], environ={})
    with HistoryStore.open(settings) as store:
        for name, runs in RUNS.items():
            owner = store.user(name)
            for model, calls, prompt, completion, searches, status in runs:
                question = f"What did {name} ask with {calls} calls?"
                run_id = store.begin(question, mode="quick", settings=settings,
                                     owner_id=owner.id)
                store.finish(run_id, ResearchResult(
                    question=question, answer="An answer.", strategy="standard",
                    handler="standard", error="it failed" if status == "failed" else None,
                    metrics=RunMetrics(model=model, model_calls=calls,
                                       prompt_tokens=prompt, completion_tokens=completion,
                                       searches=searches, model_seconds=calls * 0.5)))


@pytest.fixture(scope="module")
def usage_server(tmp_path_factory: pytest.TempPathFactory,
                 playwright_api: Any) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("usage-data")
    _add_user(data_dir, "admin", admin=True)
    _add_user(data_dir, "alice", admin=False)
    _add_user(data_dir, "bob", admin=False)
    _record_runs(data_dir)
    with serving(data_dir, env={"DEEPCITE_LLM_PRICES": "gpt-4o-mini*=0.15/0.6"}) as base:
        yield base


def _log_in(page: Any, base: str, name: str) -> None:
    page.goto(base + "/usage")
    assert "/login" in page.url
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORDS[name])
    page.click("form button[type=submit]")
    page.wait_for_url("**/usage")


def test_alice_sees_her_own_usage_and_what_it_cost(usage_server: str, page: Any) -> None:
    _log_in(page, usage_server, "alice")
    totals = page.locator("dl.totals").inner_text()
    assert "6 in 3.0 s" in totals and "9" in totals  # calls and searches
    # 800k prompt tokens at $0.15 and 200k completion at $0.60 per million
    assert "$0.24" in totals
    models = page.locator("table.models").inner_text()
    assert "local model: no charge" in models and "gpt-4o-mini*" in models
    assert page.locator("table.users-usage").count() == 0
    assert "bob" not in page.locator("main").inner_text()
    chart = page.locator("ul.bars").inner_text().replace("\n", " ")
    assert "1,002,700 tokens, 6 calls" in chart  # the day the runs were made
    page.click("nav.ranges a:has-text('Last 7 days')")
    page.wait_for_url("**/usage?days=7")
    assert page.locator("ul.bars li").count() == 7


def test_the_admin_sees_everyone_by_user_on_a_laptop_and_a_phone(usage_server: str,
                                                     browser: Any) -> None:
    from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]

    problems: list[str] = []
    sizes = (("desktop", {"width": 1280, "height": 900}, "light"), ("phone", PHONE, "light"),
             ("desktop", {"width": 1280, "height": 900}, "dark"), ("phone", PHONE, "dark"))
    for size, viewport, scheme in sizes:
        context = browser.new_context(viewport=viewport, is_mobile=size == "phone",
                                      has_touch=size == "phone", device_scale_factor=1,
                                      color_scheme=scheme)
        try:
            page = context.new_page()
            _log_in(page, usage_server, "admin")
            users = page.locator("table.users-usage").inner_text()
            assert "alice" in users and "bob" in users
            assert "1 failed" in page.locator("dl.totals").inner_text()
            problems += describe(f"usage ({size}, {scheme})",
                                 Axe().run(page, options=AXE_OPTIONS).response["violations"])
            wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            if wide > 0:
                problems.append(f"usage ({size}, {scheme}): the page scrolls sideways by "
                                f"{wide}px")
            if scheme == "dark":
                continue  # the screenshots are of the light pages
            if size == "phone":
                region = page.locator("div.scroll[role=region]").first
                region.focus()
                assert page.evaluate("document.activeElement.getAttribute('role')") == \
                    "region"
                assert region.evaluate("e => e.scrollWidth > e.clientWidth")
                page.screenshot(path=str(SCREENSHOTS / "usage-phone.png"), full_page=True)
            else:
                page.screenshot(path=str(SCREENSHOTS / "usage.png"), full_page=True)
        finally:
            context.close()
    assert not problems, "\n".join(problems)
