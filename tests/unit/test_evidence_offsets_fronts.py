"""Evidence offsets as every front end hands them out: ``deepcite ask --json``, the JSON
export, the REST API's run and source view, and the MCP server's stored report.

A collection of awkward files (CRLF line ends, accents, an emoji outside the BMP, CJK,
tabs and runs of spaces, reST roles, HTML entities) and a material with CRLF line ends
are researched with a model that quotes its sources the way small models do: sentence
after sentence, each with its marker, markup and all. For every span reported,
``(full_text or snippet)[start:end]`` is the quote, and the quote holds its claim's first
word.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app
from deepcite.config import Settings
from deepcite.export import export_report
from deepcite.export.base import ExportOptions
from deepcite.mcp_server.lookups import stored_report
from deepcite.runs.executor import RunInfo
from deepcite.store import HistoryStore
from deepcite.store.user_rights import EVERYTHING
from deepcite.text.cjk import has_cjk
from deepcite.text.sentences import split_sentences
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.fakes import ScriptedChatModel
from tests.unit.test_evidence_offsets import CAFE, CJK, CSV
from tests.unit.test_web_pages import FakeExecutor

runner = CliRunner()
_SOURCE = re.compile(r'<source id="(\d+)"[^>]*>\n(.*?)\n</source>', re.S)
_WORD = re.compile(r"\w+")
OPENING = ("Opening hours\r\n\r\nThe Été terrace opens at 9:30 from May to September.\r\n"
           "Le salon de thé 🍵 ferme à 19 h.\r\n")


def _quoting(prompt: str) -> str:
    """A synthesis that quotes each source's first sentences, one marker each."""
    out = []
    for number, body in _SOURCE.findall(prompt):
        for sentence in split_sentences(body)[:4]:
            out.append(f"{' '.join(sentence.split()).rstrip('.。')} [{number}].")
    return " ".join(out) or "Nothing."


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Three questions asked with ``--json``; their printed results."""
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in (("csv.txt", CSV), ("cafe.txt", CAFE), ("cache.txt", CJK)):
        (folder / name).write_bytes(text.encode("utf-8"))
    materials = tmp_path / "materials.json"
    materials.write_text(json.dumps([{"url": "https://cafe.example/hours", "title": "Hours",
                                      "content": OPENING, "material_id": "hours"}]),
                         encoding="utf-8")
    model = ScriptedChatModel(script={"synthesis": [_quoting]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    assert runner.invoke(app, ["collection", "add", str(folder), "--name", "docs"]).exit_code == 0
    printed = []
    for question, extra in (("How do I read rows with the csv module?", []),
                            ("When does the café open?", ["--materials", str(materials)]),
                            ("斑马缓存的条目保留多久?", [])):
        result = runner.invoke(app, ["ask", question, "-c", "docs", "--json", "-q", *extra])
        assert result.exit_code == 0, result.output
        printed.append(json.loads(result.stdout))
    return printed


def _assert_exact(data: dict[str, Any]) -> int:
    """Every reported span of ``data`` (a JSON result) is its quote; how many there are."""
    texts = {s["number"]: s["full_text"] or s["snippet"] for s in data["sources"]}
    spans = 0
    for check in data["citation_checks"]:
        if check["quote"] is None:
            continue
        text = texts[check["source_number"]]
        start, end = check["start"], check["end"]
        assert text[start:end] == check["quote"], check
        # on a word's edge (CJK text has no word edges to keep)
        assert not (start and text[start - 1].isalnum() and text[start].isalnum()
                    and not has_cjk(text[start - 1:start + 1])), check
        first = _WORD.findall(check["sentence"])[0]
        assert check["quote"].startswith(first) or first in check["quote"][:40], check
        spans += 1
    return spans


def test_ask_json_spans_index_the_stored_text(runs: list[dict[str, Any]]) -> None:
    assert sum(_assert_exact(data) for data in runs) >= 8
    quotes = [c["quote"] for data in runs for c in data["citation_checks"] if c["quote"]]
    assert any("😀" in q for q in quotes) and any("斑马" in q for q in quotes)
    assert any("🍵" in q or "Été terrace" in q for q in quotes)  # the CRLF material


def _settings(tmp_path: Path, make_settings: Any) -> Settings:
    value: Settings = make_settings(data_dir=str(tmp_path / "data"))
    return value


def test_rest_mcp_and_export_give_the_same_exact_spans(
        runs: list[dict[str, Any]], tmp_path: Path, make_settings: Any) -> None:
    settings = _settings(tmp_path, make_settings)
    with HistoryStore.open(settings) as store:
        ids = [info.id for info in store.list()]
        results = [store.get(run_id).result for run_id in ids]
    assert len(ids) == 3
    executor = FakeExecutor(settings)
    for run_id, result in zip(ids, results, strict=True):
        executor.infos[run_id] = RunInfo(id=run_id, question=result.question, mode="quick",
                                         state="completed", created_at=datetime.now(UTC))
    client = TestClient(create_app(WebState(
        settings=settings, executor=executor, token=None)))  # type: ignore[arg-type]
    for run_id, result in zip(ids, results, strict=True):
        reply = client.get(f"/api/v1/research/{run_id}")
        assert reply.status_code == 200
        rest = reply.json()["result"]
        _assert_exact(rest)
        _, mcp = stored_report(run_id, EVERYTHING)
        assert mcp["citation_checks"] == rest["citation_checks"]
        _assert_exact(mcp)
        exported = export_report(result, "json", ExportOptions())
        _assert_exact(json.loads(exported.data))
        for check in rest["citation_checks"]:
            if check["quote"] is None:
                continue
            view = client.get(f"/api/v1/runs/{run_id}/sources/{check['source_number']}")
            if not view.json()["text_kept"]:
                continue
            source = next(s for s in rest["sources"] if s["number"] == check["source_number"])
            text = source["full_text"] or source["snippet"]
            for quote in view.json()["quotes"]:
                assert text[quote["start"]:quote["end"]] == quote["quote"]
