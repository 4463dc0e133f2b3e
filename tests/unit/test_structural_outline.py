"""A detailed report whose model cannot write an outline: built from the headings found.

The scripted model returns an unusable outline (as the bundled model does) and, for
the parts, nothing usable, so every part is answered with quoted passages - the case
in which each part used to print the same three passages.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from deepcite.research import Researcher
from deepcite.research.report.builder import DetailedReport
from deepcite.research.report.outline import fallback_outline, structural_outline
from deepcite.text.sentences import split_sentences
from deepcite.types import Event, OutlineReady, ResearchResult, SearchResult, Source
from tests.fakes import MemoryEngine, ScriptedChatModel

QUESTION = "How do I back up a database?"
MANUAL = "Backup Manual"
CHAPTERS = {
    "Dumping a database": [
        "The dump tool writes a database backup to a single archive file. It runs "
        "while the database stays online.",
        "A database dump can be restored into a newer server version. The archive "
        "keeps the schema and the data of the backup.",
    ],
    "Continuous archiving": [
        "Continuous archiving copies every write-ahead log segment of the database to "
        "backup storage. With a base backup it allows point-in-time recovery.",
        "A base backup of the database is taken with the backup tool while the server "
        "runs. Its label names the backup in the archive.",
    ],
    "File system backup": [
        "A file system backup copies the database directory while the server is "
        "stopped. It is fast but restores the whole database or nothing.",
    ],
    "References": ["See the backup reference pages of the database for every option."],
}


def _manual() -> list[SearchResult]:
    found = []
    for number, (chapter, texts) in enumerate(CHAPTERS.items(), start=1):
        for index, text in enumerate(texts):
            heading = f"{number}. {chapter}"
            found.append(SearchResult(
                title=MANUAL, url=f"file:///docs/backup.md#{number}-{index}", snippet=text,
                engine="collection",
                metadata={"heading_path": [MANUAL, heading], "heading": heading,
                          "document_title": MANUAL}))
    return found


def _report(make_settings: Any, mode: str, events: list[Event] | None = None
            ) -> tuple[ResearchResult, ScriptedChatModel]:
    model = ScriptedChatModel(script={
        "questions": [""], "outline": ["I cannot help with that."], "section": [""],
        "synthesis": [""], "grounded": [""]})
    settings = make_settings(**{"iterations": 1, "questions_per_iteration": 0,
                                "citations.verify": False, "max_sources": 7,
                                "citations.answer_mode": mode})
    with Researcher(settings, model, [MemoryEngine(_manual())],
                    events.append if events is not None else None) as researcher:
        return DetailedReport(researcher).run(QUESTION), model


def _parts(result: ResearchResult) -> dict[str, str]:
    """Each written part's text by its title (the Summary included)."""
    pieces = re.split(r"^## (?:\d+\. )?(.+)$", result.answer, flags=re.MULTILINE)
    return {title: text.strip() for title, text in zip(pieces[1::2], pieces[2::2],
                                                        strict=True)
            if title != "Contents"}


