"""The run request every front end builds, and the settings of a run made from it."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.config import Settings, load_settings
from deepcite.errors import InputError, MaterialError, RequestError
from deepcite.runs import CancelScope, RunRequest, settings_for_run
from deepcite.runs.local import LocalRunExecutor
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState


@pytest.fixture
def base() -> Settings:
    return load_settings(config_files=[], environ={})


def test_a_request_chooses_its_own_settings_for_this_run_only(base: Settings) -> None:
    request = RunRequest(question="Which cache?", strategy="focused-iteration",
                         handler="precision", answer_mode="grounded", iterations=3,
                         budget={"max_model_calls": 7, "max_seconds": 90},
                         settings={"search.since": "2024-01-01", "report.max_sections": 3})
    settings = settings_for_run(base, request)
    assert settings.research.strategy == "focused-iteration"
    assert settings.citations.handler == "precision"
    assert settings.citations.answer_mode == "grounded"
    assert settings.research.iterations == 3
    assert settings.research.max_model_calls == 7 and settings.research.max_seconds == 90
    assert str(settings.search.since) == "2024-01-01"
    assert settings.report.max_sections == 3
    assert base.research.iterations != 3 and base.report.max_sections != 3  # untouched


def test_the_named_fields_win_over_the_settings_table(base: Settings) -> None:
    request = RunRequest(question="Which cache?", iterations=2,
                         settings={"research.iterations": 5})
    assert settings_for_run(base, request).research.iterations == 2


@pytest.mark.parametrize("key", ["llm.base_url", "security.offline", "data_dir",
                                 "engines.searxng_url", "store.url", "search.engines"])
def test_what_is_the_operators_cannot_be_chosen_by_a_request(key: str) -> None:
    with pytest.raises(InputError, match="cannot be chosen per run"):
        RunRequest.parse(question="Which cache?", settings={key: "x"})


def test_a_bad_per_run_value_names_its_field(base: Settings) -> None:
    with pytest.raises(RequestError) as caught:
        settings_for_run(base, RunRequest(question="q?", settings={"report.max_sections": 99}))
    assert caught.value.field == "settings" and "report.max_sections" in str(caught.value)
    with pytest.raises(RequestError) as unknown:
        settings_for_run(base, RunRequest(question="q?", settings={"research.nonsense": 1}))
    assert unknown.value.field == "settings" and "research.nonsense" in str(unknown.value)


@pytest.mark.parametrize(("fields", "message"), [
    ({"mode": "detailed", "parent_id": "3f9a1b2c"}, "follow-up builds a quick answer"),
    ({"review_outline": True}, "review_outline is for detailed reports"),
    ({"question": "   "}, "The question is empty"),
    ({"question": "cache " * 1000}, "The question is 5,999 characters; at most 4,000"),
    ({"iterations": 0}, "iterations"),
])
def test_a_request_that_cannot_run_is_one_line_naming_the_problem(
        fields: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError) as caught:
        RunRequest.parse(**{"question": "Which cache?", **fields})
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_bad_material_is_named_by_its_position() -> None:
    with pytest.raises(MaterialError, match=r"Material 2 \(javascript:x\): url must be"):
        RunRequest.parse(question="q?", materials=[
            {"url": "/notes/a.md", "content": "fine"},
            {"url": "javascript:x", "content": "bad"}])


def test_the_stored_request_never_holds_the_materials_text() -> None:
    request = RunRequest(question="q?", materials=[{"url": "/me/q3.md",
                                                    "content": "private figures"}])
    assert "materials" not in request.stored()
    assert request.queued()["materials"][0]["content"] == "private figures"
    assert RunRequest.model_validate(request.stored()).question == "q?"


def test_a_cancel_before_the_run_binds_stops_it_at_once() -> None:
    scope = CancelScope()
    stopped: list[str] = []
    scope.cancel()
    scope.bind(lambda: stopped.append("researcher"))
    scope.cancel()  # a second cancel calls nothing twice
    scope.bind(lambda: stopped.append("report"))
    assert stopped == ["researcher", "report"] and scope.cancelled


def test_the_rest_api_refuses_operator_settings_with_422(base: Settings) -> None:
    executor = LocalRunExecutor(base, workers=1)
    try:
        client = TestClient(create_app(WebState(settings=base, executor=executor)))
        reply = client.post("/api/v1/research", json={
            "question": "Which cache?", "settings": {"llm.base_url": "http://169.254.169.254"}})
        assert reply.status_code == 422
        assert "cannot be chosen per run" in reply.text
    finally:
        executor.shutdown()


def test_a_rerun_carries_the_per_run_settings_it_was_made_with(base: Settings) -> None:
    """An executor that starts from its own settings (the web pool, the queue) still
    makes the stored run again: what differed is in the request."""
    from datetime import UTC, datetime

    from deepcite.runs.rerun import rerun_plan
    from deepcite.store import StoredRun
    from deepcite.store.snapshot import settings_snapshot
    from deepcite.types import ResearchResult

    made = base.model_copy(update={
        "research": base.research.model_copy(update={"iterations": 4, "max_sources": 3}),
        "citations": base.citations.model_copy(update={"answer_mode": "grounded"})})
    stored = StoredRun(
        id="a" * 32, created_at=datetime.now(UTC), finished_at=None, status="completed",
        mode="quick", parent_id=None, settings=settings_snapshot(made),
        result=ResearchResult(question="Which cache?", answer="x", strategy="s", handler="h"),
        events=[], request={"question": "Which cache?"})
    plan = rerun_plan(stored, base)
    assert plan.request.settings == {"research.iterations": 4, "research.max_sources": 3,
                                     "citations.answer_mode": "grounded"}
    again = settings_for_run(base, plan.request)
    assert again.research.iterations == 4 and again.citations.answer_mode == "grounded"
