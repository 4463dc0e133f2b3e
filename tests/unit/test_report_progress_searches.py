"""A detailed report's live progress follows its parts' searches (issue 47, item 4).

Parts are researched ahead of their writing, several at a time, by searches that used to
say nothing: the run page's searches counter and "current queries" stayed on the
Summary's while the parts searched. Now each search done is said as it happens (the
counter ends at the report's own count), and each part announces its queries when it
begins, so the page shows the part being written with what its searches found.
"""

from __future__ import annotations

import threading
from typing import Any

from deepcite.research import Researcher
from deepcite.research.report.builder import DetailedReport
from deepcite.types import (
    Event,
    OutlineReady,
    QuestionsGenerated,
    ResearchResult,
    SearchDone,
    SectionStarted,
)
from deepcite.web.pages._progress import progress_of
from tests.unit.test_detailed_report import QUESTION, _model
from tests.unit.test_report_parallel import _SlowEngine


def _report_events(make_settings: Any, parallel: int) -> tuple[list[Event], ResearchResult]:
    settings = make_settings(**{"iterations": 2, "questions_per_iteration": 0,
                                "citations.verify": False, "max_sources": 3,
                                "search.concurrency": 1,
                                "report.parallel_parts": parallel})
    events: list[Event] = []
    lock = threading.Lock()

    def keep(event: Event) -> None:
        with lock:
            events.append(event)

    with Researcher(settings, _model(), [_SlowEngine()], keep) as researcher:
        result = DetailedReport(researcher).run(QUESTION)
    return events, result


def _outlined(events: list[Event]) -> int:
    """Where the outline is ready: the summary has searched, the parts have not."""
    return next(i for i, e in enumerate(events) if isinstance(e, OutlineReady))


def test_every_search_is_said_and_each_part_names_its_own_queries(make_settings: Any
                                                                   ) -> None:
    for parallel in (1, 4):  # one part after another, or researched ahead
        events, result = _report_events(make_settings, parallel)
        searched = [e for e in events if isinstance(e, SearchDone)]
        assert len(searched) == result.metrics.searches, parallel  # each said once
        assert len(searched) > sum(isinstance(e, SearchDone)
                                   for e in events[:_outlined(events)]), parallel
        sections = [i for i, e in enumerate(events) if isinstance(e, SectionStarted)]
        assert sections, parallel
        for start, end in zip(sections, [*sections[1:], len(events)], strict=True):
            section = events[start]
            assert isinstance(section, SectionStarted)
            title = section.title
            asked = [q for e in events[start:end] if isinstance(e, QuestionsGenerated)
                     for q in e.questions]
            # the queries said while a part is written are that part's
            assert asked and all(title in query for query in asked[:1]), (parallel, title)


def test_the_run_page_counts_and_shows_the_parts_searches(make_settings: Any) -> None:
    events, result = _report_events(make_settings, 4)
    before = progress_of(events[:_outlined(events)], mode="detailed")
    after = progress_of(events, mode="detailed")
    assert after.searches == result.metrics.searches > before.searches
    last_title = [e for e in events if isinstance(e, SectionStarted)][-1].title
    assert after.queries and last_title in after.queries[0].text
    assert all(row.searches for row in after.queries)  # each with what its search found


def test_a_part_shows_only_its_own_queries_with_what_was_found_ahead() -> None:
    summary, ahead = "python argparse", "python argparse - 2 Getopt"
    events: list[Event] = [
        QuestionsGenerated(iteration=1, questions=[summary]),
        SearchDone(iteration=1, query=summary, engine="demo", results=4, seconds=0.1),
        SearchDone(iteration=1, query=ahead, engine="demo", results=3, seconds=0.1),
        SectionStarted(index=1, total=2, title="1 Facets"),  # searches nothing
    ]
    facet = progress_of(events, mode="detailed")
    assert facet.searches == 2 and facet.queries == []  # not the summary's
    events += [SectionStarted(index=2, total=2, title="2 Getopt"),
               QuestionsGenerated(iteration=1, questions=[ahead])]
    part = progress_of(events, mode="detailed")
    assert [(row.text, row.searches) for row in part.queries] == [(ahead, ["demo: 3"])]
    assert part.searches == 2  # announcing the queries searches nothing again
