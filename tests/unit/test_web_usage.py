"""The usage page, ``GET /api/v1/usage`` and ``deepcite usage`` (issue 47, item 14):
each user sees their own numbers only, an admin everyone's by user; a cost appears only
where a price is set, a local model says it costs nothing; every name is escaped."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from deepcite.cli import app as cli_app
from deepcite.config import load_settings
from deepcite.store import HistoryStore
from tests.unit.test_usage_store import HOSTED, LOCAL, record, used
from tests.unit.test_web_pages_accounts import PASSWORD, Site

HTML_NAME = '<img src=x onerror="alert(1)">'
NOW = datetime.now(UTC)


@pytest.fixture
def site(store_url: str, make_settings: Any) -> Iterator[Site]:
    settings = make_settings(**{"llm.prices": {"gpt-4o-mini*": "1/2"}})
    with HistoryStore.from_url(store_url) as store:
        alice = store.add_user("alice", PASSWORD)
        bob = store.add_user("bob", PASSWORD)
        store.add_user("root", PASSWORD, admin=True)
        record(store, alice.id, NOW - timedelta(minutes=5),
               metrics=used(LOCAL, 3, 700, 70, searches=4, seconds=2.0))
        record(store, alice.id, NOW - timedelta(days=2), status="failed",
               metrics=used(HOSTED, 2, 1_000_000, 500_000, searches=1))
        record(store, bob.id, NOW - timedelta(days=1),
               metrics=used(f"{HTML_NAME} (OpenAI-compatible server)", 11, 4_000, 400,
                            searches=9))
        record(store, bob.id, NOW - timedelta(days=40), metrics=used(LOCAL, 5, 50, 5))
        yield Site(store, settings)


def _main(page: str) -> str:
    return page.split("<main", 1)[1].split("</main>", 1)[0]


def _section(page: str, title: str) -> str:
    return page.split(f'id="{title}-title"', 1)[1].split("</section>", 1)[0]


def test_a_user_sees_their_own_usage_and_costs_only_where_priced(site: Site) -> None:
    page = site.logged_in("alice").get("/usage")
    assert page.status_code == 200
    main = _main(page.text)
    totals = _section(main, "totals")
    assert "2 (1 failed, 0 cancelled)" in totals and "5 in 2.0 s" in totals
    # 1M prompt tokens at $1 and 500k completion at $2 per million; the local model free
    assert "$2.00" in totals and "without a price" not in totals
    models = _section(main, "models")
    assert "local model: no charge" in models and "(gpt-4o-mini*)" in models
    assert "By user" not in main and "bob" not in main and "onerror" not in main
    assert '<a href="/usage"' in page.text.split("<main", 1)[0]  # in the menu
    assert re.search(r'aria-current="page">Last 30 days', main)


def test_an_admin_sees_everyone_by_user_with_names_escaped(site: Site) -> None:
    page = site.logged_in("root").get("/usage?days=7")
    main = _main(page.text)
    users = _section(main, "users")
    assert "alice" in users and "bob" in users
    assert HTML_NAME not in page.text and "&lt;img src=x" in _section(main, "models")
    # bob's model has no price: its calls are counted and its cost is not invented
    assert "unknown (11 calls without a price)" in _section(main, "models")
    assert "+ 11 calls without a price" in _section(main, "totals")
    assert main.count('<li><span class="bar-label">') == 7  # a bar per day
    assert 'class="scroll" tabindex="0" role="region"' in main


def test_the_range_is_one_of_those_offered(site: Site) -> None:
    browser = site.logged_in("bob")
    weeks = _main(browser.get("/usage?days=90").text)
    assert "By week" in weeks and "week of " in weeks
    assert "5" in _section(weeks, "totals")
    odd = _main(browser.get("/usage?days=12345").text)
    assert 'class="problem"' in odd and "showing 30" in odd


def test_a_visitor_who_is_not_logged_in_is_sent_to_the_login(site: Site) -> None:
    reply = site.browser().get("/usage")
    assert reply.status_code == 303 and reply.headers["location"].startswith("/login")


def test_the_api_gives_each_caller_their_own_numbers(site: Site) -> None:
    client = site.browser()
    tokens = {name: site.store.create_token(name, "tests") for name in ("alice", "bob",
                                                                         "root")}

    def usage(name: str, days: int = 30) -> Any:
        reply = client.get(f"/api/v1/usage?days={days}",
                           headers={"Authorization": f"Bearer {tokens[name]}"})
        assert reply.status_code == 200, reply.text
        return reply.json()

    alice, bob, admin = usage("alice"), usage("bob"), usage("root")
    assert alice["totals"]["runs"] == 2 and alice["by_user"] is None
    assert alice["totals"]["cost_usd"] == pytest.approx(2.0)
    assert bob["totals"]["model_calls"] == 11 and bob["totals"]["cost_usd"] is None
    assert bob["totals"]["unpriced_calls"] == 11
    assert admin["totals"]["runs"] == 3
    assert {u["name"]: u["figures"]["runs"] for u in admin["by_user"]} == {"alice": 2,
                                                                           "bob": 1}
    assert usage("bob", 90)["period"] == "week" and usage("bob", 90)["totals"]["runs"] == 2
    assert client.get("/api/v1/usage?days=0", headers={
        "Authorization": f"Bearer {tokens['bob']}"}).status_code == 422
    assert client.get("/api/v1/usage").status_code == 401
    schema = client.get("/api/v1/openapi.json").json()
    assert "UsageReport" in json.dumps(schema["paths"]["/api/v1/usage"])


def test_the_command_prints_the_whole_historys_usage(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    settings = load_settings(config_files=[], environ={"DEEPCITE_DATA_DIR":
                                                        str(tmp_path / "data")})
    with HistoryStore.open(settings) as store:
        record(store, None, NOW - timedelta(hours=1),
               metrics=used(LOCAL, 4, 1_234, 56, searches=3, seconds=1.5))
        record(store, None, NOW - timedelta(days=3), status="cancelled",
               metrics=used(HOSTED, 2, 2_000_000, 0))
    runner = CliRunner()
    shown = runner.invoke(cli_app, ["usage", "--days", "7"], env={"COLUMNS": "250"})
    assert shown.exit_code == 0, shown.output
    assert "2 runs (0 failed, 1 cancelled), 6 model calls" in shown.output
    assert "local model: no charge" in shown.output
    assert "No prices are set (llm.prices)" in shown.output
    monkeypatch.setenv("DEEPCITE_LLM_PRICES", "gpt-4o-mini*=0.5/1")
    data = json.loads(runner.invoke(cli_app, ["usage", "--json"]).output)
    assert data["totals"]["searches"] == 3 and data["totals"]["cost_usd"] == pytest.approx(1.0)
    assert data["by_user"][0]["name"].startswith("no owner")
