"""A document checked claim by claim over a real collection: each verdict, numbered
evidence that resolves, progress per claim, shared searches, an earlier version's
verdicts reused, cancel, and the model's verdict only with a verbatim quote."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from deepcite.collections import Collection, LocalSearchEngine
from deepcite.factcheck import run_check
from deepcite.research import Researcher
from deepcite.types import Event, PhaseStarted, ResearchResult
from tests.fakes import ScriptedChatModel

DOCS = {
    "refunds.md": "# Refunds\n\nCustomers may request a refund within 90 days of purchase. "
                  "Refunds are paid to the original card within 5 business days.\n",
    "company.md": "# Osprey Labs\n\nOsprey Labs was founded in 2011 by Maria Lindqvist in "
                  "Uppsala. The company employs 85 people.\n\nThe Osprey sensor does not "
                  "record audio. It weighs 240 grams.\n",
    "pricing.md": "# Pricing\n\nThe basic plan costs 12 euros per month and includes 50 GB "
                  "of storage.\n",
}
DRAFT = """# Launch notes

Customers may request a refund within 30 days of purchase. Osprey Labs was founded in 2011 \
in Uppsala. The Osprey sensor records audio.

The basic plan includes 50 GB of storage, and every customer gets a dedicated account \
manager. The company opened an office on the Moon for lunar tourists.

