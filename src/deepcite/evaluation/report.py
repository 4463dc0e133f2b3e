"""``deepcite bench report``: result folders read back into one table and two plots.

A results folder may belong to a run that was killed mid-write or is still going, so
:func:`load_run` reads ``results.jsonl`` line by line, skips (and counts) lines that do
not parse, lets a question's last line win (a rerun of one question appends), and
recomputes the summary from the results instead of trusting a ``summary.json`` that may
be stale. The Markdown table is written before any plot, so a missing plotting library
or a broken plot never loses it. matplotlib is imported only when plotting, and used
through its object API (no pyplot state), so reports can be written from threads.
"""

from __future__ import annotations

import dataclasses
import datetime
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from deepcite.errors import InputError
from deepcite.evaluation.bench_schema import CONFIG_FILE, RESULTS_FILE, BenchConfig, QuestionResult
from deepcite.evaluation.summary import summarise

if TYPE_CHECKING:
    from matplotlib.figure import Figure

REPORT_FILE = "report.md"
ACCURACY_PLOT = "accuracy_vs_cost.png"
CITATIONS_PLOT = "citations.png"
NONE = "–"

#: Table columns: header, summary key (dotted for nested cost figures), format.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("Correct (judge)", "correct", "share"), ("F-score", "f_score", "share"),
    ("EM", "em", "share"), ("F1", "f1", "share"), ("Contains gold", "contains_gold", "share"),
    ("Citation hit", "citation_hit", "share"), ("Recall@5", "recall_at_5", "share"),
    ("Supported", "supported_share", "share"),
    ("Valid citation", "valid_citation_share", "share"), ("Refused", "refused", "share"),
    ("Honest refusal", "honest_refusal_rate", "share"),
    ("Fabricated", "fabricated_citations", "count"),
    ("Wrong-type leads", "wrong_type_leads", "count"),
    ("Calls/q", "cost.model_calls.mean", "mean"), ("Tokens/q", "cost.tokens.mean", "mean"),
    ("s/q p50", "cost.seconds.p50", "seconds"), ("s/q p95", "cost.seconds.p95", "seconds"),
)


