"""Model text no source supports never leads an answer (``citations.supported_first``).

A small model's follow-up once opened with an invented figure and a made-up
"[citation: ...]", the flag and the real passage only after it. Here the model at the
boundary writes exactly that kind of prose, on every path a run's answer takes - a
follow-up, a material run, a detailed report's part - and the answer must open with the
sources' own sentence, cited, or say honestly that nothing answers.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from deepcite.citations import cited_numbers
from deepcite.citations.supported_first import (
    BELOW_NOTE,
    DROPPED_NOTE,
    NOT_ANSWERED_INTRO,
    strip_fake_citations,
    supported_first,
)
from deepcite.research import Researcher
from deepcite.research.material_runs import analyse_materials
from deepcite.research.report.builder import DetailedReport
from deepcite.research.report.part_passages import ALREADY_QUOTED_LINE
from deepcite.runs.execute import run_question
from deepcite.types import ResearchResult, Source
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

FIRST = "How long does the heron cache keep entries?"
FOLLOW_UP = "When is the heron cache flushed?"
KEEPS = "The heron cache keeps entries for 300 seconds."
FLUSHED = "The heron cache is flushed every night at two o'clock by the maintenance job."
NOTES = {"url": "https://notes.example/heron", "title": "Heron cache notes",
         "content": f"{KEEPS} {FLUSHED} Operators watch its hit rate on the dashboard."}
#: What a small model writes: a wrong figure, an invented limit, a citation-shaped claim.
INVENTED = ("The heron cache keeps entries for 30 seconds and is cleared once it holds "
            "more than 2,548 items. [citation: The original source of this information "
            "can be found on a website about caches.]")
WEB = [passage("weather", "The weather in the valley is mild in spring and autumn.")]


def _settings(make_settings: Any, mode: str) -> Any:
    return make_settings(**{"research.iterations": 1, "research.questions_per_iteration": 0,
                            "research.max_sources": 3, "citations.answer_mode": mode})


def _model(reply: str = INVENTED) -> ScriptedChatModel:
    return ScriptedChatModel(script={"questions": [""], "synthesis": [reply],
                                     "grounded": [reply], "section": [reply],
                                     "material_analysis": [""]})


def _leads_with_the_source(answer: str, sentence: str) -> str:
    """The answer opens with ``sentence`` (cited), holds no invented text above any
    flag and no citation-shaped bracket anywhere; returns what follows the lead."""
    assert "[citation" not in answer.lower() and "original source" not in answer
    first = answer.split("\n\n", 1)[0]
    assert first.startswith(sentence.rstrip(".")), answer
    assert cited_numbers(first), answer
    lead = answer.partition(BELOW_NOTE)[0]
    assert "2,548" not in lead and "30 seconds" not in lead, answer
    return answer[len(first):]


def _model_calls(model: ScriptedChatModel, before: int = 0) -> int:
    return sum(1 for purpose in model.purposes()[before:]
               if purpose in {"synthesis", "grounded", "section"})


# -- the rule itself ----------------------------------------------------------------


def _source(number: int, text: str) -> Source:
    url = f"https://n.example/{number}"
    return Source(number=number, title=f"notes {number}", url=url, canonical_url=url,
                  snippet=text, engine="memory")


@pytest.mark.parametrize("fake", [
    "[citation: The original source can be found on a website.]",
    "(Source: an article on caching)",
    "[source needed]",
    "[Reference: Smith et al., 2020]",
    "【来源：某网站】",
])
def test_citation_shaped_brackets_are_removed_and_real_markers_kept(fake: str) -> None:
    text = f"Entries live for 300 seconds [1]. {fake} More follows [2]."
    cleaned = strip_fake_citations(text)
    assert fake not in cleaned and "[1]" in cleaned and "[2]" in cleaned
    assert "Entries live for 300 seconds" in cleaned and "More follows" in cleaned


@pytest.mark.parametrize("kept", ["(source code is on GitHub)", "[see the reference manual]",
                                  "(via the API)", "[1]"])
def test_brackets_that_claim_no_citation_are_kept(kept: str) -> None:
    text = f"The client is documented {kept} in full."
    assert strip_fake_citations(text) == text


def test_the_sources_sentence_leads_and_a_small_models_prose_is_left_out() -> None:
    sources = [_source(1, NOTES["content"])]
    answer = supported_first(INVENTED, FIRST, sources, keep_model_text=False)
    rest = _leads_with_the_source(answer, KEEPS)
    assert DROPPED_NOTE in rest and "2,548" not in answer


def test_a_larger_models_prose_follows_below_the_flag_without_citations() -> None:
    sources = [_source(1, NOTES["content"])]
    answer = supported_first("It lasts 30 seconds [1]. [citation: a blog]", FIRST, sources,
                             keep_model_text=True)
    rest = _leads_with_the_source(answer, KEEPS)
    below = rest.partition(BELOW_NOTE)[2]
    assert "It lasts 30 seconds" in below and not cited_numbers(below)


def test_nothing_on_the_question_gives_the_honest_not_found_answer() -> None:
    sources = [_source(1, "The weather in the valley is mild in spring and autumn.")]
    answer = supported_first(INVENTED, "What licence covers the project?",
                             sources, keep_model_text=False)
    assert answer.startswith(NOT_ANSWERED_INTRO)
    assert "2,548" not in answer and "30 seconds" not in answer


# -- every path a run's answer takes -----------------------------------------------


def _material_run(make_settings: Any, mode: str, model: ScriptedChatModel,
                  question: str = FIRST, parent: ResearchResult | None = None,
                  materials: bool = True) -> ResearchResult:
    with Researcher(_settings(make_settings, mode), model, [MemoryEngine(WEB)]) as researcher:
        analysed = analyse_materials(researcher, question, [NOTES]) if materials else None
        return run_question(researcher, question, follow_up=parent, materials=analysed)


@pytest.mark.parametrize("mode", ["grounded", "abstractive"])
def test_a_material_run_leads_with_the_materials_sentence(make_settings: Any,
                                                          mode: str) -> None:
    model = _model()
    result = _material_run(make_settings, mode, model)
    _leads_with_the_source(result.answer, KEEPS)
    assert _model_calls(model) == 1


@pytest.mark.parametrize("mode", ["grounded", "abstractive"])
def test_a_follow_up_answers_from_the_earlier_runs_sources(make_settings: Any,
                                                           mode: str) -> None:
    # The first answer is right; the follow-up's own search finds only the weather.
    parent = _material_run(make_settings, mode, _model(f"{KEEPS[:-1]} [1]."))
    model = _model()
    result = _material_run(make_settings, mode, model, FOLLOW_UP, parent=parent,
                           materials=False)
    _leads_with_the_source(result.answer, FLUSHED)
    assert _model_calls(model) == 1


def test_a_follow_up_nothing_answers_says_so(make_settings: Any) -> None:
    parent = _material_run(make_settings, "abstractive", _model(f"{KEEPS[:-1]} [1]."))
    result = _material_run(make_settings, "abstractive", _model(),
                           "What licence covers the project?", parent=parent,
                           materials=False)
    assert result.answer.startswith(NOT_ANSWERED_INTRO), result.answer
    assert "2,548" not in result.answer.partition(BELOW_NOTE)[0]


def test_a_report_part_leads_with_the_sources_sentence(make_settings: Any) -> None:
    passages = [passage("heron cache", NOTES["content"]),
                passage("heron operations", f"{FLUSHED} Restarts are announced a day "
                        "ahead on the operations channel.")]
    model = ScriptedChatModel(script={
        "questions": [""], "synthesis": [INVENTED], "section": [INVENTED],
        "outline": ["1. Heron cache expiry - how long entries are kept\n"
                    "2. Heron cache flushing - when the cache is flushed\n"]})
    settings = make_settings(**{"iterations": 1, "questions_per_iteration": 0,
                                "max_sources": 3, "citations.answer_mode": "abstractive"})
    with Researcher(settings, model, [MemoryEngine(passages)]) as researcher:
        result = DetailedReport(researcher).run(FIRST)
    parts = re.split(r"^#{2,3} .+$", result.answer, flags=re.MULTILINE)[1:]
    written = [part.strip() for part in parts  # the contents list is no part
               if part.strip() and not part.strip().startswith("- ")]
    assert written, result.answer
    cited_leads = 0
    for part in written:  # each part: the sources' sentence first, or an honest not-found
        assert "[citation" not in part.lower()
        lead = part.partition(BELOW_NOTE)[0]
        assert "2,548" not in lead and "30 seconds" not in lead, part
        first = lead.split("\n\n", 1)[0]
        assert cited_numbers(first) or first in {NOT_ANSWERED_INTRO, ALREADY_QUOTED_LINE}, \
            result.answer
        cited_leads += bool(cited_numbers(first))
    assert cited_leads, result.answer
