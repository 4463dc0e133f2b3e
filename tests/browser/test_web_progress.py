"""The research form's offline defaults and the live run page, in a real Chromium.

This module's server runs offline (``DEEPCITE_SECURITY_OFFLINE=1``) with the bundled
model: no web engine is usable, so the form must preselect the demo collection and
open its "Sources and model" part. A detailed report on the demo collection must then
show named phases (the outline, part k of N), a progress bar, and live counters that
end where the report's do.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.support import QUESTION, SCREENSHOTS, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser]

#: Installed in every page before its scripts: each change of the live section is
#: handed to the test (``recordProgress``), across the reloads of the run page.
OBSERVER = """
window.addEventListener("DOMContentLoaded", () => {
  const live = document.getElementById("live");
  if (!live) { return; }
  const text = (id) => (document.getElementById(id) || {}).textContent || "";
  const snap = () => window.recordProgress({
    phase: text("phase"), section: text("section"), step: text("step"), calls: text("calls"),
    tokens: text("tokens"), searches: text("searches"), queries: text("queries"),
    log: document.querySelectorAll("#log-items li").length,
    bar: !!document.getElementById("bar"), path: location.pathname});
  snap();
  new MutationObserver(snap).observe(live, {subtree: true, childList: true,
                                            characterData: true, attributes: true});
});
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, playwright_api: Any) -> Iterator[str]:
    """`deepcite serve`, offline, on a free loopback port (as conftest's, offline)."""
    data_dir = tmp_path_factory.mktemp("web-offline-data")
    with serving(data_dir, env={"DEEPCITE_SECURITY_OFFLINE": "1"}) as base:
        yield base


def _number(text: str) -> int:
    digits = re.sub(r"\D", "", text)
    return int(digits) if digits else 0


def test_offline_form_preselects_the_demo_collection(page: Any, server: str) -> None:
    page.goto(server + "/")
    assert page.locator("#sources-and-model").get_attribute("open") is not None
    demo = page.locator("input[name=collections][value=demo]")
    assert demo.is_visible() and demo.is_checked()
    assert page.locator("input[name=engines][value=duckduckgo]").is_disabled()
    assert "offline" in page.locator("#no-web").inner_text()
    assert not re.search(r"--[a-z]", page.locator("main").inner_text())  # page words only


def test_detailed_report_shows_named_phases_and_consistent_counters(page: Any,
                                                                    server: str) -> None:
    snapshots: list[dict[str, Any]] = []
    def record(snapshot: dict[str, Any]) -> None:
        snapshots.append(snapshot)

    page.expose_function("recordProgress", record)
    page.add_init_script(OBSERVER)
    page.goto(server + "/")
    page.fill("textarea[name=question]", QUESTION)
    page.check("input[name=mode][value=detailed]")
    assert page.locator("input[name=collections][value=demo]").is_checked()  # preselected
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r".*/runs/[0-9a-f]{32}"), timeout=30_000)
    page.wait_for_function("() => /^Part|Writing|Searching|Building|Reading|Choosing/"
                           ".test((document.getElementById('phase') || {}).textContent"
                           " || '')", timeout=120_000)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "run-phases.png"), full_page=True)
    page.wait_for_url(re.compile(r".*/reports/[0-9a-f]{32}"), timeout=600_000)
    live = [s for s in snapshots if s["path"].startswith("/runs/")]
    assert live and all(s["bar"] for s in live)
    phases = {s["phase"] for s in live}
    assert "Writing the outline" in phases, phases
    assert any(s["section"].startswith("1 of ") for s in live), phases
    assert not any(p.lower() in ("finished", "done") for p in phases)
    # while the outline is written the step says so; in a part, a step is the part's
    assert all(s["step"] != "-" for s in live if s["phase"] == "Writing the outline"), live
    assert all("(part " in s["step"] for s in live
               if s["section"] and re.match(r"\d+ of \d+", s["step"])), live
    assert max(s["log"] for s in live) > 0
    last = live[-1]
    facts = page.locator("main").inner_text()
    calls = re.search(r"Model calls\s+([\d,]+)", facts)
    tokens = re.search(r"Tokens\s+([\d,]+)", facts)
    assert calls and tokens, facts
    assert _number(last["calls"]) == _number(calls.group(1)) > 0
    assert _number(last["tokens"]) == _number(tokens.group(1))
    # the parts' own searches are counted as they run and their queries shown (issue 47,
    # item 4): the counter ends at the stored count, and while a part is written the
    # current queries are never the summary's (a part's own, or none when it searches
    # nothing, as a part written from its facet's passages)
    run_id = live[-1]["path"].rsplit("/", 1)[-1]
    stored = page.request.get(f"{server}/api/v1/research/{run_id}").json()
    outline = [s for s in live if s["phase"] == "Writing the outline" and not s["section"]]
    assert outline and outline[-1]["queries"], phases
    assert _number(last["searches"]) == stored["result"]["metrics"]["searches"]
    assert all(s["queries"] != outline[-1]["queries"] for s in live if s["section"]), live
