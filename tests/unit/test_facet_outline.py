"""A detailed report whose model cannot write an outline: built from the question's
facets and the evidence found, never from the documents' headings.

The scripted model returns an unusable outline (as the bundled model does) and, for
the parts, nothing usable, so every part is answered with quoted passages - the case
in which each part used to print the same three passages. Grounded mode (a small
model) is not asked for an outline at all.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from deepcite.research import Researcher
from deepcite.research.report.builder import DetailedReport
from deepcite.research.report.facets import facet_outline, question_facets
from deepcite.research.report.part_passages import PartPassages
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
        "For example, a nightly file system backup of the database directory runs "
        "from cron while the server is down.",
        "A file system backup cannot be restored into a newer server version. The "
        "backup of a running database is not supported.",
    ],
    "References": ["See the backup reference pages of the database for every option."],
}


def _manual() -> list[SearchResult]:
    found = []
    for number, (chapter, texts) in enumerate(CHAPTERS.items(), start=1):
        for index, text in enumerate(texts):
            heading = f"{number}. **{chapter}** (version 2)"
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
                                "citations.verify": False, "max_sources": 10, "max_results": 10,
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


def _sentences(text: str) -> set[str]:
    """The sentences a part prints from its sources (not its intro or notice lines)."""
    plain = re.sub(r"\s*\[\d+\]", "", text.replace("\u201c", " ").replace("\u201d", " "))
    return {" ".join(s.lower().rstrip(".").split()) for line in plain.splitlines()
            if not line.rstrip().endswith(":") and not line.startswith("_")
            for s in split_sentences(line.lstrip("- ")) if len(s.split()) >= 5}


def _titles(result: ResearchResult) -> list[str]:
    return [entry.title for entry in result.outline]


@pytest.mark.parametrize("mode", ["abstractive", "grounded"])
def test_the_outline_comes_from_the_question_and_the_evidence_not_the_headings(
        make_settings: Any, mode: str) -> None:
    events: list[Event] = []
    result, model = _report(make_settings, mode, events)
    titles = _titles(result)
    assert titles[0] == "How to back up a database"  # what the question asks
    assert "Examples of how to back up a database" in titles  # a passage gives one
    for title in titles:  # no heading, no markup, no version tag
        assert not re.search(r"[*#`_\[\]]|\(version|^\d", title), title
        assert title not in CHAPTERS
    ready = [e for e in events if isinstance(e, OutlineReady)]
    assert ready and ready[0].fallback
    if mode == "grounded":  # a small model is not asked for what it cannot write
        assert "outline" not in model.purposes()
        assert not any(w.code == "outline_fallback" for w in result.warnings)
    else:
        assert any(w.code == "outline_fallback" and "question" in w.message
                   for w in result.warnings)


@pytest.mark.parametrize("mode", ["abstractive", "grounded"])
def test_every_part_has_passages_of_its_own_and_none_is_empty(
        make_settings: Any, mode: str) -> None:
    result, _ = _report(make_settings, mode)
    parts = _parts(result)
    written = {title: text for title, text in parts.items() if title != "Summary"}
    assert list(written) == _titles(result)  # every outlined part is printed
    for title, text in written.items():
        assert text.strip() and not text.startswith("_"), title  # no empty part
    assert len(set(written.values())) == len(written)  # the parts differ
    quoted = [n for text in written.values() for n in _quoted(text)]
    assert len(quoted) == len(set(quoted))  # no passage quoted in two parts
    cited = [{int(n) for n in re.findall(r"\[(\d+)\]", text)} for text in written.values()]
    for index, numbers in enumerate(cited):  # a passage cited by one part only
        assert not numbers & set().union(*cited[:index], *cited[index + 1:])
    seen: set[str] = set()
    for title, text in parts.items():  # no sentence printed twice, Summary included
        sentences = _sentences(text)
        assert not sentences & seen, title
        seen |= sentences


@pytest.mark.parametrize("mode", ["abstractive", "grounded"])
def test_the_same_request_gives_the_same_report(make_settings: Any, mode: str) -> None:
    first, _ = _report(make_settings, mode)
    second, _ = _report(make_settings, mode)
    assert _titles(first) == _titles(second)
    assert first.answer == second.answer


def test_the_report_makes_no_more_model_calls_than_one_per_part(make_settings: Any) -> None:
    result, model = _report(make_settings, "abstractive")
    purposes = model.purposes()
    assert purposes.count("outline") == 1
    # one call per part researched: those printed, and any left out as answering nothing
    assert len(result.outline) <= purposes.count("section") <= 5
    assert result.metrics.model_calls == len(purposes) == purposes.count("section") + 2


def _source(number: int, text: str, title: str = "Guide") -> Source:
    return Source(number=number, title=title, url=f"https://docs.example/{number}",
                  canonical_url=f"https://docs.example/{number}", snippet=text,
                  engine="web")


HTTP = [
    _source(1, "A session object keeps cookies across requests. Create a session and "
            "call its get method to send a request."),
    _source(2, "Retries are configured on the session with a transport adapter. The "
            "adapter retries failed requests."),
    _source(3, "For example, session.get(url, timeout=5) sends a request with a timeout."),
    _source(4, "A session cannot be shared safely between processes. Connection pools "
            "are not supported across a fork."),
    _source(5, "The transport adapter mounts on a prefix of the session. Each transport "
            "adapter keeps its own connection pool."),
    _source(6, "Cookies persist across requests made from the same session because the "
            "session stores them in a cookie jar."),
    _source(7, "Tomatoes ripen faster next to bananas."),
]


@pytest.mark.parametrize(("question", "first"), [
    ("How do I send a request with a session?", "How to send a request with a session"),
    ("Why do sessions keep cookies?", "Why do sessions keep cookies"),
    ("What is a transport adapter?", "What a transport adapter is"),
    ("How does a session retry requests?", "How a session retry requests"),
    ("Which object keeps cookies?", "Which object keeps cookies"),
])
def test_the_first_part_is_what_the_question_asks(question: str, first: str) -> None:
    outline = facet_outline(question, HTTP)
    assert outline.entries[0].title == first
    assert outline.entries[0].purpose == question  # its part answers the question itself
    numbers = [s.number for passages in outline.passages.values() for s in passages]
    assert len(numbers) == len(set(numbers))  # a passage in one part only
    assert 7 not in numbers  # a passage sharing nothing with the question in none
    assert all(outline.passages[i] for i in range(len(outline.entries)))  # none empty


def test_evidence_parts_come_from_shared_terms_examples_and_limits() -> None:
    outline = facet_outline("How do I send a request with a session?", HTTP)
    titles = [e.title for e in outline.entries]
    assert "Transport adapter" in titles  # a term several passages share
    assert "Examples of how to send a request with a session" in titles
    assert "Caveats when you send a request with a session" in titles
    by_title = {e.title: [s.number for s in outline.passages[i]]
                for i, e in enumerate(outline.entries)}
    assert by_title["Examples of how to send a request with a session"] == [3]
    assert 4 in by_title["Caveats when you send a request with a session"]


def test_limits_and_examples_only_when_the_evidence_speaks_of_them() -> None:
    calm = [s for s in HTTP if s.number not in (3, 4)]
    titles = [e.title for e in facet_outline("How do I send a request with a session?",
                                             calm).entries]
    assert not any(t.startswith(("Caveats", "Limitations", "Examples")) for t in titles)


def test_a_comparison_gets_a_part_on_each_side() -> None:
    sources = [
        _source(1, "A list is a mutable sequence. Items of a list can be changed in place."),
        _source(2, "A tuple is an immutable sequence. A tuple cannot be changed once made."),
        _source(3, "A list uses more memory than a tuple of the same items, and a tuple "
                "can be a dictionary key while a list cannot."),
    ]
    question = "What is the difference between a list and a tuple?"
    assert [f.title for f in question_facets(question)] == [
        "a list", "a tuple", "A list compared with a tuple"]
    outline = facet_outline(question, sources)
    by_title = {e.title: [s.number for s in outline.passages[i]]
                for i, e in enumerate(outline.entries)}
    assert by_title == {"a list": [1], "a tuple": [2], "A list compared with a tuple": [3]}


def test_a_question_in_another_language_keeps_its_own_words() -> None:
    sources = [_source(1, "斑马缓存的条目保留三百秒。过期的条目会被删除。"),
               _source(2, "斑马缓存使用最近最少使用的策略淘汰条目。")]
    outline = facet_outline("斑马缓存的条目保留多久？", sources)
    assert outline.entries and outline.entries[0].title == "斑马缓存的条目保留多久"
    assert not any(t.title.startswith(("How", "What", "Examples", "Caveats"))
                   for t in outline.entries)


def test_the_outline_does_not_depend_on_order_of_sets() -> None:
    question = "How do I send a request with a session?"
    first = facet_outline(question, HTTP)
    again = facet_outline(question, list(HTTP))
    assert first.entries == again.entries
    assert {k: [s.number for s in v] for k, v in first.passages.items()} == \
        {k: [s.number for s in v] for k, v in again.passages.items()}


def test_a_part_never_quotes_a_heading_a_table_row_or_navigation() -> None:
    manual = _source(1, "csv — CSV File Reading and Writing\n"
                     "==================================\n\n"
                     "| Dialect | Delimiter |\n|---|---|\n| excel | , |\n\n"
                     "Home | Modules | Next\n\n"
                     "The reader object iterates over the lines of the given CSV file. "
                     "Each row read from the file is returned as a list of strings.")
    written = "## Summary\n\nThe reader object iterates over the lines of the given CSV file [1]."
    block = ("The closest passages found:\n\n"
             "- \u201cThe reader object iterates over the lines of the given CSV file.\u201d "
             "[1] (Guide)")
    text = PartPassages().unrepeated("How to read a CSV file", block,
                                     "How do I read a CSV file?", [manual], written)
    assert "Each row read from the file is returned as a list of strings." in text
    for line in ("CSV File Reading and Writing", "Dialect", "excel", "Modules"):
        assert line not in text
