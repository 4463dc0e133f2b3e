"""``deepcite bench run|report|compare``: answer quality, citation quality and cost.

A front end over :mod:`deepcite.evaluation`: options become settings, a rich bar on
stderr shows questions done with the running accuracy and cost, Ctrl-C (or SIGTERM)
stops the questions in flight and keeps every finished one, and the same command
resumes. See ``docs/benchmarks.md``.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from deepcite.cli.common import err, fail, out, settings_from, user_errors, warn
from deepcite.cli.running import EXIT_CANCELLED, run_interruptibly
from deepcite.collections import ensure_demo_collection
from deepcite.config import Settings
from deepcite.evaluation.bench_schema import QuestionResult
from deepcite.evaluation.compare import compare_runs, render_comparison
from deepcite.evaluation.datasets import load_dataset, sample
from deepcite.evaluation.judge import Judge
from deepcite.evaluation.report import load_runs, render_table, write_report
from deepcite.evaluation.runner import BenchRunner, bench_config, dataset_collection
from deepcite.runs.build import DEMO_COLLECTION

bench_app = typer.Typer(no_args_is_help=True)


class BenchProgress:
    """Questions done of all, running accuracy (judge, else F1) and cost so far."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self._lock = threading.Lock()
        self._results: list[QuestionResult] = []
        self._progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[dim]{task.fields[stats]}"), TimeElapsedColumn(),
            TimeRemainingColumn(), console=err, disable=not enabled)
        self._total = total
        #: Questions found done in the folder: the bar starts there.
        self.already = 0
        self._task: TaskID | None = None

    def __enter__(self) -> BenchProgress:
        self._progress.__enter__()
        self._task = self._progress.add_task("Questions", total=self._total,
                                             completed=self.already, stats="")
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.__exit__(None, None, None)

    def status(self, text: str) -> None:
        if self._task is not None:
            self._progress.update(self._task, description=text)

    def add(self, result: QuestionResult) -> None:
        with self._lock:
            self._results.append(result)
            stats = self.stats()
        if self._task is not None:
            self._progress.update(self._task, advance=1, stats=stats)

    def stats(self) -> str:
        done = self._results
        graded = [r.grade for r in done if r.grade is not None]
        if graded:
            quality = f"correct {100 * graded.count('correct') / len(graded):.1f}%"
        else:
            quality = f"F1 {sum(r.f1 for r in done) / len(done):.2f}"
        refused = 100 * sum(r.refused for r in done) / len(done)
        tokens = sum(r.tokens for r in done) / len(done)
        seconds = sum(r.seconds for r in done) / len(done)
        return (f"{quality} · refused {refused:.0f}% · {tokens:,.0f} tok/q · "
                f"{seconds:.1f} s/q")


def _default_output(dataset: Path, config_label: str) -> Path:
    slug = re.sub(r"[^a-z0-9]+", "-", f"{dataset.name.split('.')[0]} {config_label}".lower())
    return Path("bench-results") / slug.strip("-")


def _judge(settings: Settings, provider: str | None, model: str | None) -> Judge | None:
    if provider is None and model is None:
        return None
    overrides: dict[str, Any] = {"llm.provider": provider or settings.llm.provider,
                                 "llm.model": model, "llm.max_tokens": 16}
    return Judge.from_settings(settings_from(overrides))


