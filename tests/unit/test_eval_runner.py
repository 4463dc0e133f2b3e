"""deepcite.evaluation.runner and scoring: a bench run as a user sees its folder.

Questions go through the real research pipeline over a collection indexed from a tiny
SQuAD file (made-up facts, so only the collection can answer), with the chat model
faked at its boundary. What is checked is what a user reads back: ``results.jsonl``,
``summary.json``, ``config.json``, and what a resume, a cancel or a crash leaves there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import deepcite.evaluation.judge
import deepcite.runs.build
from deepcite.config import Settings, load_settings
from deepcite.errors import InputError, SearchError
from deepcite.evaluation.bench_schema import (
    CONFIG_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    Dataset,
    EvalItem,
    QuestionResult,
)
from deepcite.evaluation.datasets import load_dataset
from deepcite.evaluation.judge import Judge
from deepcite.evaluation.runner import (
    BenchRunner,
    bench_config,
    dataset_collection,
    read_results,
)
from deepcite.evaluation.scoring import score
from deepcite.research import Researcher
from deepcite.types import ResearchResult, RunMetrics, Source
from tests.fakes import ScriptedChatModel

SQUAD: dict[str, Any] = {
    "version": "1.1",
    "data": [
        {"title": "Zorvian Lighthouse", "paragraphs": [
            {"context": "The Zorvian lighthouse was built in 1887 by Ada Kettle.", "qas": [
                {"id": "z1", "question": "Who built the Zorvian lighthouse?",
                 "answers": [{"text": "Ada Kettle", "answer_start": 44}]},
                {"id": "z2", "question": "When was the Zorvian lighthouse built?",
                 "answers": [{"text": "1887", "answer_start": 36}]}]},
            {"context": "The lamp of the Zorvian lighthouse burns whale oil from Quenby "
                        "harbour.", "qas": [
                {"id": "z3", "question": "What does the lamp of the Zorvian lighthouse burn?",
                 "answers": [{"text": "whale oil", "answer_start": 41}]}]},
            {"context": "Storms closed the Zorvian lighthouse for repairs in 1923.",
             "qas": []},
        ]},
        {"title": "Plimwick Bakery", "paragraphs": [
            {"context": "The Plimwick bakery sells a blue rye loaf called the Marrowby.",
             "qas": [
                 {"id": "p1",
                  "question": "What is the blue rye loaf of the Plimwick bakery called?",
                  "answers": [{"text": "the Marrowby", "answer_start": 49}]}]},
            {"context": "Plimwick bakers rise at four o'clock to light the brick ovens.",
             "qas": [
                 {"id": "p2", "question": "At what time do Plimwick bakers rise?",
                  "answers": [{"text": "four o'clock", "answer_start": 24}]}]},
            {"context": "The Plimwick bakery was founded by Tobias Wren.", "qas": [
                {"id": "p3", "question": "Who founded the Plimwick bakery?",
                 "answers": [{"text": "Tobias Wren", "answer_start": 35}]}]},
        ]},
    ],
}
IDS = {"z1", "z2", "z3", "p1", "p2", "p3"}


class Bench:
    """A tiny SQuAD dataset indexed into its own collection, and settings searching it."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.path = tmp_path / "tiny.json"
        self.path.write_text(json.dumps(SQUAD), encoding="utf-8")
        self.dataset: Dataset = load_dataset(self.path)
        self.collection = dataset_collection(self.dataset, self.settings(collections=[]))

    def settings(self, collections: list[str] | None = None, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "data_dir": str(self.tmp_path / "data"), "llm.provider": "ollama",
            "search.collections": [self.collection] if collections is None else collections,
            **overrides}
        return load_settings(values, config_files=[], environ={})

    def runner(self, folder: Path, items: list[EvalItem] | None = None, *,
               settings: Settings | None = None, dataset: Dataset | None = None,
               judge: Judge | None = None, parallel: int = 1,
               on_result: Callable[[QuestionResult], None] | None = None) -> BenchRunner:
        settings = settings or self.settings()
        dataset = dataset or self.dataset
        config = bench_config(settings, dataset, self.path, {"n": None}, label=None,
                              judge=judge)
        return BenchRunner(settings, dataset.items if items is None else items, folder,
                           config, judge=judge, parallel=parallel, on_result=on_result)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    """The research model: replies nothing useful, so answers are quoted passages."""
    fake = ScriptedChatModel(default="")
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: fake)
    return fake


@pytest.fixture
def bench(tmp_path: Path, model: ScriptedChatModel) -> Bench:
    return Bench(tmp_path)


def lines_of(folder: Path) -> list[str]:
    return (folder / RESULTS_FILE).read_text(encoding="utf-8").splitlines()