@dataclass(frozen=True)
class Run:
    """One results folder read back: its config, results and recomputed summary."""

    folder: Path
    label: str
    config: BenchConfig | None
    results: list[QuestionResult]
    summary: dict[str, Any]
    #: Lines of ``results.jsonl`` that did not parse and were skipped.
    bad_lines: int


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote."""

    markdown: Path
    plots: list[Path]


def _missing(folder: Path) -> str:
    return (f"No {RESULTS_FILE} in {folder} - run `deepcite bench run DATASET -o {folder}` "
            "first")


def load_run(folder: Path) -> Run:
    """Read a results folder; unreadable lines are skipped and counted, last line wins."""
    path = folder / RESULTS_FILE
    if not path.is_file():
        raise InputError(_missing(folder))
    by_id: dict[str, QuestionResult] = {}
    bad = 0
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if not line.strip():
                continue
            try:
                result = QuestionResult.model_validate_json(line)
            except ValidationError:
                bad += 1
                continue
            by_id[result.id] = result  # a dict keeps the first-seen position
    config: BenchConfig | None = None
    config_path = folder / CONFIG_FILE
    if config_path.is_file():
        try:
            config = BenchConfig.model_validate_json(config_path.read_bytes())
        except ValidationError as exc:
            raise InputError(f"{config_path} is not a bench config ({exc.error_count()} "
                             "problems) - restore it or delete it to label the run by its "
                             "folder") from None
    results = list(by_id.values())
    return Run(folder=folder, label=config.label if config else folder.name, config=config,
               results=results, summary=summarise(results), bad_lines=bad)


def find_runs(folder: Path) -> list[Path]:
    """The folder when it holds results, else its direct subfolders that do, by name."""
    if (folder / RESULTS_FILE).is_file():
        return [folder]
    found = sorted((p for p in folder.iterdir() if (p / RESULTS_FILE).is_file()),
                   key=lambda p: p.name) if folder.is_dir() else []
    if not found:
        raise InputError(_missing(folder))
    return found


def load_runs(folders: Sequence[Path]) -> list[Run]:
    """Every run under ``folders``, with labels made unique by their folder names."""
    runs = [load_run(path) for folder in folders for path in find_runs(folder)]
    labels = [run.label for run in runs]
    unique: list[Run] = []
    for run in runs:
        label = run.label
        if labels.count(label) > 1:
            label = f"{label} ({run.folder.name})"
            if label in (u.label for u in unique):
                label = f"{run.label} ({run.folder})"
        unique.append(dataclasses.replace(run, label=label))
    return unique


def _value(summary: dict[str, Any], key: str) -> Any:
    value: Any = summary
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _cell(value: Any, kind: str) -> str:
    if value is None:
        return NONE
    if kind == "share":
        return f"{100 * value:.1f}%"
    if kind == "count":
        return str(int(value))
    return f"{value:.2f}" if kind == "seconds" else f"{value:.1f}"


def escape(label: str) -> str:
    """A label made safe for a Markdown table cell or heading."""
    return " ".join(label.split()).replace("|", "\\|")


def _notes(runs: Sequence[Run]) -> list[str]:
    notes = []
    for run in runs:
        name, s = escape(run.label), run.summary
        if not run.results:
            notes.append(f"{name}: no results yet; left out of the plots.")
        if s["errors"]:
            notes.append(f"{name}: {s['errors']} question(s) ended in an error (still counted).")
        if s["judge_errors"]:
            notes.append(f"{name}: {s['judge_errors']} judge reply(ies) unusable; those "
                         "questions are not graded.")
        if run.bad_lines:
            notes.append(f"{name}: {run.bad_lines} unreadable line(s) of {RESULTS_FILE} "
                         "skipped.")
    return notes


def render_table(runs: Sequence[Run]) -> str:
    """A GitHub Markdown table of the runs, with notes on errors and skipped lines."""
    headers = ["Configuration", "Questions", *(c[0] for c in COLUMNS)]
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(headers) - 1)) + "|"]
    for run in runs:
        empty = not run.results
        cells = [escape(run.label), str(run.summary["questions"])]
        cells += [NONE if empty and key.startswith("cost.") else _cell(_value(run.summary, key),
                                                                         kind)
                  for _, key, kind in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    notes = _notes(runs)
    if notes:
        lines += ["", "Notes:", "", *(f"- {note}" for note in notes)]
    return "\n".join(lines) + "\n"


def _config_section(run: Run) -> list[str]:
    lines = [f"### {escape(run.label)}", "", f"- folder: `{run.folder}`"]
    c = run.config
    if c is None:
        return [*lines, f"- no {CONFIG_FILE}: configuration unknown", ""]
    sample = ", ".join(f"{k}={v}" for k, v in c.sample.items()) or "all"
    return [*lines, f"- dataset: {c.dataset} ({c.dataset_format})", f"- sample: {sample}",
            f"- strategy: {c.strategy}", f"- provider: {c.provider}", f"- model: {c.model}",
            f"- judge: {c.judge or 'none'}",
            f"- collections: {', '.join(c.collections) or 'none'}", ""]


def _figure_class() -> type[Figure]:
    """matplotlib's Figure, on the Agg backend; InputError when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        raise InputError("Plots need matplotlib - pip install 'deepcite[bench]'") from None
    if "matplotlib.pyplot" not in sys.modules:  # switching would close pyplot's figures
        matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure


def _accuracy(run: Run) -> tuple[float, bool]:
    judged = bool(run.summary["judged"])
    value = run.summary["correct"] if judged else run.summary["f1"]
    return 100 * float(value or 0.0), judged


