"""The reference's benchmark names select their handlers: ``browsecomp`` and
``forced_answer`` are ``forced``, ``simpleqa`` and ``precision_extraction`` are
``precision`` - silently, and every run records the canonical name."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from typer.testing import CliRunner

from deepcite import plugins as registry
from deepcite.citations.handlers import (
    ForcedCitationHandler,
    PrecisionCitationHandler,
    StandardCitationHandler,
    get_handler,
    handler_statuses,
)
from deepcite.citations.handlers.forced import FORCED_PREFIX
from deepcite.cli import app
from deepcite.llm import ChatClient
from deepcite.research import Researcher
from deepcite.store.history import HistoryStore
from deepcite.types import ResearchResult
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "When was argparse added to the standard library?"
PASSAGES = [
    passage("argparse history", "argparse was added to the standard library in 2011 "
                                "with Python 3.2."),
    passage("optparse", "optparse is deprecated since 2011 in favour of argparse."),
]
ANSWER = "It arrived with Python 3.2 in 2011 [1]."


class ShadowHandler:
    """A plugin trying to take the name ``simpleqa``."""

    name = "shadow"
    follows_strategy = False

    def __init__(self, client: Any) -> None:
        self._client = client


def _client() -> ChatClient:
    return ChatClient(ScriptedChatModel(), context_size=4096, max_tokens=256)


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(script={
        "questions": ["argparse standard library"], "synthesis": [ANSWER],
        "precision": ["2011"], "forced": [ANSWER]})


def _run(make_settings: Any, handler: str) -> ResearchResult:
    settings = make_settings(**{"iterations": 1, "citations.handler": handler})
    return Researcher(settings, _model(), [MemoryEngine(PASSAGES)]).run(QUESTION)


@pytest.mark.parametrize(("alias", "cls", "canonical"), [
    ("forced_answer", ForcedCitationHandler, "forced"),
    ("browsecomp", ForcedCitationHandler, "forced"),
    ("BrowseComp", ForcedCitationHandler, "forced"),
    ("Forced-Answer", ForcedCitationHandler, "forced"),
    ("precision_extraction", PrecisionCitationHandler, "precision"),
    ("simpleqa", PrecisionCitationHandler, "precision"),
    (" SimpleQA ", PrecisionCitationHandler, "precision"),
])
def test_an_alias_gives_its_handler_without_a_warning(alias: str, cls: type[Any],
                                                      canonical: str) -> None:
    warnings: list[str] = []
    handler = get_handler(alias, _client(), warnings.append)
    assert isinstance(handler, cls) and handler.name == canonical
    assert warnings == []


def test_browsecomp_runs_forced_and_the_store_keeps_forced(make_settings: Any) -> None:
    settings = make_settings(**{"iterations": 1, "citations.handler": "browsecomp"})
    result = Researcher(settings, _model(), [MemoryEngine(PASSAGES)]).run(QUESTION)
    assert result.handler == "forced" and result.answer.startswith(FORCED_PREFIX)
    assert [w for w in result.warnings if w.code == "handler"] == []
    with HistoryStore.open(settings) as store:
        run_id = store.begin(QUESTION, mode="quick", settings=settings)
        store.finish(run_id, result)
        assert store.get(run_id).result.handler == "forced"


def test_simpleqa_runs_precision(make_settings: Any) -> None:
    result = _run(make_settings, "simpleqa")
    assert result.handler == "precision" and result.answer.startswith("2011 [1]")
    assert [w for w in result.warnings if w.code == "handler"] == []


def test_an_unknown_name_still_warns_and_uses_standard(make_settings: Any) -> None:
    warnings: list[str] = []
    assert isinstance(get_handler("simple-qa", _client(), warnings.append),
                      StandardCitationHandler)
    # The near miss of an alias points at the handler the alias stands for.
    assert warnings == ["Unknown citation handler 'simple-qa'; using 'standard' "
                        "(did you mean 'precision'?)"]
    result = _run(make_settings, "browse-comp-plus")
    assert result.handler == "standard" and result.answer.startswith("It arrived")
    handler = [w.message for w in result.warnings if w.code == "handler"]
    assert len(handler) == 1 and handler[0].startswith(
        "Unknown citation handler 'browse-comp-plus'; using 'standard'")


def test_the_listing_shows_the_aliases_under_their_handler() -> None:
    rows = {row.name: row for row in handler_statuses()}
    assert list(rows) == ["standard", "forced", "precision"]  # aliases are not handlers
    assert rows["forced"].aliases == ("forced-answer", "browsecomp")
    assert rows["precision"].aliases == ("precision-extraction", "simpleqa")
    assert rows["standard"].aliases == ()
    shown = CliRunner().invoke(app, ["strategies"], env={"COLUMNS": "300"})
    assert shown.exit_code == 0, shown.output
    table = " ".join(shown.output.split())  # a cell may wrap, whatever the width
    assert "Also: forced-answer, browsecomp." in table
    assert "Also: precision-extraction, simpleqa." in table
    data = json.loads(CliRunner().invoke(app, ["strategies", "--json"]).stdout)
    assert [h["name"] for h in data["citation_handlers"]] == ["standard", "forced",
                                                              "precision"]
    assert [h["aliases"] for h in data["citation_handlers"]] == [
        [], ["forced-answer", "browsecomp"], ["precision-extraction", "simpleqa"]]


def test_a_plugin_cannot_take_an_alias(plugins: Callable[..., None]) -> None:
    plugins(registry.CITATION_HANDLERS_GROUP, simpleqa=f"{__name__}:ShadowHandler")
    warnings: list[str] = []
    assert isinstance(get_handler("simpleqa", _client(), warnings.append),
                      PrecisionCitationHandler)
    assert warnings == []
    assert [row.name for row in handler_statuses()] == ["standard", "forced", "precision"]