def parsed(folder: Path) -> list[QuestionResult]:
    """Every line of results.jsonl, each of which must parse."""
    return [QuestionResult.model_validate_json(line) for line in lines_of(folder)]


def summary_of(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / SUMMARY_FILE).read_text(encoding="utf-8"))
    return data


def asked_questions(model: ScriptedChatModel) -> int:
    """Research runs the model saw (each run's answer is one call)."""
    return model.purposes().count("synthesis")


# ------------------------------------------------------------------------------ a run


def test_run_writes_one_line_per_question_config_and_summary(bench: Bench,
                                                             tmp_path: Path) -> None:
    folder = tmp_path / "out"
    outcome = bench.runner(folder).run()

    assert outcome.asked == len(IDS) and outcome.already_done == 0 and not outcome.cancelled
    results = parsed(folder)
    assert len(results) == len(IDS)
    assert {r.id for r in results} == IDS
    for result in results:
        assert result.error is None
        assert result.gold_passage is not None
        assert isinstance(result.recall_at_5, bool) and isinstance(result.citation_hit, bool)
        assert result.fabricated_citations == 0
        assert result.model_calls > 0
    assert all(r.recall_at_5 for r in results)  # BM25 finds the made-up facts
    config = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
    assert config["dataset"] == "tiny.json" and config["collections"] == [bench.collection]
    summary = summary_of(folder)
    assert summary["questions"] == len(IDS)
    assert summary["errors"] == 0 and summary["fabricated_citations"] == 0
    assert summary["gold_passages"] == len(IDS)


def test_resume_asks_only_the_missing_questions(bench: Bench, model: ScriptedChatModel,
                                                tmp_path: Path) -> None:
    folder = tmp_path / "out"
    first = bench.runner(folder, bench.dataset.items[:2]).run()
    assert first.asked == 2 and asked_questions(model) == 2

    second = bench.runner(folder).run()

    assert second.already_done == 2 and second.asked == len(IDS) - 2
    assert asked_questions(model) == len(IDS)
    ids = [r.id for r in parsed(folder)]
    assert len(ids) == len(set(ids)) == len(IDS)
    assert summary_of(folder)["questions"] == len(IDS)

    third = bench.runner(folder).run()
    assert third.asked == 0 and third.already_done == len(IDS)
    assert asked_questions(model) == len(IDS) and len(lines_of(folder)) == len(IDS)


