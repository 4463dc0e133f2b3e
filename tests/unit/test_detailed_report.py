"""The detailed report with a scripted model: outline, per-part research, assembly."""

from __future__ import annotations

import re
from typing import Any

import pytest

from deepcite.citations import cited_numbers
from deepcite.export.markdown import to_markdown
from deepcite.research import Researcher
from deepcite.research.report.builder import (
    NO_SOURCES_LINE,
    DetailedReport,
    already_written,
)
from deepcite.research.report.outline import parse_outline
from deepcite.runs.execute import run_question
from deepcite.text.sentences import cut_at_sentence
from deepcite.types import (
    Event,
    OutlineEntry,
    OutlineReady,
    ResearchResult,
    SearchResult,
    SectionStarted,
)
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "How do Python programs parse command line arguments?"
PASSAGES = [
    passage("argparse", "The argparse module parses command line arguments for Python "
            "programs. It builds help messages from the declared options."),
    passage("sys.argv", "The sys.argv list holds the command line arguments of Python "
            "programs. Its first item is the script name."),
    passage("getopt", "The getopt module parses command line options in the style of "
            "the C getopt function for Python programs."),
    passage("click", "Click is a package for building command line interfaces with "
            "decorators in Python programs."),
    passage("shlex", "The shlex module splits shell-like command strings into "
            "arguments for Python programs."),
]
OUTLINE = """Here is an outline for your report:
1. Standard library modules - what argparse and getopt offer
   1.1 Argparse - declaring options and help
   1.2 Getopt - C-style option parsing
2. Raw arguments - reading sys.argv directly
3. References - the sources used
4. Third-party packages - click and others
"""


def _cite_all(prompt: str) -> str:
    """A part citing every source its prompt shows, one sentence each."""
    numbers = re.findall(r'<source id="(\d+)"', prompt)
    return " ".join(f"Point {n} about command line parsing [{n}]." for n in numbers)


def _model(outline: str = OUTLINE, **extra: Any) -> ScriptedChatModel:
    return ScriptedChatModel(script={
        "questions": [""], "synthesis": [_cite_all], "section": [_cite_all],
        "outline": [outline], **extra})


def _researcher(make_settings: Any, model: ScriptedChatModel, engines: list[Any] | None = None,
                events: list[Event] | None = None, **overrides: Any) -> Researcher:
    settings = make_settings(**{"iterations": 1, "questions_per_iteration": 0,
                                "citations.verify": False, "max_sources": 3, **overrides})
    return Researcher(settings, model,
                      engines if engines is not None else [MemoryEngine(PASSAGES)],
                      events.append if events is not None else None)


def _report(make_settings: Any, model: ScriptedChatModel | None = None, **kw: Any
            ) -> ResearchResult:
    with _researcher(make_settings, model or _model(), **kw) as researcher:
        return DetailedReport(researcher).run(QUESTION)


def _headings(result: ResearchResult) -> list[str]:
    return re.findall(r"^#{2,3} (.+)$", result.answer, re.MULTILINE)


# -- the whole flow ---------------------------------------------------------------------


def test_report_has_contents_summary_and_numbered_parts(make_settings: Any) -> None:
    result = _report(make_settings)
    assert result.mode == "detailed"
    assert result.title == QUESTION
    assert _headings(result) == [
        "Contents", "Summary", "1. Standard library modules", "1.1 Argparse", "1.2 Getopt",
        "2. Raw arguments", "3. Third-party packages"]
    document = to_markdown(result)
    assert document.startswith(f"# {QUESTION}\n")
    assert document.count("## Sources") == 1
    assert document.index("## Sources") > document.index("3. Third-party packages\n")


def test_sources_sections_are_dropped_from_the_outline(make_settings: Any) -> None:
    result = _report(make_settings)
    assert all("Reference" not in entry.title for entry in result.outline)
    assert "References" not in result.answer


def test_numbers_run_through_the_whole_report_and_all_resolve(make_settings: Any) -> None:
    result = _report(make_settings)
    numbers = [s.number for s in result.sources]
    assert numbers == list(range(1, len(numbers) + 1))
    assert len(numbers) > 3  # later parts found new passages (3 per run), numbered on
    cited = set(cited_numbers(result.answer))
    assert cited <= set(numbers)
    assert max(cited) > 3  # a part cited a source first found after the summary


def test_a_passage_found_again_keeps_its_number(make_settings: Any) -> None:
    result = _report(make_settings)
    urls = [s.url for s in result.sources]
    assert len(urls) == len(set(urls))


def test_each_part_is_researched_on_its_own(make_settings: Any) -> None:
    engine = MemoryEngine(PASSAGES)
    _report(make_settings, engines=[engine])
    assert engine.queries[0] == QUESTION
    assert any("Getopt" in q for q in engine.queries)
    assert any("Third-party packages" in q for q in engine.queries)
    assert not any("References" in q for q in engine.queries)


