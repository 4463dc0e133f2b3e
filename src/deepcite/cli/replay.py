"""``deepcite compare`` and ``deepcite rerun``: two stored runs side by side, and a
stored run's verification done again.

``compare A B`` prints :func:`~deepcite.runs.compare_markdown.comparison_markdown` (``--json``:
the :class:`~deepcite.runs.compare.RunComparison`). ``rerun ID --offline`` verifies
the stored answer again against the stored source texts, calling no model and no
engine (:func:`~deepcite.runs.replay.replay_verification`); it exits 0 when the
replay matches the stored verification, 1 when it does not. Runs are named as
``deepcite show`` names them: an id or a unique prefix.

The store and the run modules are imported when a command runs, as for ``history``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from deepcite.cli.common import err, out, settings_from, user_errors, warn
from deepcite.cli.history import SHORT_ID
from deepcite.config import Settings

if TYPE_CHECKING:
    from deepcite.runs.replay import ReplayOutcome
    from deepcite.store import HistoryStore, StoredRun


def _open(settings: Settings) -> HistoryStore:
    from deepcite.store import HistoryStore

    return HistoryStore.open(settings)


def compare_command(
    first: Annotated[str, typer.Argument(metavar="A",
                                         help="Run id or a unique prefix (4+ characters).")],
    second: Annotated[str, typer.Argument(metavar="B",
                                          help="Run id or a unique prefix (4+ characters).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Compare two stored runs: sources gained and lost, claims whose support changed,
    figures and settings side by side."""
    from deepcite.runs.compare import compare_runs
    from deepcite.runs.compare_markdown import comparison_markdown

    with user_errors(), _open(settings_from({})) as store:
        a, b = store.get(first), store.get(second)
    comparison = compare_runs(a, b)
    if as_json:
        out.print_json(comparison.model_dump_json())
        return
    out.print(comparison_markdown(comparison), markup=False)


def rerun_command(
    run: Annotated[str, typer.Argument(help="Run id or a unique prefix (4+ characters).")],
    offline: Annotated[bool, typer.Option(
        "--offline", help="Verify the stored answer again against the stored source texts "
                          "only: no model, no search.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    compare: Annotated[bool, typer.Option(
        "--compare", help="After the rerun, print what changed (= deepcite compare OLD "
                          "NEW).")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")
                     ] = False,
    material: Annotated[list[Path] | None, typer.Option(
        "--material", "-m", help="With --offline: a material the run cited, handed in "
        "again, to check the citations whose text the history did not keep "
        "(repeatable).")] = None,
) -> None:
    """Run a stored run again; with --offline, replay its citation verification from the
    history and say whether it matches (exit 0) or not (exit 1)."""
    with user_errors():
        settings = settings_from({})
        with _open(settings) as store:
            stored = store.get(run)
        if not offline:
            _rerun_live(stored, settings, store_again=True, quiet=quiet, compare=compare)
            return
        from deepcite.cli.options import given_materials
        from deepcite.runs.replay import replay_verification

        outcome = replay_verification(stored, settings, given_materials(material))
    if as_json:
        out.print_json(outcome.model_dump_json())
    else:
        _print_outcome(outcome)
    if not outcome.matches:
        raise typer.Exit(1)


def _rerun_live(stored: StoredRun, settings: Settings, *, store_again: bool, quiet: bool,
                compare: bool) -> None:
    """Research the stored run's request again with the settings it was made with
    (this machine's secrets, data and store), keep it as a new run, print its answer
    and, with ``compare``, what changed."""
    from deepcite.cli.running import print_result, run_with_progress
    from deepcite.runs.compare import compare_runs
    from deepcite.runs.compare_markdown import comparison_markdown
    from deepcite.runs.rerun import rerun_plan

    with _open(settings) as store:
        plan = rerun_plan(stored, settings)
        for note in plan.notes:
            warn(note)
        result, run_id = run_with_progress(plan.request, plan.settings, store=store,
                                           save=store_again, quiet=quiet)
        again = store.get(run_id) if run_id is not None else None
    print_result(result, plan.settings, fmt=None, as_json=False, output=None,
                 show_findings=False)
    if run_id is not None and not quiet:
        err.print(f"Saved as {run_id[:SHORT_ID]}; what changed: deepcite compare "
                  f"{stored.id[:SHORT_ID]} {run_id[:SHORT_ID]}", markup=False)
    if compare:
        out.print(comparison_markdown(compare_runs(stored, again or result)), markup=False)
    if result.cancelled:
        from deepcite.cli.running import EXIT_CANCELLED

        raise typer.Exit(EXIT_CANCELLED)


def _print_outcome(outcome: ReplayOutcome) -> None:
    short = outcome.run_id[:SHORT_ID]
    for note in outcome.notes:
        warn(note)
    counts = outcome.verification
    checked = (f"{len(outcome.citation_checks)} citation(s): {counts.supported} supported, "
               f"{counts.partial} partial, {counts.unsupported} unsupported"
               if counts is not None else "no verification")
    if outcome.matches:
        out.print(Text(f"Run {short}: the offline replay matches the stored verification "
                       f"({checked})."))
        return
    out.print(Text(f"Run {short}: the offline replay does NOT match the stored verification "
                   f"({len(outcome.differences)} difference(s); replayed: {checked}):"))
    for difference in outcome.differences:
        out.print(Text(f"- {difference.describe()}"))