@bench_app.command("run")
def run_command(
    dataset: Annotated[Path, typer.Argument(help="CSV/TSV/JSONL/JSON table with question "
                                                 "and answer columns (SimpleQA's problem/"
                                                 "answer too), or SQuAD JSON.")],
    questions: Annotated[int | None, typer.Option(
        "-n", "--questions", help="Questions to ask (a seeded sample; default: all).")] = None,
    seed: Annotated[int, typer.Option(help="Sample seed (same seed, same questions).")] = 0,
    in_order: Annotated[bool, typer.Option(
        "--in-order", help="Take the first -n questions instead of a sample.")] = False,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Results folder (created; resumed when it exists). Default: "
        "bench-results/<dataset>-<configuration>.")] = None,
    collection: Annotated[list[str] | None, typer.Option(
        "--collection", "-c", help="Collection to search (repeatable). SQuAD-format input "
        "is indexed into its own collection unless this is given.")] = None,
    engine: Annotated[list[str] | None, typer.Option(
        "--engine", "-e", help="Search engine (repeatable); see `deepcite engines`.")] = None,
    strategy: Annotated[str | None, typer.Option(
        "--strategy", "-s", help="Research strategy; see `deepcite strategies`.")] = None,
    provider: Annotated[str | None, typer.Option(
        help="LLM provider: auto, local, ollama, openai, anthropic.")] = None,
    model: Annotated[str | None, typer.Option(help="Model name for the provider.")] = None,
    handler: Annotated[str | None, typer.Option(help="Citation handler.")] = None,
    iterations: Annotated[int | None, typer.Option(
        "--iterations", "-i", help="Search iterations.")] = None,
    offline: Annotated[bool | None, typer.Option(
        "--offline", help="No internet: only local collections and local services.")] = None,
    judge_provider: Annotated[str | None, typer.Option(
        help="Grade answers with the SimpleQA rubric on this provider.")] = None,
    judge_model: Annotated[str | None, typer.Option(
        help="The judge's model (implies judging; provider defaults to the run's).")] = None,
    parallel: Annotated[int, typer.Option(
        "--parallel", "-j", help="Questions at a time.")] = 1,
    label: Annotated[str | None, typer.Option(
        help="Name of this configuration in reports (default: strategy · provider:model).")
    ] = None,
    fmt: Annotated[str | None, typer.Option(
        "--format", help="Dataset format when the file name does not tell: squad, simpleqa, "
        "table.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Ask DATASET's questions and write results.jsonl and summary.json."""
    with user_errors():
        data = load_dataset(dataset, format=fmt)
        items = sample(data.items, questions, None if in_order else seed)
        overrides: dict[str, Any] = {
            "search.collections": collection, "search.engines": engine,
            "research.strategy": strategy, "llm.provider": provider, "llm.model": model,
            "citations.handler": handler, "research.iterations": iterations,
            "security.offline": offline}
        settings = settings_from(overrides)
        own_documents = not collection and bool(data.documents)
        if own_documents:
            with err.status(f"Indexing {len(data.documents)} passages of {dataset.name} "
                            f"(once)...") as status:
                name = dataset_collection(
                    data, settings,
                    lambda done, total: status.update(f"Indexing passages {done}/{total}"))
            settings = settings_from({**overrides, "search.collections": [name]})
        if DEMO_COLLECTION in settings.search.collections:
            with err.status("Preparing the demo collection (built once, offline)..."):
                ensure_demo_collection(settings, on_notice=warn)
        judge = _judge(settings, judge_provider, judge_model)
        picked = {"n": len(items), "of": len(data.items),
                  "seed": None if in_order or len(items) == len(data.items) else seed}
        config = bench_config(settings, data, dataset, picked, label=label, judge=judge)
        folder = output or _default_output(dataset, config.label)
        progress = BenchProgress(len(items), enabled=not quiet)
        runner = BenchRunner(settings, items, folder, config, judge=judge,
                             parallel=parallel, on_result=progress.add,
                             own_documents=own_documents)
        progress.already = runner.prepare()
        with progress:
            outcome = run_interruptibly(runner.run, runner.cancel, progress)
        if outcome.already_done:
            err.print(f"Resumed: {outcome.already_done} questions were already done.")
        runs = load_runs([folder])
        out.print(render_table(runs), markup=False)
        err.print(f"Results in {folder}/ (results.jsonl, summary.json); "
                  f"`deepcite bench report {folder}` draws the plots.", markup=False)
    if outcome.cancelled:
        err.print("Cancelled: the finished questions are kept; run the same command to "
                  "go on.")
        raise typer.Exit(EXIT_CANCELLED)


@bench_app.command("report")
def report_command(
    folders: Annotated[list[Path], typer.Argument(
        help="Results folders (or a folder of them).")],
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Where report.md and the plots go (default: the first "
        "folder).")] = None,
) -> None:
    """Write report.md (a table of every run) and PNG plots: accuracy vs. cost, citations."""
    with user_errors():
        runs = load_runs(folders)
        out.print(render_table(runs), markup=False)
        files = write_report(folders, output)
        err.print(f"Wrote {files.markdown}" + "".join(f", {p}" for p in files.plots),
                  markup=False)


@bench_app.command("compare")
def compare_command(
    folders: Annotated[list[Path], typer.Argument(
        help="Two or more results folders; the first is the baseline.")],
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 2000,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Also write the comparison (Markdown) to this file.")] = None,
) -> None:
    """Set runs side by side: differences, and whether they exceed run-to-run noise."""
    with user_errors():
        if resamples < 100:
            fail("--resamples must be at least 100 for a usable interval", 2)
        text = render_comparison(compare_runs(folders, resamples=resamples))
        out.print(text, markup=False)
        if output is not None:
            output.write_text(text + "\n", encoding="utf-8")