def _quoted(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^- \u201c.*\u201d \[(\d+)\]", text, re.MULTILINE)]


def _chapter(result: ResearchResult, number: int) -> str:
    source = next(s for s in result.sources if s.number == number)
    return str(source.metadata["heading"]).split(". ", 1)[1]


def _sentences(text: str) -> set[str]:
    """The sentences a part prints from its sources (not its intro or notice lines)."""
    plain = re.sub(r"\s*\[\d+\]", "", text.replace("\u201c", " ").replace("\u201d", " "))
    return {" ".join(s.lower().rstrip(".").split()) for line in plain.splitlines()
            if not line.rstrip().endswith(":") and not line.startswith("_")
            for s in split_sentences(line.lstrip("- ")) if len(s.split()) >= 5}


@pytest.mark.parametrize("mode", ["abstractive", "grounded"])
def test_an_unusable_outline_is_built_from_the_chapters_found(
        make_settings: Any, mode: str) -> None:
    events: list[Event] = []
    result, _ = _report(make_settings, mode, events)
    titles = [entry.title for entry in result.outline]
    assert sorted(titles) == ["Continuous archiving", "Dumping a database",
                              "File system backup"]  # numbering off, References left out
    ready = [e for e in events if isinstance(e, OutlineReady)]
    assert ready and ready[0].fallback
    assert any(w.code == "outline_fallback" and "headings" in w.message
               for w in result.warnings)


@pytest.mark.parametrize("mode", ["abstractive", "grounded"])
def test_every_part_has_passages_of_its_own(make_settings: Any, mode: str) -> None:
    result, _ = _report(make_settings, mode)
    parts = _parts(result)
    written = {title: text for title, text in parts.items() if title != "Summary"}
    assert len(set(written.values())) == len(written)  # the parts differ
    quoted = [n for text in written.values() for n in _quoted(text)]
    assert len(quoted) == len(set(quoted))  # no passage quoted in two parts
    for title, text in written.items():  # and what a part cites sits under its heading
        cited = {int(n) for n in re.findall(r"\[(\d+)\]", text)}
        assert all(_chapter(result, n) == title for n in cited), (title, text)
    seen: set[str] = set()
    for title, text in parts.items():  # no sentence printed twice, Summary included
        sentences = _sentences(text)
        assert not sentences & seen, title
        seen |= sentences


def test_the_report_makes_no_more_model_calls_than_one_per_part(make_settings: Any) -> None:
    result, model = _report(make_settings, "abstractive")
    purposes = model.purposes()
    assert purposes.count("outline") == 1
    assert purposes.count("section") == len(result.outline)
    assert result.metrics.model_calls == len(purposes) == len(result.outline) + 2


def _source(number: int, title: str, text: str, heading_path: list[str] | None = None
            ) -> Source:
    metadata: dict[str, Any] = {}
    if heading_path is not None:
        metadata = {"heading_path": heading_path, "heading": heading_path[-1]}
    return Source(number=number, title=title, url=f"https://bread.example/{number}",
                  canonical_url=f"https://bread.example/{number}", snippet=text,
                  engine="web", metadata=metadata)


def test_web_pages_give_their_titles_without_the_shared_site_name() -> None:
    question = "How long should sourdough bread proof before baking?"
    sources = [
        _source(1, "Proofing sourdough | Bread Notes", "Sourdough bread proofs for four "
                "to twelve hours before baking, depending on the kitchen."),
        _source(2, "## Baking temperature | Bread Notes", "Bake the bread at 230 degrees."),
        _source(3, "Cookie policy | Bread Notes", "We store cookies on your device."),
        _source(4, "Shaping a loaf | Bread Notes", "Shape the sourdough before its final "
                "proof."),
        _source(5, "Proofing sourdough | Bread Notes", "An overproofed loaf spreads flat."),
    ]
    titles = [entry.title for entry in structural_outline(question, sources)]
    assert sorted(titles) == ["Baking temperature", "Proofing sourdough", "Shaping a loaf"]
    assert titles[0] == "Proofing sourdough"  # the most relevant heading leads


def test_two_headings_get_a_closing_part_and_one_gets_the_default_outline() -> None:
    two = [_source(1, "Guide", "The dump tool backs up a database.", ["Guide", "Dumps"]),
           _source(2, "Guide", "Archiving backs up the database log.", ["Guide", "Logs"])]
    entries, headings = fallback_outline(QUESTION, two)
    assert [e.title for e in entries] == ["Dumps", "Logs", "Limitations and open questions"]
    assert headings == ["Dumps", "Logs"]
    assert entries[0].purpose == "from Guide"
    one = [_source(1, "Guide", "The dump tool backs up a database.", ["Guide"])]
    entries, headings = fallback_outline(QUESTION, one)
    assert headings == [] and entries[0].title == "Background"
