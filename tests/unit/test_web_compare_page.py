"""The compare page reads forwards in time and names each document once."""

from __future__ import annotations

import time
from typing import Any

import pytest

from deepcite.config import Settings
from deepcite.runs.compare import compare_runs
from deepcite.runs.compare_markdown import comparison_markdown
from deepcite.store import HistoryStore
from deepcite.types import CitationCheck, ResearchResult, Source
from tests.unit.test_web_pages import FakeExecutor, _client

MANUAL = "https://docs.example.org/argparse"


def passage(number: int, url: str, title: str, text: str) -> Source:
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text,
                  engine="collection")


def result(sources: list[Source], sentence: str) -> ResearchResult:
    return ResearchResult(
        question="How do I add an argument?", answer=f"{sentence} [1].", strategy="s",
        handler="h", sources=sources,
        citation_checks=[CitationCheck(number=1, sentence=sentence, outcome="supported",
                                       method="exact")])


OLDER = result([passage(n, MANUAL, "argparse manual", f"passage {n}") for n in (1, 2, 3)],
               "Call add_argument() on the parser")
NEWER = result([passage(1, MANUAL, "argparse manual", "passage 3"),
                passage(2, MANUAL, "argparse manual", "passage 1"),
                passage(3, "https://docs.example.org/optparse", "optparse manual", "old"),
                passage(4, "https://docs.example.org/optparse", "optparse manual", "older")],
               "Then call parse_args() to read sys_argv")


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    value: Settings = make_settings()
    return value


def stored(settings: Settings) -> tuple[str, str]:
    with HistoryStore.open(settings) as store:
        older = store.begin(OLDER.question, mode="quick", settings=settings)
        store.finish(older, OLDER)
        time.sleep(0.01)
        newer = store.begin(NEWER.question, mode="quick", settings=settings)
        store.finish(newer, NEWER)
    return older, newer


@pytest.mark.parametrize("newer_first", [False, True])
def test_the_earlier_run_is_a_and_each_document_shows_once(settings: Settings,
                                                           newer_first: bool) -> None:
    older, newer = stored(settings)
    a, b = (newer, older) if newer_first else (older, newer)
    page = _client(settings, FakeExecutor(settings)).get(f"/compare?a={a}&b={b}").text
    # the report page names itself first; gained still means "new in the later run"
    gained = page[page.index("Gained: only in B"):page.index("<h2>Claims</h2>")]
    assert "optparse manual" in gained and gained.count("optparse manual") == 1
    assert f'href="/runs/{newer}/sources/3">[3]</a><a href="/runs/{newer}/sources/4">' in gained
    kept = page[page.index("Kept ("):page.index("Lost: only in A")]
    assert "Kept (1)" in kept and kept.count("argparse manual") == 1
    lost = page[page.index("Lost: only in A"):page.index("Gained: only in B")]
    assert "Lost: only in A (1)" in lost and "(other passages kept)" in lost
    assert f'href="/runs/{older}/sources/2">[2]</a> argparse manual' in lost
    # identifiers keep their underscores
    assert "add_argument()" in page and "parse_args()" in page and "sys_argv" in page


def test_markdown_lists_a_document_once_with_its_passages_moves() -> None:
    text = comparison_markdown(compare_runs(OLDER, NEWER))
    moved = [line for line in text.splitlines() if line.startswith("- argparse manual")]
    assert len(moved) == 1 and "[1] → [2]" in moved[0] and "[3] → [1]" in moved[0]
    gained = [line for line in text.splitlines() if "optparse manual" in line]
    assert gained == ["- [3][4] optparse manual (https://docs.example.org/optparse)"]
    lost = [line for line in text.splitlines() if line.startswith("- [2] argparse")]
    assert lost and lost[0].endswith("other passages kept")
    assert "add_argument()" in text and "parse_args()" in text
