"""`deepcite ask` on a Chinese material answers in Chinese, from the material's sentences."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app
from deepcite.text.frames import CHINESE, ENGLISH
from tests.fakes import ScriptedChatModel

MATERIAL = (
    "# 灯塔数据库\n\n"
    "灯塔数据库是一个开源的时间序列数据库。它由陈立明于2016年创建。\n"
    "灯塔的写入缓冲区默认保留45秒，然后写入磁盘。每个集群最多可以包含12个节点。\n"
    "压缩任务每天凌晨两点运行。\n"
)
runner = CliRunner()


def _ask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, question: str,
         model: ScriptedChatModel) -> dict[str, object]:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPCITE_CITATIONS_ANSWER_MODE", "grounded")
    monkeypatch.setenv("DEEPCITE_CITATIONS_SENTENCE_MEANING", "off")
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    notes = tmp_path / "灯塔.md"
    notes.write_text(MATERIAL, encoding="utf-8")
    result = runner.invoke(app, ["ask", question, "--material", str(notes), "--offline",
                                 "-i", "1", "-q", "--json", "--no-save"])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_a_chinese_question_over_a_chinese_material_is_answered_in_chinese(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the small model proposes a wrong value: the short answer is still the source's
    model = ScriptedChatModel(script={"grounded": ["30秒"]})
    data = _ask(tmp_path, monkeypatch, "灯塔的写入缓冲区默认保留多久？", model)
    answer = str(data["answer"])
    assert answer.startswith("**45秒** [1]")
    assert "灯塔的写入缓冲区默认保留45秒，然后写入磁盘 [1]。" in answer
    assert "30秒" not in answer and "Unverified" not in answer
    assert [p for p in model.purposes() if p == "grounded"] == ["grounded"]


def test_an_unanswered_chinese_question_says_so_in_chinese(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel(script={"grounded": ["北京"]})
    data = _ask(tmp_path, monkeypatch, "火星的首都叫什么名字？", model)
    answer = str(data["answer"])
    assert answer.startswith(CHINESE["not_answered"])
    assert ENGLISH["not_answered"] not in answer and "北京" not in answer
    assert "Unverified" not in answer  # the quoted passage is found in the material


def test_the_markdown_answer_heads_its_sources_in_chinese(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPCITE_CITATIONS_ANSWER_MODE", "grounded")
    monkeypatch.setenv("DEEPCITE_CITATIONS_SENTENCE_MEANING", "off")
    model = ScriptedChatModel()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    notes = tmp_path / "灯塔.md"
    notes.write_text(MATERIAL, encoding="utf-8")
    result = runner.invoke(app, ["ask", "每个集群最多可以包含几个节点？", "--material", str(notes),
                                 "--offline", "-i", "1", "-q", "--no-save"])
    assert result.exit_code == 0, result.output
    assert "**12个节点** [1]" in result.stdout
    assert "## 来源" in result.stdout and "## Sources" not in result.stdout
