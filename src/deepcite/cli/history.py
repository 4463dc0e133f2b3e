"""``deepcite history``, ``show`` and ``rm``: list, reopen and delete stored runs.

Runs are named by their id or any unique prefix of it (at least 4 characters), as git
names commits; ``deepcite history`` shows the first 8. ``show`` prints a run exactly as
``deepcite ask`` printed it: the report is assembled again from the stored body and
sources, never stored assembled.

The store (SQLAlchemy, Alembic) is imported when one of these commands runs, not when
the CLI starts: every other command would otherwise pay for loading it.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Column, Table
from rich.text import Text

from deepcite.cli.common import err, fail, out, settings_from, user_errors, warn
from deepcite.config import Settings
from deepcite.security.terminal import one_line

if TYPE_CHECKING:
    from deepcite.store import HistoryStore, RunSummary, StoredRun

QUESTION_WIDTH = 60
"""The most characters of a question ``deepcite history`` shows (fewer when narrow)."""
MIN_QUESTION_WIDTH = 12
SHORT_ID = 8


def _open(settings: Settings) -> HistoryStore:
    from deepcite.store import HistoryStore

    return HistoryStore.open(settings)


def history_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    search: Annotated[str | None, typer.Option(
        "--search", help="Only runs whose question, title or answer holds TEXT "
                         "(case-insensitive).")] = None,
    limit: Annotated[int | None, typer.Option(
        "--limit", "-n", min=1, help="Show at most N runs (the newest).")] = None,
) -> None:
    """List stored runs, newest first."""
    with user_errors(), _open(settings_from({})) as store:
        runs = store.list(search=search, limit=limit)
    if as_json:
        out.print_json(json.dumps([run.model_dump(mode="json") for run in runs]))
        return
    if not runs:
        if search:
            out.print(Text(f"No runs match {search!r} - `deepcite history` lists them all"))
        else:
            out.print(Text("No runs yet - `deepcite ask ...` stores its runs here"))
        return
    out.print(_table(runs))


def _table(runs: list[RunSummary]) -> Table:
    """The listing, as wide as the terminal allows: only the question is shortened to
    fit (a cut id or date would mislead)."""
    rows = [[run.id[:SHORT_ID], _when(run), "", run.mode, run.status, str(run.sources)]
            for run in runs]
    headers = ["id", "when", "question", "mode", "status", "sources"]
    widths = [max(len(header), *(len(row[i]) for row in rows))
              for i, header in enumerate(headers)]
    # each column has one blank either side, and there is a rule before each and at the end
    others = sum(widths) - widths[2] + 3 * len(headers) + 1
    room = max(MIN_QUESTION_WIDTH, min(QUESTION_WIDTH, out.width - others))
    table = Table(*(Column(header, no_wrap=True, justify="right" if header == "sources"
                           else "left") for header in headers))
    for run, row in zip(runs, rows, strict=True):
        row[2] = _shorten(run.question, room)
        table.add_row(*(Text(cell) for cell in row))
    return table


def show_command(
    run: Annotated[str, typer.Argument(help="Run id or a unique prefix (4+ characters).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Print a stored run's report (answer and Sources), as `deepcite ask` printed it
    (a document check: as `deepcite check` did)."""
    from deepcite.citations import hyperlink
    from deepcite.export.markdown import to_json_dict, to_markdown

    with user_errors():
        settings = settings_from({})
        with _open(settings) as store:
            stored = store.get(run)
    _warn_unfinished(stored)
    result = stored.result
    if as_json:
        data: dict[str, Any] = to_json_dict(result)
        data.update(id=stored.id, created_at=stored.created_at.isoformat(),
                    finished_at=stored.finished_at.isoformat() if stored.finished_at
                    else None, status=stored.status, parent_id=stored.parent_id)
        out.print_json(json.dumps(data))
        return
    if result.mode == "check":  # as `deepcite check` printed it, with its verdict counts
        from deepcite.factcheck import render_markdown

        markdown = render_markdown(result)
    else:
        markdown = to_markdown(result)
    if settings.citations.links != "none":
        markdown = hyperlink(markdown, result.sources, settings.citations.links)
    out.print(markdown, markup=False)


def _warn_unfinished(stored: StoredRun) -> None:
    short = stored.id[:SHORT_ID]
    if stored.status == "queued":
        warn(f"run {short} has not started: it is queued, waiting for a free slot")
    elif stored.status == "running":
        warn(f"run {short} has not ended: it is still running, or its process stopped "
             "before it could store a result")
    elif stored.status == "failed" and stored.result.error:
        warn(f"run {short} failed: {one_line(stored.result.error)}")


def rm_command(
    run: Annotated[str, typer.Argument(help="Run id or a unique prefix (4+ characters).")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")
                   ] = False,
) -> None:
    """Delete a stored run with its sources, checks and events."""
    with user_errors(), _open(settings_from({})) as store:
        stored = store.get(run)
        short = stored.id[:SHORT_ID]
        if not yes:
            if not _interactive():
                fail(f"Not deleting run {short} without confirmation - pass --yes", 2)
            question = _shorten(stored.result.question)
            if not typer.confirm(f"Delete run {short} ({question})?", default=False,
                                 err=True):
                err.print(Text("Nothing deleted."))
                raise typer.Exit(1)
        store.delete(stored.id)
    out.print(Text(f"Deleted run {short}."))


def _interactive() -> bool:
    """Whether someone can answer a confirmation prompt (stdin is a terminal)."""
    return sys.stdin is not None and sys.stdin.isatty()


def _when(run: RunSummary) -> str:
    """When a run started, in local time."""
    return run.created_at.astimezone().strftime("%Y-%m-%d %H:%M")


def _shorten(text: str, width: int = QUESTION_WIDTH) -> str:
    line = one_line(text)
    return line if len(line) <= width else line[:width - 1] + "…"