Is this ready? I think we should launch in May.
"""
EXPECTED = ["contradicted", "supported", "contradicted", "partly_supported", "not_found"]


@pytest.fixture
def collection(tmp_path: Path, make_settings: Any) -> Collection:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    created = Collection.create("facts", settings=make_settings())
    created.add(folder)
    return created


def _researcher(collection: Collection, make_settings: Any, events: list[Event] | None = None,
                model: ScriptedChatModel | None = None, **overrides: Any) -> Researcher:
    settings = make_settings(**{"citations.answer_mode": "grounded", **overrides})
    return Researcher(settings, model or ScriptedChatModel(), [LocalSearchEngine(collection)],
                      on_event=None if events is None else events.append)


def _resolves(result: ResearchResult) -> None:
    numbers = {source.number for source in result.sources}
    assert {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)} <= numbers
    for claim in result.claims:
        assert set(claim.citations) <= numbers
        for item in claim.evidence:
            [source] = [s for s in result.sources if s.number == item.number]
            assert item.start is not None and item.end is not None
            assert source.text[item.start:item.end] == item.quote


def test_each_verdict_over_a_real_collection(collection: Collection, make_settings: Any) -> None:
    events: list[Event] = []
    model = ScriptedChatModel()
    with _researcher(collection, make_settings, events, model) as researcher:
        result = run_check(researcher, DRAFT)
    assert [claim.verdict for claim in result.claims] == EXPECTED
    refund, _, audio, partly, moon = result.claims
    assert "draft: 30 days; source [" in refund.note and "]: 90 days" in refund.note
    assert "does not record audio" in audio.note
    assert "account manager" in partly.note and moon.citations == []
    for claim in result.claims:
        assert DRAFT[claim.start:claim.end] == claim.text
    _resolves(result)
    assert result.question == "Launch notes"
    assert "*(contradicted: draft: 30 days; source [" in result.answer
    assert model.calls == [] and result.metrics.model_calls == 0
    steps = [(e.step, e.total) for e in events if isinstance(e, PhaseStarted)]
    assert steps == [(n, 5) for n in range(1, 6)]
    assert result.metrics.searches == 5 and not result.cancelled


def test_claims_saying_the_same_words_share_one_search(collection: Collection,
                                                       make_settings: Any) -> None:
    draft = ("Refunds are paid to the original card within 5 business days. Refunds are "
             "paid to the original card within 5 business days!")
    with _researcher(collection, make_settings) as researcher:
        result = run_check(researcher, draft)
    assert [c.verdict for c in result.claims] == ["supported", "supported"]
    assert result.metrics.searches == 1
    assert result.claims[0].citations == result.claims[1].citations


def test_a_new_version_reuses_the_unchanged_claims(collection: Collection,
                                                   make_settings: Any) -> None:
    with _researcher(collection, make_settings) as researcher:
        first = run_check(researcher, DRAFT)
    changed = DRAFT.replace("30 days", "90 days")
    with _researcher(collection, make_settings) as researcher:
        second = run_check(researcher, changed, previous=first)
    assert second.metrics.searches == 1  # only the changed claim was searched again
    assert [c.verdict for c in second.claims] == ["supported", *EXPECTED[1:]]
    assert [e.quote for e in second.claims[2].evidence] == [
        e.quote for e in first.claims[2].evidence]
    _resolves(second)


def test_cancel_returns_the_claims_checked(collection: Collection, make_settings: Any) -> None:
    holder: list[Researcher] = []

    def on_event(event: Event) -> None:
        if isinstance(event, PhaseStarted) and event.step == 2 and len(holder) == 1:
            holder.append(holder[0])
            holder[0].cancel()

    settings = make_settings(**{"citations.answer_mode": "grounded"})
    with Researcher(settings, ScriptedChatModel(), [LocalSearchEngine(collection)],
                    on_event=on_event) as researcher:
        holder.append(researcher)
        result = run_check(researcher, DRAFT)
        assert result.cancelled
        assert 1 <= len(result.claims) <= 2 and result.claims[0].verdict == "contradicted"
        assert any(w.code == "cancelled" for w in result.warnings)
        _resolves(result)
        again = run_check(researcher, DRAFT)  # the next check starts uncancelled
    assert not again.cancelled and len(again.claims) == 5


def test_the_search_budget_stops_searching_not_judging(collection: Collection,
                                                       make_settings: Any) -> None:
    with _researcher(collection, make_settings, **{"research.max_searches": 2}) as researcher:
        result = run_check(researcher, DRAFT)
    assert result.metrics.searches == 2 and len(result.claims) == 5
    assert any(w.code == "budget" for w in result.warnings)
    _resolves(result)


def _quote_pricing(prompt: str) -> str:
    """A reply naming the shown source that has the pricing sentence, quoting it."""
    for number, text in re.findall(r'<source id="(\d+)"[^>]*>\n(.*?)\n</source>', prompt, re.S):
        if "basic plan costs" in text:
            return (f"VERDICT: PARTLY\nSOURCE: {number}\n"
                    "QUOTE: The basic plan costs 12 euros per month")
    return "VERDICT: NOT_FOUND"


def test_a_capable_models_verdict_counts_only_with_a_verbatim_quote(
        collection: Collection, make_settings: Any) -> None:
    draft = ("The basic plan costs 12 euros per month and comes with a dedicated account "
             "manager.")
    invented = ScriptedChatModel(script={"check": [
        "VERDICT: SUPPORTED\nSOURCE: 1\nQUOTE: Every customer gets a dedicated manager."]})
    with _researcher(collection, make_settings, model=invented,
                     **{"citations.answer_mode": "abstractive"}) as researcher:
        result = run_check(researcher, draft)
    assert result.claims[0].verdict != "supported"
    assert invented.purposes() == ["check"]
    quoting = ScriptedChatModel(script={"check": [_quote_pricing]})
    with _researcher(collection, make_settings, model=quoting,
                     **{"citations.answer_mode": "abstractive"}) as researcher:
        result = run_check(researcher, draft)
    [claim] = result.claims
    assert claim.verdict == "partly_supported" and len(quoting.calls) == 1
    assert claim.evidence[0].quote.startswith("The basic plan costs 12 euros per month")
    _resolves(result)


def test_materials_are_judged_without_a_search(make_settings: Any) -> None:
    from tests.fakes import passage

    notes = [passage("Notes", "The Osprey sensor weighs 240 grams and does not record audio.")]
    settings = make_settings(**{"citations.answer_mode": "grounded"})
    with Researcher(settings, ScriptedChatModel(), []) as researcher:
        result = run_check(researcher, "The Osprey sensor weighs 300 grams.", materials=notes)
    [claim] = result.claims
    assert claim.verdict == "contradicted" and "source [1]: 240 grams" in claim.note
    assert result.metrics.searches == 0 and result.sources[0].title == "Notes"
    assert [w.code for w in result.warnings] == ["no_engines"]


def test_a_claim_the_judge_fails_on_is_left_undecided_and_the_rest_are_checked(
        collection: Collection, make_settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # a bug met on one odd sentence must not cost the claims after it
    from deepcite.factcheck import check as check_module

    real = check_module.judge

    def judge(text: str, *args: Any, **kwargs: Any) -> Any:
        if "Uppsala" in text:
            raise ValueError("could not convert string to float: '05:00'")
        return real(text, *args, **kwargs)

    monkeypatch.setattr(check_module, "judge", judge)
    with _researcher(collection, make_settings) as researcher:
        result = run_check(researcher, DRAFT)
    assert [c.verdict for c in result.claims] == [
        "contradicted", "not_found", "contradicted", "partly_supported", "not_found"]
    assert "not judged" in result.claims[1].note
    assert [w.code for w in result.warnings] == ["claim_failed"]
    assert result.error is None and not result.cancelled
    _resolves(result)


def test_a_clock_time_after_a_bare_number_is_read_without_failing() -> None:
    # "from 7 to 05:00": the bare 7 does not take the clock's "unit" as a share of it
    from deepcite.factcheck.values import extract_values

    values = extract_values("The night bus runs from 7 to 05:00 on Saturdays.")
    assert [v.key for v in values if v.unit == "clock"] == ["05:00"]


def test_clock_times_beside_counted_numbers_are_read_without_failing() -> None:
    # a clock time's key ("10:00") is no plain number: a number word joined to it
    # ("at 10:00, and three vans") neither takes its unit nor fails on it
    from deepcite.factcheck.values import extract_values

    values = extract_values("Doors open at 10:00, and three vans deliver before 9 or ten.")
    assert [(v.key, v.unit) for v in values][:2] == [("10:00", "clock"), ("3", "vans")]
