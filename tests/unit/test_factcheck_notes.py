"""A contradiction's note names the source's value in the source's own words, so a
reader finds it in the quote: its case and its whole word, in any script."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepcite.collections import Collection, LocalSearchEngine
from deepcite.factcheck import run_check
from deepcite.factcheck.check import as_written
from deepcite.research import Researcher
from tests.fakes import ScriptedChatModel


def test_a_value_is_shown_as_the_sentence_writes_it() -> None:
    assert as_written("tuesday", "All our beans are roasted on Tuesdays.") == "Tuesdays"
    assert as_written("free", "Children under ten go FREE.") == "FREE"
    # a value the sentence does not hold is kept as the judge gave it
    assert as_written("90 days", "Refunds are possible for three months.") == "90 days"
    # a word is not completed across a script without spaces
    assert as_written("周二", "每周二和周四开放。") == "周二"
    assert as_written("sat", "Open Saturday to Monday.") == "Saturday"


def test_the_note_names_the_sources_spelling(tmp_path: Path, make_settings: Any) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "roastery.md").write_text(
        "# The roastery\n\nAll of our coffees are roasted on Tuesdays in the old mill. "
        "The shop sells beans from eleven farms.\n", encoding="utf-8")
    collection = Collection.create("roastery", settings=make_settings())
    collection.add(folder)
    settings = make_settings(**{"citations.answer_mode": "grounded"})
    with Researcher(settings, ScriptedChatModel(), [LocalSearchEngine(collection)]) as researcher:
        result = run_check(researcher,
                           "All of our coffees are roasted on Mondays in the old mill.\n")
    [claim] = result.claims
    assert claim.verdict == "contradicted"
    assert "source [1]: Tuesdays" in claim.note
