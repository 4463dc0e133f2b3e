"""Usage and cost over time (issue 47, item 14): the store's one read, on SQLite and
PostgreSQL - each user's own runs, an admin's everyone's by user, the periods of a range,
the models, and a cost only where a price is known."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
import sqlalchemy as sa

from deepcite.config import ModelPrice
from deepcite.store import HistoryStore
from deepcite.store.models import Run
from deepcite.store.usage_ops import (
    LOCAL_NOTE,
    NO_MODEL,
    NO_PRICE_NOTE,
    UNRECORDED_MODEL,
    UNRECORDED_NOTE,
    price_for,
)
from deepcite.store.user_rights import EVERYTHING, Access
from deepcite.types import RunMetrics

NOW = datetime(2026, 3, 18, 15, 0, tzinfo=UTC)  # a Wednesday
LOCAL = "SmolLM2-135M-Instruct.Q4_1.gguf (in-process llama.cpp)"
HOSTED = "gpt-4o-mini (OpenAI-compatible server)"
PASSWORD = "correct horse"


def record(store: HistoryStore, owner: int | None, when: datetime, *,
           status: str = "completed", metrics: RunMetrics | None = None) -> str:
    """A run as the store keeps one, begun ``when`` with ``metrics``."""
    run_id = uuid.uuid4().hex
    with store._engine.begin() as connection:
        connection.execute(sa.insert(Run).values(
            id=run_id, question="q", mode="quick", status=status, created_at=when,
            settings={}, cancelled=status == "cancelled", warnings=[], warning_codes=[],
            unsupported_sentences=[], outline=[], questions_by_iteration={}, findings=[],
            search_text="q", owner_id=owner,
            metrics=None if metrics is None else metrics.model_dump(mode="json")))
    return run_id


def used(model: str | None, calls: int, prompt: int = 0, completion: int = 0,
         cached: int = 0, searches: int = 0, seconds: float = 0.0) -> RunMetrics:
    return RunMetrics(model=model, model_calls=calls, prompt_tokens=prompt,
                      completion_tokens=completion, cached_tokens=cached,
                      searches=searches, model_seconds=seconds)


@pytest.fixture
def people(store: HistoryStore) -> dict[str, Access]:
    """alice and bob, each with runs over the last weeks, and an admin with none."""
    alice = store.add_user("alice", PASSWORD)
    bob = store.add_user("bob", PASSWORD)
    admin = store.add_user("root", PASSWORD, admin=True)
    record(store, alice.id, NOW - timedelta(hours=2),
           metrics=used(LOCAL, 3, 900, 120, searches=4, seconds=2.5))
    record(store, alice.id, NOW - timedelta(days=1, hours=1),
           metrics=used(HOSTED, 2, 1_000_000, 200_000, cached=400_000, searches=2,
                        seconds=1.0))
    record(store, alice.id, NOW - timedelta(days=3), status="failed",
           metrics=used(LOCAL, 1, 50, 0, searches=1))
    record(store, bob.id, NOW - timedelta(days=1), status="cancelled",
           metrics=used(HOSTED, 1, 2_000, 500, searches=3))
    record(store, bob.id, NOW - timedelta(days=20), metrics=used(LOCAL, 5, 500, 50))
    record(store, bob.id, NOW - timedelta(hours=1), status="running")  # no metrics yet
    record(store, bob.id, NOW - timedelta(days=60), metrics=used(LOCAL, 7, 70, 7))
    return {"alice": Access(alice.id, name="alice"), "bob": Access(bob.id, name="bob"),
            "admin": Access(admin.id, admin=True, name="root")}


def test_a_user_sees_only_their_own_usage_day_by_day(store: HistoryStore,
                                                     people: dict[str, Access]) -> None:
    report = store.usage(people["alice"], days=7, now=NOW)
    assert report.period == "day" and report.by_user is None
    assert [p.start for p in report.periods] == [date(2026, 3, 12) + timedelta(days=n)
                                                for n in range(7)]
    totals = report.totals
    assert (totals.runs, totals.failed, totals.cancelled) == (3, 1, 0)
    assert totals.model_calls == 6 and totals.searches == 7
    assert totals.prompt_tokens == 1_000_950 and totals.completion_tokens == 200_120
    assert totals.cached_tokens == 400_000 and totals.model_seconds == pytest.approx(3.5)
    by_day = {p.start: p.figures for p in report.periods}
    assert by_day[date(2026, 3, 18)].model_calls == 3
    assert by_day[date(2026, 3, 17)].prompt_tokens == 1_000_000
    assert by_day[date(2026, 3, 15)].failed == 1
    assert by_day[date(2026, 3, 16)].runs == 0  # an empty day is a row of its own
    bob = store.usage(people["bob"], days=7, now=NOW).totals
    assert (bob.runs, bob.cancelled, bob.model_calls) == (2, 1, 1)  # the running one too


def test_an_admin_sees_everyone_with_a_line_per_user(store: HistoryStore,
                                                     people: dict[str, Access]) -> None:
    report = store.usage(people["admin"], days=30, now=NOW)
    assert report.totals.runs == 6 and report.totals.model_calls == 12
    assert report.by_user is not None
    users = {line.name: line.figures for line in report.by_user}
    assert set(users) == {"alice", "bob"}
    assert users["alice"].runs == 3 and users["bob"].model_calls == 6
    everything = store.usage(EVERYTHING, days=30, now=NOW)
    assert everything.totals == report.totals


def test_longer_ranges_are_shown_by_week_then_by_month(store: HistoryStore,
                                                       people: dict[str, Access]) -> None:
    weekly = store.usage(people["bob"], days=90, now=NOW)
    assert weekly.period == "week"
    assert all(p.start.weekday() == 0 for p in weekly.periods)
    assert weekly.periods[-1].start == date(2026, 3, 16)
    weeks = {p.start: p.figures.model_calls for p in weekly.periods}
    assert weeks[date(2026, 3, 16)] == 1  # 17 March, cancelled
    assert weeks[date(2026, 2, 23)] == 5  # 26 February
    assert weeks[date(2026, 1, 12)] == 7  # 17 January
    assert weekly.totals.model_calls == 13
    monthly = store.usage(people["bob"], days=365, now=NOW)
    assert monthly.period == "month"
    assert [p.label for p in monthly.periods][-3:] == ["2026-01", "2026-02", "2026-03"]
    assert {p.label: p.figures.runs for p in monthly.periods}["2026-01"] == 1


def test_models_are_listed_with_what_their_cost_rests_on(store: HistoryStore,
                                                         people: dict[str, Access]) -> None:
    unpriced = store.usage(people["alice"], days=7, now=NOW)
    models = {line.model: line for line in unpriced.models}
    assert set(models) == {LOCAL, HOSTED}
    assert models[LOCAL].pricing == LOCAL_NOTE and models[LOCAL].figures.cost_usd == 0.0
    assert models[HOSTED].pricing == NO_PRICE_NOTE
    assert models[HOSTED].figures.cost_usd is None  # never invented
    assert unpriced.totals.unpriced_calls == 2 and not unpriced.prices_set

    prices = {"gpt-4o*": ModelPrice(input=5, output=20),
              "gpt-4o-mini*": ModelPrice(input=0.15, output=0.6, cached_input=0.075)}
    priced = store.usage(people["alice"], days=7, now=NOW, prices=prices)
    hosted = {line.model: line for line in priced.models}[HOSTED]
    # 600k fresh prompt tokens at 0.15, 400k cached at 0.075, 200k out at 0.6 per million
    assert hosted.figures.cost_usd == pytest.approx(0.09 + 0.03 + 0.12)
    assert "gpt-4o-mini*" in hosted.pricing
    assert priced.totals.cost_usd == pytest.approx(0.24)
    assert priced.totals.unpriced_calls == 0 and priced.prices_set


def test_a_price_pattern_names_the_model_not_its_server() -> None:
    prices = {"GPT-4o*": ModelPrice(input=1, output=2), "claude-*": ModelPrice(input=3,
                                                                                output=4)}
    assert price_for(HOSTED, prices) == ("GPT-4o*", prices["GPT-4o*"])
    assert price_for("claude-sonnet-4 (Anthropic)", prices) is not None
    assert price_for(LOCAL, prices) is None


def test_runs_that_did_not_record_their_model_are_never_priced(store: HistoryStore) -> None:
    record(store, None, NOW - timedelta(hours=1), metrics=used(None, 4, 100, 10))
    record(store, None, NOW - timedelta(hours=2), metrics=used(None, 0))
    report = store.usage(EVERYTHING, days=1, now=NOW,
                         prices={"*": ModelPrice(input=1, output=1)})
    models = {line.model: line for line in report.models}
    assert models[UNRECORDED_MODEL].figures.cost_usd is None
    assert models[UNRECORDED_MODEL].pricing == UNRECORDED_NOTE
    assert models[NO_MODEL].figures.runs == 1 and models[NO_MODEL].pricing == ""
    assert report.totals.unpriced_calls == 4


def test_runs_outside_the_range_and_bad_ranges(store: HistoryStore,
                                               people: dict[str, Access]) -> None:
    assert store.usage(people["bob"], days=1, now=NOW).totals.runs == 1  # today's only
    with pytest.raises(ValueError, match="days"):
        store.usage(people["bob"], days=0, now=NOW)
