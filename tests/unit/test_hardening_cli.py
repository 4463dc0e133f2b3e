"""Odd input to ``deepcite ask``: huge or invalid questions, SIGTERM, a bad ``-o`` path."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app
from deepcite.errors import InputError
from deepcite.research import Researcher
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

runner = CliRunner()


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "cache.md").write_text("# Cache\n\nThe cache keeps entries for 300 seconds.\n",
                                     encoding="utf-8")
    added = runner.invoke(app, ["collection", "add", str(folder), "--name", "notes"])
    assert added.exit_code == 0, added.output
    return folder


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    model = ScriptedChatModel(script={"questions": ["cache seconds"],
                                      "synthesis": ["The cache keeps entries for 300 seconds "
                                                    "[1]."]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    return model


def test_question_over_the_limit_is_refused_with_the_limit(notes: Path,
                                                             fake_model: ScriptedChatModel
                                                             ) -> None:
    question = "cache " * 20_000
    result = runner.invoke(app, ["ask", question, "-c", "notes", "-q", "--provider", "local"])
    assert result.exit_code == 2
    message = " ".join(result.output.split())  # the console wraps at its width
    assert message.startswith("Error: The question is 119,999 characters")  # whitespace folded
    assert "at most 4,000" in message and "material" in message and "Traceback" not in message
    assert fake_model.calls == []


def test_question_limit_scales_with_the_context(make_settings: Any) -> None:
    engine = MemoryEngine([passage("cache", "The cache keeps entries for 300 seconds.")])
    model = ScriptedChatModel(script={"synthesis": ["Entries live 300 seconds [1]."]})
    question = "How long does the cache keep entries? " * 60  # about 2,300 characters
    small = Researcher(make_settings(**{"llm.context_size": 2048}), model, [engine])
    with pytest.raises(InputError, match="2,048-token"):
        small.run(question)
    large = Researcher(make_settings(**{"llm.context_size": 32768}), model, [engine])
    assert large.run(question).sources


def test_invalid_utf8_question_gives_valid_utf8_json(notes: Path,
                                                     fake_model: ScriptedChatModel) -> None:
    question = "cache caf\udce9 seconds"  # how Python hands over the bytes b"caf\xe9"
    result = runner.invoke(app, ["ask", question, "-c", "notes", "--json", "-q"])
    assert result.exit_code == 0, result.output
    text = result.stdout_bytes.decode("utf-8")  # raises if not valid UTF-8
    assert json.loads(text)["question"] == "cache caf\ufffd seconds"


def test_output_path_is_checked_before_the_run(notes: Path, fake_model: ScriptedChatModel,
                                               tmp_path: Path) -> None:
    for target, reason in ((tmp_path / "missing" / "a.md", "does not exist"),
                           (tmp_path, "is a folder")):
        result = runner.invoke(app, ["ask", "cache", "-c", "notes", "-q", "-o", str(target)])
        assert result.exit_code == 2 and reason in result.output
    assert fake_model.calls == []


def test_sigterm_cancels_like_ctrl_c_and_prints_the_passages(
        notes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel(script={"questions": ["cache seconds"]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    original = deepcite.runs.build.build_researcher

    def build(settings: Any, on_event: Any = None, **options: Any) -> Researcher:
        researcher = original(settings, on_event, **options)
        engine = researcher._engines[0]
        real_search = engine.search
        searched = threading.Event()

        def search(query: str, *, max_results: int) -> Any:
            hits = real_search(query, max_results=max_results)
            if not searched.is_set():
                searched.set()
                os.kill(os.getpid(), signal.SIGTERM)  # what `kill` or a service manager does
                researcher.cancel_token.wait(10)
            return hits

        engine.search = search  # type: ignore[method-assign]
        return researcher

    monkeypatch.setattr(deepcite.runs.build, "build_researcher", build)
    before = signal.getsignal(signal.SIGTERM)
    result = runner.invoke(app, ["ask", "cache seconds", "-c", "notes", "-q",
                                 "--iterations", "3"])
    assert result.exit_code == 130
    assert "cancelled" in result.stdout and "[1]" in result.stdout
    assert "cache.md" in result.stdout and "synthesis" not in model.purposes()
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is put back


def test_an_error_quoting_a_long_path_is_one_line_in_a_narrow_terminal(
        notes: Path, fake_model: ScriptedChatModel, tmp_path: Path) -> None:
    # A hard line break inside the path would make the path in the message unusable:
    # copied from the terminal, it names nothing. The terminal folds the line instead.
    target = tmp_path / ("a-rather-deep-folder-" * 6) / "answer.md"
    result = runner.invoke(app, ["ask", "cache", "-c", "notes", "-q", "-o", str(target)],
                           env={"COLUMNS": "40"})
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("Error:"), result.output
    assert str(target.parent) in errors[0] and "does not exist" in errors[0]
    assert fake_model.calls == []
