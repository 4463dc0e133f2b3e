"""The material work reaches every run through the one ``execute``: a quick answer is
written under its materials' contract, notices say how much of each material the model
saw, and with ``security.redact_material_text`` no log line of the run quotes them."""

from __future__ import annotations

import importlib
import json
import logging
from pathlib import Path
from typing import Any

import pytest

import deepcite.runs.build
from deepcite.config import Settings, load_settings
from deepcite.runs import RunRequest
from deepcite.runs.execute import execute
from tests.unit.test_material_contract import PromptRecorder

#: The module (``deepcite.runs.execute`` is also the function the package exports).
EXECUTE = importlib.import_module("deepcite.runs.execute")
QUESTION = "Based on the provided notes, how do the Quillmoor archivists store ledgers?"
SECRET = "The Quillmoor archivists keep every ledger in cedar boxes lined with copper foil."
NOTES = {"url": "https://notes.example/quillmoor", "title": "Quillmoor notes",
         "content": f"{SECRET} Visitors sign the brass register beside the vault door."}
LONG = {"url": "https://notes.example/long", "title": "Long survey",
        "content": "A survey of cedar box storage in many archives across the north. " * 2000}
ANALYSIS = json.dumps({"materials": [
    {"id": "M1", "relevance": "direct",
     "claims": [{"claim": "Ledgers are kept in copper-lined cedar boxes",
                 "scope": "the Quillmoor archive",
                 "evidence_excerpt": "cedar boxes lined with copper foil"}],
     "limitations": ["one visit"], "gaps": []},
    {"id": "M2", "relevance": "partial", "claims": [], "gaps": []}]})


def _settings(tmp_path: Path, **more: Any) -> Settings:
    return load_settings({"data_dir": str(tmp_path / "data"), "research.iterations": 1,
                          "research.questions_per_iteration": 0, "offline": True,
                          "engines": ["wikipedia"], **more}, config_files=[], environ={})


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **more: Any
         ) -> tuple[PromptRecorder, Any]:
    model = PromptRecorder(script={
        "questions": [""], "material_analysis": [ANALYSIS],
        "material_summary": ["SUMMARY: cedar box storage surveyed across archives."],
        "material_reduce": ["SUMMARY: cedar box storage surveyed across archives."],
        "synthesis": ["Quillmoor ledgers are kept in copper-lined cedar boxes [1]."]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    request = RunRequest(question=QUESTION, materials=[NOTES, LONG])
    return model, execute(request, _settings(tmp_path, **more))


def test_a_quick_answer_is_written_under_its_materials_contract(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model, result = _run(tmp_path, monkeypatch)
    [prompt] = model.prompts("synthesis")
    assert "MATERIALS CONTRACT" in prompt
    assert "Ledgers are kept in copper-lined cedar boxes (scope: the Quillmoor archive)" \
        in prompt
    assert "one visit" in prompt
    # how much of the long material the model saw is said on the run
    notes = [w.message for w in result.warnings if w.code == "materials"]
    assert any("M2" in note and "Long survey" in note for note in notes), notes


def test_redaction_keeps_the_materials_out_of_every_log_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    probe = logging.getLogger("deepcite.research.probe")
    original = EXECUTE.analyse_materials

    def logging_analysis(*args: Any, **kwargs: Any) -> Any:
        probe.info("analysing: %s", SECRET)  # what a careless log line would do
        return original(*args, **kwargs)

    monkeypatch.setattr(EXECUTE, "analyse_materials", logging_analysis)
    _run(tmp_path, monkeypatch, **{"security.redact_material_text": True})
    assert caplog.records and "cedar boxes lined with copper foil" not in caplog.text
    assert "[material text redacted]" in caplog.text
    caplog.clear()
    probe.info("after the run: %s", SECRET)  # the redaction ended with the run
    assert "cedar boxes lined with copper foil" in caplog.text


def test_without_redaction_log_lines_are_left_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    original = EXECUTE.analyse_materials

    def logging_analysis(*args: Any, **kwargs: Any) -> Any:
        logging.getLogger("deepcite.research.probe").info("analysing: %s", SECRET)
        return original(*args, **kwargs)

    monkeypatch.setattr(EXECUTE, "analyse_materials", logging_analysis)
    _run(tmp_path, monkeypatch)
    assert "cedar boxes lined with copper foil" in caplog.text
