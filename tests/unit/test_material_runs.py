"""Runs built on the user's materials: cited as sources, web searched only for gaps."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app
from deepcite.research import Researcher
from deepcite.research.material_runs import analyse_materials
from deepcite.research.report.builder import DetailedReport
from deepcite.runs.execute import run_question
from deepcite.store import HistoryStore
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "How do we parse command line arguments in our tools?"
REQUIRED = "Based on the provided materials, how do we parse command line arguments?"
WEB = [passage("argparse", "The argparse module parses command line arguments for "
               "Python programs."),
       passage("click", "Click builds command line interfaces with decorators.")]
NOTES = {"url": "/home/me/notes/cli.md", "title": "CLI conventions",
         "content": "Our tools parse command line arguments with click groups. Every "
                    "command has a --dry-run option."}
PAPER = {"url": "https://papers.example/logging.pdf", "title": "Logging study",
         "content": "Structured logging reduces incident time by a third."}


def _cite_all(prompt: str) -> str:
    return " ".join(f"Said here [{n}]." for n in re.findall(r'<source id="(\d+)"', prompt))


def _relevance(**records: dict[str, Any]) -> str:
    return json.dumps({"materials": [{"id": k, **v} for k, v in records.items()]})


COVERED = _relevance(M1={"relevance": "direct", "claims": [
    {"claim": "click groups", "scope": "our tools", "evidence_excerpt": "click groups",
     "confidence": 0.9}], "gaps": []})
GAPPED = _relevance(M1={"relevance": "partial", "claims": [
    {"claim": "click groups", "scope": "our tools", "evidence_excerpt": "click groups",
     "confidence": 0.9}], "gaps": ["argparse subcommands"]})


def _model(analysis: str = "", outline: str = "") -> ScriptedChatModel:
    return ScriptedChatModel(script={
        "questions": [""], "synthesis": [_cite_all], "section": [_cite_all],
        "material_analysis": [analysis], "outline": [outline]})


def _researcher(make_settings: Any, model: ScriptedChatModel, engine: MemoryEngine
                ) -> Researcher:
    settings = make_settings(**{"iterations": 1, "questions_per_iteration": 0,
                                "citations.verify": False, "max_sources": 2})
    return Researcher(settings, model, [engine])


def _quick(make_settings: Any, question: str, materials: list[dict[str, Any]],
           analysis: str = "") -> tuple[Any, MemoryEngine, ScriptedChatModel]:
    engine, model = MemoryEngine(WEB), _model(analysis)
    with _researcher(make_settings, model, engine) as researcher:
        analysed = analyse_materials(researcher, question, materials)
        result = run_question(researcher, question, materials=analysed)
    return result, engine, model


def test_materials_are_cited_like_any_source(make_settings: Any) -> None:
    result, engine, model = _quick(make_settings, QUESTION, [NOTES])
    material = result.sources[0]
    assert (material.number, material.engine, material.url) == \
        (1, "user_material", "/home/me/notes/cli.md")
    assert material.metadata["material_id"] == "M1"
    assert "[1]" in result.answer
    assert engine.queries  # supplementary: the web is searched as usual
    prompt = next(user for purpose, user in model.calls if purpose == "synthesis")
    fenced = prompt.split('<source id="1"', 1)[1].split("</source>", 1)[0]
    assert "click groups" in fenced  # material text goes in fenced, as data


def test_required_and_covered_skips_the_web(make_settings: Any) -> None:
    result, engine, _ = _quick(make_settings, REQUIRED, [NOTES], COVERED)
    assert engine.queries == []
    assert {s.engine for s in result.sources} == {"user_material"}


def test_required_with_gaps_searches_only_the_gaps(make_settings: Any) -> None:
    _, engine, _ = _quick(make_settings, REQUIRED, [NOTES], GAPPED)
    assert engine.queries == ["argparse subcommands"]


def test_an_unusable_analysis_keeps_every_material_and_searches(make_settings: Any) -> None:
    result, engine, _ = _quick(make_settings, REQUIRED, [NOTES, PAPER], "no idea")
    assert {s.url for s in result.sources if s.engine == "user_material"} == \
        {NOTES["url"], PAPER["url"]}
    assert engine.queries  # fallback relevance never skips the web


def test_irrelevant_materials_are_left_out(make_settings: Any) -> None:
    analysis = _relevance(M1={"relevance": "direct"}, M2={"relevance": "irrelevant"})
    result, _, _ = _quick(make_settings, QUESTION, [NOTES, PAPER], analysis)
    assert PAPER["url"] not in {s.url for s in result.sources}


def test_materials_switched_off_are_ignored_with_one_warning(
        make_settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    monkeypatch.setattr(deepcite.runs.build, "build_engines",
                        lambda settings, on_build=None: ([MemoryEngine(WEB)], []))
    result = deepcite.quick_summary(QUESTION, materials=[NOTES], materials_enabled=False,
                                        iterations=1, data_dir=str(make_settings().data_dir))
    assert [w.code for w in result.warnings].count("materials_ignored") == 1
    assert all(s.engine != "user_material" for s in result.sources)
    assert result.with_warnings([]) is result


def _section_sources(model: ScriptedChatModel) -> list[str]:
    """The sources each part's writer was given (not the report written so far)."""
    return [user.split("What is already known")[0]
            for purpose, user in model.calls if purpose == "section"]