def test_progress_says_which_part_is_researched(make_settings: Any) -> None:
    events: list[Event] = []
    _report(make_settings, events=events)
    ready = [e for e in events if isinstance(e, OutlineReady)]
    assert len(ready) == 1 and not ready[0].fallback
    started = [(e.index, e.total, e.title) for e in events if isinstance(e, SectionStarted)]
    assert started == [(1, 4, "Standard library modules: Argparse"),
                       (2, 4, "Standard library modules: Getopt"),
                       (3, 4, "Raw arguments"), (4, 4, "Third-party packages")]


def test_each_part_is_verified_like_a_quick_answer(make_settings: Any) -> None:
    model = _model(section=["Volcanoes erupt lava every Tuesday [1]."])
    result = _report(make_settings, model, **{"citations.verify": True})
    assert result.verification is not None
    assert result.verification.markers_checked >= 4  # every part's citations were read
    assert "Tuesday [1]" not in result.answer  # and the made-up one kept nowhere


# -- the writer's context ---------------------------------------------------------------


def test_the_writer_sees_recent_parts_fenced_as_already_written(make_settings: Any) -> None:
    model = _model()
    _report(make_settings, model, **{"report.max_context_sections": 2})
    prompts = [user for purpose, user in model.calls if purpose == "section"]
    assert "CONTENT ALREADY WRITTEN (DO NOT REPEAT)" in prompts[1]
    assert "## 1.1 Argparse" in prompts[1]
    # only the most recent two parts: the summary has dropped out by the third part
    assert "## Summary" not in prompts[2] and "## 1.2 Getopt" in prompts[2]


def test_the_written_context_is_cut_at_a_sentence_boundary(make_settings: Any) -> None:
    model = _model()
    _report(make_settings, model, **{"report.max_context_chars": 120})
    prompt = [user for purpose, user in model.calls if purpose == "section"][1]
    written = prompt.split("(DO NOT REPEAT) ===\n", 1)[1].split("\n===", 1)[0]
    assert len(written) <= 120
    assert written.endswith((".", "]."))


def test_cut_at_sentence_and_already_written_limits() -> None:
    text = "One sentence here. Two sentences here. Three sentences here."
    assert cut_at_sentence(text, 40) == "One sentence here. Two sentences here."
    assert cut_at_sentence(text, 5) == "One"
    assert cut_at_sentence(text, 500) == text
    parts = ["## A\n\nfirst.", "## B\n\nsecond.", "## C\n\nthird."]
    recent = already_written(parts, max_parts=2, max_chars=1000)
    assert recent == "## B\n\nsecond.\n\n## C\n\nthird."
    assert already_written(parts, max_parts=0, max_chars=1000) == ""


# -- degraded paths ---------------------------------------------------------------------


def test_an_unusable_outline_is_built_from_the_question_with_a_warning(
        make_settings: Any) -> None:
    result = _report(make_settings, _model(outline="I cannot help with that."))
    titles = [e.title for e in result.outline]
    assert titles and titles[0] == "How Python programs parse command line arguments"
    assert not {"argparse", "sys.argv", "getopt"} & set(titles)  # no document's title
    assert "outline_fallback" in [w.code for w in result.warnings]
    assert f"1. {titles[0]}" in _headings(result)


class _NothingAbout:
    """Finds the passages except for queries about ``word``."""

    def __init__(self, word: str) -> None:
        self._inner = MemoryEngine(PASSAGES)
        self._word = word

    @property
    def name(self) -> str:
        return "memory"

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        if self._word in query:
            return []
        return self._inner.search(query, max_results=max_results)


def test_a_part_with_no_sources_is_left_out_not_printed_empty(make_settings: Any) -> None:
    model = _model()
    result = _report(make_settings, model, engines=[_NothingAbout("Raw arguments")])
    assert "Raw arguments" not in result.answer
    assert NO_SOURCES_LINE not in result.answer
    assert [e.title for e in result.outline if e.level == 1] == [
        "Standard library modules", "Third-party packages"]
    assert "2. Third-party packages" in _headings(result)  # numbered without a gap
    assert model.purposes().count("section") == 3  # the model never wrote the empty part


class _CancelAt:
    """Cancels the report when a query mentions ``word``."""

    def __init__(self, word: str) -> None:
        self._inner = MemoryEngine(PASSAGES)
        self._word = word
        self.report: DetailedReport | None = None

    @property
    def name(self) -> str:
        return "memory"

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        if self._word in query and self.report is not None:
            self.report.cancel()
        return self._inner.search(query, max_results=max_results)


