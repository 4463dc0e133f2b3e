"""Choosing strategies by name: spellings, successors, fallback; show-findings output."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from deepcite.cli import app
from deepcite.export.markdown import to_markdown
from deepcite.research import Researcher
from deepcite.research.strategies import resolve_name
from tests.fakes import MemoryEngine, ScriptedChatModel, passage


@pytest.mark.parametrize("name", ["source-based", "source_based", "Source-Based",
                                  "source_based_search", " SOURCE_BASED "])
def test_spellings_of_source_based(name: str) -> None:
    warnings: list[str] = []
    assert resolve_name(name, warnings.append) == "source-based"
    assert warnings == []


def test_replaced_names_map_to_successors_with_a_warning() -> None:
    warnings: list[str] = []
    assert resolve_name("agentic", warnings.append) == "agent"
    assert resolve_name("iterdrag", warnings.append) == "source-based"
    assert len(warnings) == 2 and "not available any more" in warnings[0]


def test_unknown_name_falls_back_and_names_the_known_ones(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": [""], "synthesis": ["Answer [1]."]})
    engine = MemoryEngine([passage("argparse", "argparse parses command line arguments")])
    result = Researcher(make_settings(strategy="deep-magic", iterations=1), model,
                        [engine]).run("parse command line arguments")
    warning = next(w.message for w in result.warnings if "deep-magic" in w.message)
    assert "source-based" in warning and "focused-iteration" in warning
    assert result.sources


def test_strategies_command_lists_each_with_a_line() -> None:
    result = CliRunner().invoke(app, ["strategies"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for name in ("source-based (default)", "focused-iteration", "topic-organization",
                 "agent"):
        assert name in result.output


def test_show_findings_lists_queries_and_phases(make_settings: Any) -> None:
    model = ScriptedChatModel(script={"questions": ["argparse tutorial"],
                                      "synthesis": ["Use argparse [1]."]})
    engine = MemoryEngine([passage("argparse", "argparse parses command line arguments")])
    result = Researcher(make_settings(iterations=1, query_planning="model"), model,
                        [engine]).run("parse command line arguments")
    text = to_markdown(result, show_findings=True)
    assert "## How this answer was found" in text
    assert "**Iteration 1** searched:\n- parse command line arguments\n- argparse tutorial" \
        in text
    assert text.index("How this answer was found") < text.index("## Sources")
    assert "How this answer was found" not in to_markdown(result)