def test_failed_question_is_recorded_then_asked_again(bench: Bench,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    real = deepcite.runs.build.build_researcher
    calls: list[int] = []

    def first_one_fails(settings: Settings, *args: Any, **kwargs: Any) -> Researcher:
        calls.append(1)
        if len(calls) == 1:
            raise SearchError("the index is locked")
        return real(settings, *args, **kwargs)

    monkeypatch.setattr(deepcite.runs.build, "build_researcher", first_one_fails)
    folder = tmp_path / "out"
    first = bench.runner(folder).run()

    failed = [r for r in parsed(folder) if r.error is not None]
    assert [r.id for r in failed] == [bench.dataset.items[0].id]
    assert "the index is locked" in (failed[0].error or "")
    assert first.asked == len(IDS)
    assert summary_of(folder)["errors"] == 1

    second = bench.runner(folder).run()

    assert second.asked == 1 and second.already_done == len(IDS) - 1
    last = [r for r in parsed(folder) if r.id == failed[0].id][-1]
    assert last.error is None and last.answer
    records = read_results(folder)
    assert sorted(r.id for r in records) == sorted(IDS)
    assert all(r.error is None for r in records)
    assert summary_of(folder)["errors"] == 0 and summary_of(folder)["questions"] == len(IDS)


def test_crash_that_is_not_a_deepcite_error_is_recorded_too(bench: Bench,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    def broken(settings: Settings, *args: Any, **kwargs: Any) -> Researcher:
        raise RuntimeError("boom")

    monkeypatch.setattr(deepcite.runs.build, "build_researcher", broken)
    folder = tmp_path / "out"
    outcome = bench.runner(folder, bench.dataset.items[:2]).run()
    assert outcome.asked == 2
    assert [r.error for r in parsed(folder)] == ["RuntimeError: boom"] * 2


def test_cancel_keeps_whole_questions_and_the_next_run_finishes(bench: Bench,
                                                                tmp_path: Path) -> None:
    folder = tmp_path / "out"
    holder: list[BenchRunner] = []
    runner = bench.runner(folder, on_result=lambda result: holder[0].cancel())
    holder.append(runner)

    outcome = runner.run()

    assert outcome.cancelled
    assert outcome.asked == 1  # one at a time: nothing else was in flight
    results = parsed(folder)  # every line parses: no half-written question
    assert len(results) == outcome.asked
    assert summary_of(folder)["questions"] == outcome.asked

    rest = bench.runner(folder).run()
    assert not rest.cancelled
    assert rest.already_done == outcome.asked and rest.asked == len(IDS) - outcome.asked
    assert sorted(r.id for r in parsed(folder)) == sorted(IDS)


def test_truncated_last_line_is_asked_again(bench: Bench, model: ScriptedChatModel,
                                            tmp_path: Path) -> None:
    folder = tmp_path / "out"
    bench.runner(folder).run()
    lines = lines_of(folder)
    cut = lines[-1]
    cut_id = QuestionResult.model_validate_json(cut).id
    # A kill while writing: the last line is only half there (no newline).
    (folder / RESULTS_FILE).write_text("".join(line + "\n" for line in lines[:-1])
                                       + cut[: len(cut) // 2], encoding="utf-8")
    before = asked_questions(model)

    outcome = bench.runner(folder).run()

    assert outcome.asked == 1 and outcome.already_done == len(IDS) - 1
    assert asked_questions(model) == before + 1
    assert outcome.results[0].id == cut_id
    records = read_results(folder)
    assert sorted(r.id for r in records) == sorted(IDS)
    assert summary_of(folder)["questions"] == len(IDS)
    # A third run finds nothing left to ask.
    assert bench.runner(folder).run().asked == 0


@pytest.mark.parametrize("override", [{"research.iterations": 3},
                                      {"research.strategy": "iterative"}])
def test_resume_with_other_settings_is_refused(bench: Bench, tmp_path: Path,
                                               override: dict[str, Any]) -> None:
    folder = tmp_path / "out"
    bench.runner(folder, bench.dataset.items[:1]).run()
    other = bench.settings(**override)

    with pytest.raises(InputError, match="another -o folder"):
        bench.runner(folder, settings=other).run()
    assert len(lines_of(folder)) == 1


def test_resume_in_another_data_dir_is_allowed(bench: Bench, tmp_path: Path) -> None:
    folder = tmp_path / "out"
    bench.runner(folder, bench.dataset.items[:1]).run()
    moved = load_settings({"data_dir": str(tmp_path / "elsewhere"), "llm.provider": "ollama",
                           "search.collections": [bench.collection]},
                          config_files=[], environ={})
    assert bench.runner(folder, settings=moved).run().already_done == 1


def test_parallel_gives_the_same_questions(bench: Bench, tmp_path: Path) -> None:
    serial = bench.runner(tmp_path / "serial").run()
    threaded = bench.runner(tmp_path / "threaded", parallel=3).run()

    assert serial.asked == threaded.asked == len(IDS)
    assert {r.id for r in parsed(tmp_path / "serial")} == \
        {r.id for r in parsed(tmp_path / "threaded")} == IDS
    ids = [r.id for r in parsed(tmp_path / "threaded")]
    assert len(ids) == len(set(ids))


def test_parallel_below_one_is_refused(bench: Bench, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--parallel"):
        bench.runner(tmp_path / "out", parallel=0)


# ----------------------------------------------------------------------------- judge


def make_judge(bench: Bench, monkeypatch: pytest.MonkeyPatch, reply: str
               ) -> tuple[Judge, ScriptedChatModel]:
    fake = ScriptedChatModel(default=reply)
    monkeypatch.setattr(deepcite.evaluation.judge, "get_chat_model", lambda settings: fake)
    return Judge.from_settings(bench.settings()), fake


def test_judge_grades_every_question_and_is_not_counted_as_cost(
        bench: Bench, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    plain = bench.runner(tmp_path / "plain").run()
    judge, judge_model = make_judge(bench, monkeypatch, "CORRECT")

    judged = bench.runner(tmp_path / "judged", judge=judge).run()

    results = parsed(tmp_path / "judged")
    assert [r.grade for r in results] == ["correct"] * len(IDS)
    assert all(r.judge_error is None for r in results)
    assert judge_model.purposes() == ["judge"] * len(IDS)
    summary = summary_of(tmp_path / "judged")
    assert summary["correct"] == 1.0 and summary["judged"] == len(IDS)
    by_id = {r.id: r.model_calls for r in plain.results}
    assert {r.id: r.model_calls for r in judged.results} == by_id
    assert summary["cost"]["model_calls"]["total"] == \
        summary_of(tmp_path / "plain")["cost"]["model_calls"]["total"]
    config = json.loads((tmp_path / "judged" / CONFIG_FILE).read_text(encoding="utf-8"))
    assert config["judge"] == judge.name


def test_judge_with_unusable_replies_gives_no_grade(bench: Bench,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    judge, _ = make_judge(bench, monkeypatch, "Well, it is hard to say.")
    bench.runner(tmp_path / "out", bench.dataset.items[:2], judge=judge).run()

    results = parsed(tmp_path / "out")
    assert [r.grade for r in results] == [None, None]
    assert all(r.judge_error for r in results)
    summary = summary_of(tmp_path / "out")
    assert summary["judged"] == 0 and summary["correct"] is None
    assert summary["judge_errors"] == 2


# -------------------------------------------------------------- gold in the collection


def test_squad_questions_have_their_gold_in_the_collection(bench: Bench,
                                                           tmp_path: Path) -> None:
    bench.runner(tmp_path / "out").run()
    assert all(r.gold_in_collection is True for r in parsed(tmp_path / "out"))
    summary = summary_of(tmp_path / "out")
    assert summary["unanswerable_questions"] == 0 and summary["honest_refusal_rate"] is None


def test_questions_the_collection_cannot_answer_count_as_honest_refusals(
        bench: Bench, tmp_path: Path) -> None:
    table = tmp_path / "elsewhere.csv"
    table.write_text("question,answer\n"
                     "Which composer wrote the Gribblesong cantata?,Nessa Thorn\n"
                     "How tall is the Quarvex spire?,212 metres\n", encoding="utf-8")
    dataset = load_dataset(table)
    folder = tmp_path / "out"

    bench.runner(folder, dataset=dataset).run()

    results = parsed(folder)
    assert [r.gold_in_collection for r in results] == [False, False]
    assert all(r.refused for r in results), [r.answer for r in results]
    summary = summary_of(folder)
    assert summary["unanswerable_questions"] == 2
    assert summary["honest_refusal_rate"] == 1.0


def test_without_collections_the_dataset_says_whether_it_is_answerable(
        bench: Bench, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    items = [EvalItem(id="a", question="Who built the Zorvian lighthouse?",
                      answers=["Ada Kettle"], answerable=False)]
    settings = bench.settings(collections=[], **{"search.engines": []})
    bench.runner(tmp_path / "out", items, settings=settings).run()
    assert [r.gold_in_collection for r in parsed(tmp_path / "out")] == [False]


# --------------------------------------------------------------------------- scoring


def source(number: int, title: str = "Zorvian Lighthouse, paragraph 1",
           text: str = "The Zorvian lighthouse was built in 1887 by Ada Kettle.") -> Source:
    url = f"file:///docs/zorvian-lighthouse-p00{number - 1}.txt"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text,
                  engine="collection")


def research_result(answer: str, sources: list[Source], **fields: Any) -> ResearchResult:
    return ResearchResult(question="Who built the Zorvian lighthouse?", answer=answer,
                          strategy="source-based", handler="standard", sources=sources,
                          metrics=RunMetrics(model_calls=2, prompt_tokens=100,
                                             completion_tokens=20, searches=1), **fields)


ITEM = EvalItem(id="z1", question="Who built the Zorvian lighthouse?", answers=["Ada Kettle"],
                gold_passage="zorvian-lighthouse-p000.txt")


def test_score_counts_a_citation_to_a_missing_source_as_fabricated() -> None:
    result = research_result("Ada Kettle built it [1]. It has a famous lamp [7].",
                             [source(1)])
    scored = score(ITEM, 0, result, seconds=1.23456)

    assert scored.fabricated_citations == 1
    assert [c.number for c in scored.cited] == [1]
    assert scored.cited[0].title == "Zorvian Lighthouse, paragraph 1"
    assert scored.citation_hit is True and scored.recall_at_5 is True
    assert scored.contains_gold and not scored.refused and scored.valid_citation
    assert scored.tokens == 120 and scored.model_calls == 2 and scored.seconds == 1.235


def test_score_marks_an_answer_without_sources_as_refused() -> None:
    scored = score(ITEM, 0, research_result("No sources were found for this question.", []),
                   seconds=0.1)
    assert scored.refused
    assert scored.citation_hit is False and scored.recall_at_5 is False
    assert scored.fabricated_citations == 0 and not scored.valid_citation


def test_score_does_not_count_a_failed_run_as_a_refusal() -> None:
    scored = score(ITEM, 0, research_result("", [], error="the model server is down"),
                   seconds=0.1)
    assert not scored.refused
    assert scored.error == "the model server is down"


def test_score_without_gold_passage_leaves_retrieval_figures_unset() -> None:
    item = ITEM.model_copy(update={"gold_passage": None})
    scored = score(item, 3, research_result("Ada Kettle [1].", [source(1)]), seconds=0.0)
    assert scored.citation_hit is None and scored.recall_at_5 is None
    assert scored.index == 3