def test_report_parts_use_only_their_bound_materials(make_settings: Any,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    outline = ("1. Our conventions - how our tools parse arguments [M1]\n"
               "2. Logging - what we know about logs [M2]\n"
               "3. Libraries - the public options\n")
    engine, model = MemoryEngine(WEB), _model(outline=outline)
    caplog.set_level(logging.INFO, logger="deepcite.materials")
    with _researcher(make_settings, model, engine) as researcher:
        analysed = analyse_materials(researcher, QUESTION, [NOTES, PAPER])
        result = DetailedReport(researcher).run(QUESTION, materials=analysed)
    # "Libraries" found only passages the parts above quote already: it is left out
    assert [e.materials for e in result.outline] == [["M1"], ["M2"]]
    assert "Libraries" not in result.answer
    prompts = _section_sources(model)
    assert "click groups" in prompts[0] and "Structured logging" not in prompts[0]
    assert "Structured logging" in prompts[1]
    assert "click groups" not in prompts[2] and "Structured logging" not in prompts[2]
    routes = [r.getMessage() for r in caplog.records if "[MATERIAL_ROUTE]" in r.getMessage()]
    assert any("Our conventions" in line and "material_docs=1" in line for line in routes)


def test_a_default_outline_binds_every_usable_material(make_settings: Any) -> None:
    engine, model = MemoryEngine(WEB), _model(outline="no outline here")
    with _researcher(make_settings, model, engine) as researcher:
        analysed = analyse_materials(researcher, QUESTION, [NOTES])
        result = DetailedReport(researcher).run(QUESTION, materials=analysed)
    assert all(entry.materials == ["M1"] for entry in result.outline)
    prompts = [user for purpose, user in model.calls if purpose == "section"]
    assert prompts and all("click groups" in p for p in prompts)


def test_subsections_inherit_their_sections_materials(make_settings: Any) -> None:
    outline = ("1. Our conventions - how our tools parse arguments [M1]\n"
               "   1.1 Options - which options\n"
               "   1.2 Logging - logs [M2]\n"
               "2. Libraries - the public options\n")
    engine, model = MemoryEngine(WEB), _model(outline=outline)
    with _researcher(make_settings, model, engine) as researcher:
        analysed = analyse_materials(researcher, QUESTION, [NOTES, PAPER])
        DetailedReport(researcher).run(QUESTION, materials=analysed)
    prompts = _section_sources(model)
    assert "click groups" in prompts[0]  # 1.1 inherits M1
    assert "Structured logging" in prompts[1] and "click groups" not in prompts[1]


runner = CliRunner()


def test_cli_material_files_are_cited_and_stored_with_their_cited_passage_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    model = _model()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    notes = tmp_path / "cli.md"
    notes.write_text("# CLI conventions\n\nOur tools parse command line arguments with "
                     "click groups.\n", encoding="utf-8")
    result = runner.invoke(app, ["ask", QUESTION, "--material", str(notes), "--offline",
                                 "-i", "1", "-q", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    material = next(s for s in data["sources"] if s["engine"] == "user_material")
    assert material["url"] == str(notes.resolve())
    assert f"[{material['number']}]" in data["answer"]
    with HistoryStore.open(deepcite.config.load_settings()) as store:
        stored = store.get(store.list()[0].id)
    kept = next(s for s in stored.result.sources if s.engine == "user_material")
    assert kept.url == str(notes.resolve()) and kept.title
    # the cited passage is kept (follow-ups check it again), never the whole material
    assert "click groups" in kept.snippet and kept.full_text is None


def test_cli_refuses_a_bad_material_before_the_run(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    model = _model()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    listing = tmp_path / "materials.json"
    listing.write_text(json.dumps([{"url": "javascript:alert(1)", "content": "x"}]),
                       encoding="utf-8")
    result = runner.invoke(app, ["ask", QUESTION, "--materials", str(listing), "-q"])
    assert result.exit_code == 2
    assert "url" in result.output and model.calls == []


def test_a_pdf_materials_page_numbers_reach_the_sources_block(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.factories import make_pdf

    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    model = _model()
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    paper = make_pdf(tmp_path / "paper.pdf", [
        "An introduction about nothing in particular.",
        "Our tools parse command line arguments with click groups."], title="Tools paper")
    result = runner.invoke(app, ["ask", QUESTION, "--material", str(paper), "--offline",
                                 "-i", "1", "-q"])
    assert result.exit_code == 0, result.output
    block = result.stdout.split("## Sources", 1)[1]
    assert "Tools paper" in block and str(paper.resolve()) in block
    assert re.search(r"Your material: M1, pp?\. .*2", block), block


def test_a_long_material_is_summarised_once_per_conversation(make_settings: Any) -> None:
    from deepcite.materials import SummaryCache

    long_text = " ".join(f"Sentence {i} says our tools use click groups." for i in range(3000))
    material = {"url": "/home/me/long.md", "content": long_text}
    engine, model = MemoryEngine(WEB), _model()
    model.script["material_summary"] = ["Our tools use click groups throughout."]
    model.script["material_reduce"] = ["Our tools use click groups everywhere."]
    cache = SummaryCache()
    with _researcher(make_settings, model, engine) as researcher:
        first = analyse_materials(researcher, QUESTION, [material], cache=cache)
        calls = model.purposes().count("material_summary")
        second = analyse_materials(researcher, "And the dry-run flag?", [material], cache=cache)
    assert calls >= 1 and model.purposes().count("material_summary") == calls
    assert first.analysis.items[0].summary_kind != "fulltext"
    assert second.analysis.items[0].cached


def test_the_analysis_call_also_gives_the_queries(make_settings: Any) -> None:
    analysis = json.dumps({"materials": [{"id": "M1", "relevance": "partial"}],
                           "queries": ["click vs argparse", "click vs argparse"]})
    engine, model = MemoryEngine(WEB), _model(analysis)
    settings = make_settings(**{"iterations": 1, "questions_per_iteration": 3,
                                "citations.verify": False})
    with Researcher(settings, model, [engine]) as researcher:
        analysed = analyse_materials(researcher, QUESTION, [NOTES])
        run_question(researcher, QUESTION, materials=analysed)
    assert engine.queries == [QUESTION, "click vs argparse"]
    assert "questions" not in model.purposes()  # no second call for queries
