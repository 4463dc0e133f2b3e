"""A check executed as every run is (:func:`deepcite.runs.execute`): cancelled by its
scope after the claim it is at, keeping the claims checked until then; its materials
searched like a collection; its budget the run's. The model is faked and says nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

import deepcite.runs.build
from deepcite.config import load_settings
from deepcite.runs import CallbackSink, CancelScope, RunRequest, execute
from deepcite.types import Event, PhaseStarted
from tests.fakes import ScriptedChatModel

DRAFT = ("We keep the cache in Redis with a one hour expiry. "
         "The team meets on Tuesdays to plan the sprint. "
         "The nightly backup starts at 02:00 UTC.")


@pytest.fixture(autouse=True)
def silent_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: ScriptedChatModel())


def test_a_cancelled_check_keeps_the_claims_checked_until_then(notes: Path) -> None:
    settings = load_settings({"search.collections": ["notes"]})
    request = RunRequest.parse(mode="check", document={"text": DRAFT},
                               collections=["notes"])
    scope = CancelScope()
    steps: list[int] = []

    def on_event(event: Event) -> None:
        if isinstance(event, PhaseStarted) and event.phase == "check":
            steps.append(event.step or 0)
            if event.step == 2:
                scope.cancel()  # what Ctrl-C, a cancel button or DELETE do

    result = execute(request, settings, CallbackSink(on_event), scope)
    assert result.cancelled and result.mode == "check"
    assert steps[-1] == 2 and 1 <= len(result.claims) < 3
    assert result.claims[0].text == "We keep the cache in Redis with a one hour expiry."


def test_materials_are_searched_by_a_check(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    settings = load_settings({"security.offline": True})
    handbook = {"url": str(tmp_path / "handbook.md"), "title": "Team handbook",
                "content": "# Backups\n\nThe nightly backup starts at 02:00 UTC.\n"}
    request = RunRequest.parse(mode="check", document={"text": DRAFT},
                               materials=[handbook])
    result = execute(request, settings)
    verdicts = {claim.text: claim for claim in result.claims}
    backup = verdicts["The nightly backup starts at 02:00 UTC."]
    assert backup.verdict == "supported"
    cited = {source.number: source for source in result.sources}
    assert {cited[n].engine for n in backup.citations} == {"user_material"}
    assert verdicts["We keep the cache in Redis with a one hour expiry."].verdict == "not_found"
