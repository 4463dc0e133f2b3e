"""The ``deepcite`` command.

Front end only: it turns options into settings overrides, calls the API, shows events
as a rich progress display on stderr and writes results to stdout, so that
``deepcite ask ... --json | jq`` works. Errors are one line on stderr with exit code 1
(2 for bad settings or input).

Help texts are plain text, not rich markup (``rich_markup_mode=None``): they quote
things like ``[n]`` and ``deepcite[embeddings]``, which markup would swallow.
"""

from __future__ import annotations

import logging
from importlib import metadata
from typing import Annotated

import typer

from deepcite._version import __version__
from deepcite.cli.ask import ask, report
from deepcite.cli.bench import bench_app
from deepcite.cli.collection import collection_app
from deepcite.cli.db import db_app
from deepcite.cli.export import export_command
from deepcite.cli.exporters import exporters
from deepcite.cli.history import history_command, rm_command, show_command
from deepcite.cli.info import config_app, engines, models, strategies
from deepcite.cli.mcp import mcp_command
from deepcite.cli.replay import compare_command, rerun_command
from deepcite.cli.serve import serve_command
from deepcite.cli.users import audit_command, users_app
from deepcite.cli.verify import verify_command
from deepcite.cli.watch import watch_app
from deepcite.cli.worker import worker_command

app = typer.Typer(
    help="deepcite: research questions with answers whose every [n] points at a real source.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.command(help="Research a question and print a cited answer.")(ask)
app.command(help="Research a question as a sectioned report with one Sources block.")(report)
app.command(help="Which LLM providers are usable here, and why not.")(models)
app.command(help="Which search engines are usable here, and why not.")(engines)
app.command(help="The research strategies and citation handlers, one line each.")(strategies)
app.command("verify", help="Check the citations of a Markdown report against its sources.")(
    verify_command)
app.command("history", help="List stored runs, newest first.")(history_command)
app.command("show", help="Print a stored run's report again.")(show_command)
app.command("rm", help="Delete a stored run.")(rm_command)
app.command("compare", help="Compare two stored runs: sources, claims, figures, settings.")(
    compare_command)
app.command("rerun", help="Run a stored run again (--offline: replay its verification).")(
    rerun_command)
app.command("export", help="Export a stored run: PDF, Word, HTML, BibTeX...")(export_command)
app.command(help="The export formats, and whether each is usable here.")(exporters)
app.command("mcp", help="Serve deepcite as MCP tools (stdio or HTTP) for assistants.")(
    mcp_command)
app.command("serve", help="Serve the web app and REST API (deepcite[web]).")(serve_command)
app.command("worker", help="Execute queued research runs (queue.url; deepcite[queue]).")(
    worker_command)
app.add_typer(collection_app, name="collection", help="Index and search local documents.")
app.add_typer(bench_app, name="bench",
              help="Measure answer quality, citation quality and cost on a dataset.")
app.add_typer(config_app, name="config", help="Inspect settings.")
app.add_typer(db_app, name="db", help="The history database: migrations.")
app.add_typer(users_app, name="users",
              help="User accounts and their API tokens (deepcite[web] for argon2-cffi).")
app.command("audit", help="Show the audit log, newest first.")(audit_command)
app.add_typer(watch_app, name="watch",
              help="Questions researched again on a schedule, with what changed.")


def installed_version() -> str:
    """The version of the installed distribution; the source tree's when not installed."""
    try:
        return metadata.version("deepcite")
    except metadata.PackageNotFoundError:
        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"deepcite {installed_version()}")
        raise typer.Exit()


@app.callback()
def _options(
    verbose: Annotated[bool, typer.Option("--verbose", "-v",
                                          help="Show library log messages.")] = False,
    version: Annotated[bool, typer.Option(
        "--version", "-V", is_eager=True, callback=_print_version, expose_value=False,
        help="Print the version (deepcite X.Y.Z) and exit.")] = False,
) -> None:
    """deepcite: research questions with answers whose every [n] points at a real source."""
    # Warnings reach users as run events; raw library logs only with --verbose.
    logging.basicConfig(level=logging.INFO if verbose else logging.ERROR,
                        format="%(levelname)s %(name)s: %(message)s", force=True)


def main() -> None:
    """Entry point of the ``deepcite`` script."""
    app()