def test_cancelling_keeps_the_parts_written_so_far(make_settings: Any) -> None:
    engine = _CancelAt("Raw arguments")
    # One part after another: the cancel comes when part 2 is searched (parts researched
    # ahead: tests/unit/test_report_parallel.py).
    with _researcher(make_settings, _model(), engines=[engine],
                     **{"report.parallel_parts": 1}) as researcher:
        builder = DetailedReport(researcher)
        engine.report = builder
        result = builder.run(QUESTION)
    assert result.cancelled
    assert "1.2 Getopt" in _headings(result)
    assert "3. Third-party packages" not in _headings(result)
    assert len(result.outline) == 5  # the plan is kept whole
    assert set(cited_numbers(result.answer)) <= {s.number for s in result.sources}


def test_budgets_hold_for_the_whole_report(make_settings: Any) -> None:
    engine = MemoryEngine(PASSAGES)
    result = _report(make_settings, engines=[engine], **{"research.max_searches": 3})
    assert len(engine.queries) <= 3
    assert result.metrics.searches <= 3
    assert "budget" in [w.code for w in result.warnings]
    assert "Not researched: the report's search budget of 3 reached." in result.answer


def test_the_outline_can_be_reviewed_and_edited(make_settings: Any) -> None:
    seen: list[list[OutlineEntry]] = []

    def review(entries: list[OutlineEntry]) -> list[OutlineEntry]:
        seen.append(entries)
        return [OutlineEntry(title="Only argparse", purpose="the argparse module")]

    with _researcher(make_settings, _model()) as researcher:
        result = DetailedReport(researcher, outline_review=review).run(QUESTION)
    assert len(seen[0]) == 5
    assert _headings(result) == ["Contents", "Summary", "1. Only argparse"]


def test_stopping_at_the_review_writes_no_parts(make_settings: Any) -> None:
    with _researcher(make_settings, _model()) as researcher:
        result = DetailedReport(researcher, outline_review=lambda e: None).run(QUESTION)
    assert result.cancelled
    assert _headings(result)[:2] == ["Contents", "Summary"]
    assert "1. Standard library modules" not in _headings(result)


# -- follow-ups -------------------------------------------------------------------------


def test_a_follow_up_keeps_the_parents_numbers_and_continues_the_count(
        make_settings: Any) -> None:
    with _researcher(make_settings, _model()) as researcher:
        parent = researcher.run("How does argparse parse command line arguments?")
    model = _model()
    with _researcher(make_settings, model) as researcher:
        child = run_question(researcher, "What does click offer for Python programs?",
                             follow_up=parent)
    parent_numbers = {s.number: s.url for s in parent.sources}
    assert {s.number: s.url for s in child.sources if s.number in parent_numbers} \
        == parent_numbers
    new = [s for s in child.sources if s.url not in parent_numbers.values()]
    assert new and min(s.number for s in new) > max(parent_numbers)
    prompt = next(user for purpose, user in model.calls if purpose == "synthesis")
    assert "What is already known" in prompt and "Point 1 about" in prompt


# -- the outline parser -----------------------------------------------------------------


@pytest.mark.parametrize("reply", [
    "## 1. Background: the history\n### 1.1 Origins\n## 2. Usage - how to use it",
    "**Section 1: Background** - the history\n  - Origins\n**Section 2: Usage** (how to use it)",
    "I. Background\nPurpose: the history\n  a. Origins\nII. Usage - how to use it",
    "- Background - the history\n    - Origins\n- Usage - how to use it\n- Bibliography",
])
def test_the_outline_parser_tolerates_small_model_formatting(reply: str) -> None:
    entries = parse_outline(reply)
    assert [(e.level, e.title) for e in entries] == [
        (1, "Background"), (2, "Origins"), (1, "Usage")]
    assert entries[2].purpose.startswith("how to use it")


def test_the_outline_parser_caps_and_rejects() -> None:
    many = "\n".join(f"{i}. Topic number {i}" for i in range(1, 10))
    assert len(parse_outline(many, max_sections=4)) == 4
    assert parse_outline("1. Only one section") == []
    assert parse_outline("1. Methodology\n2. Sources\n3. Results") == []
    prose = "1. " + "word " * 30 + "\n2. Fine title"
    assert parse_outline(prose) == []


def test_the_outline_parser_reads_material_bindings() -> None:
    reply = ("1. Our conventions - how our tools parse arguments [M1][M2]\n"
             "2. Libraries (the public options) [m3, M9]\n"
             "3. History - how it began [[M2]]\n")
    entries = parse_outline(reply, material_ids=["M1", "M2", "m3"])
    assert [(e.title, e.materials) for e in entries] == [
        ("Our conventions", ["M1", "M2"]), ("Libraries", ["m3"]), ("History", ["M2"])]
    assert entries[1].purpose == "the public options"
    # without materials, brackets stay part of the text
    assert parse_outline(reply)[0].purpose.endswith("[M1][M2]")