def plot_accuracy(figure: type[Figure], runs: Sequence[Run], path: Path) -> None:
    """Accuracy (judge's correct share, else mean F1) against mean seconds per question."""
    fig = figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.add_subplot()
    points = [(float(run.summary["cost"]["seconds"]["mean"]), *_accuracy(run), run.label)
              for run in runs]
    kinds = {judged for _, _, judged, _ in points}
    for judged, name in ((True, "correct (judge)"), (False, "mean F1 (not judged)")):
        xs = [x for x, _, j, _ in points if j == judged]
        ys = [y for _, y, j, _ in points if j == judged]
        if xs:
            ax.scatter(xs, ys, marker="o" if judged else "s", s=50, label=name)
    for x, y, _, label in points:
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(6, 4), fontsize=8)
    if len(kinds) > 1:
        ax.set_ylabel("Accuracy, %")
        ax.legend(loc="lower right", fontsize=8)
    else:
        ax.set_ylabel("Correct (judge), %" if True in kinds else "Mean F1, %")
    ax.set_xlabel("Mean seconds per question")
    ax.set_ylim(0, 105)
    ax.set_xlim(0, 1.35 * max(x for x, *_ in points) or 1.0)
    ax.grid(True, alpha=0.3)
    ax.set_title("Accuracy vs. cost")
    fig.savefig(path, dpi=120)


def plot_citations(figure: type[Figure], runs: Sequence[Run], path: Path) -> None:
    """Stacked bars of citation outcomes per run, the fabricated count in each label."""
    parts = (("supported_share", "supported", "#2e7d32"), ("partial_share", "partial", "#f9a825"),
             ("unsupported_share", "unsupported", "#c62828"),
             ("removed_share", "removed", "#9e9e9e"))
    fig = figure(figsize=(8, 1.6 + 0.5 * len(runs)), layout="constrained")
    ax = fig.add_subplot()
    names = [f"{run.label}\nfabricated: {run.summary['fabricated_citations']}" for run in runs]
    left = [0.0] * len(runs)
    for key, name, colour in parts:
        widths = [100 * float(run.summary[key] or 0.0) for run in runs]
        ax.barh(names, widths, left=left, label=name, color=colour)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    for i, run in enumerate(runs):
        if not run.summary["citations_total"]:
            ax.text(1, i, "no citations", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("Share of citations checked or removed, %")
    fig.legend(loc="outside lower center", ncol=4, fontsize=8)
    ax.set_title("Citation outcomes")
    fig.savefig(path, dpi=120)


def write_report(folders: Sequence[Path], out: Path | None = None) -> ReportFiles:
    """Write ``report.md`` and the two plots to ``out`` (default: the first folder).

    The Markdown is written first; a missing matplotlib then raises :class:`InputError`
    with the table already on disk.
    """
    if not folders:
        raise InputError("bench report needs a result folder - pass the folder of a run")
    runs = load_runs(folders)
    out = out if out is not None else folders[0]
    out.mkdir(parents=True, exist_ok=True)
    plotted = [run for run in runs if run.results]
    figure: type[Figure] | None = None
    missing: InputError | None = None
    if plotted:
        try:
            figure = _figure_class()
        except InputError as exc:
            missing = exc
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# deepcite bench report", "", f"Generated {now}.", "", render_table(runs)]
    if figure is not None:
        lines += ["## Plots", "", f"![Accuracy vs. cost]({ACCURACY_PLOT})", "",
                  f"![Citation outcomes]({CITATIONS_PLOT})", ""]
    lines += ["## Configurations", ""]
    for run in runs:
        lines += _config_section(run)
    markdown = out / REPORT_FILE
    markdown.write_text("\n".join(lines), encoding="utf-8")
    if missing is not None:
        raise missing
    plots: list[Path] = []
    if figure is not None:
        plot_accuracy(figure, plotted, out / ACCURACY_PLOT)
        plot_citations(figure, plotted, out / CITATIONS_PLOT)
        plots = [out / ACCURACY_PLOT, out / CITATIONS_PLOT]
    return ReportFiles(markdown=markdown, plots=plots)
