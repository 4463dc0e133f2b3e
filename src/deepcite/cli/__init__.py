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
from deepcite.cli.lazy import LazyCommand, LazyGroup

# Each command's module is imported when that command runs (or shows its own --help):
# `deepcite --version`, `--help` or `history` load only what they use. Listed in the
# order `deepcite --help` shows them.
COMMANDS = (
    LazyCommand("ask", "deepcite.cli.ask", "ask",
                "Research a question and print a cited answer."),
    LazyCommand("report", "deepcite.cli.ask", "report",
                "Research a question as a sectioned report with one Sources block."),
    LazyCommand("check", "deepcite.cli.check", "check_command",
                "Check a document claim by claim against your sources."),
    LazyCommand("models", "deepcite.cli.info", "models",
                "Which LLM providers are usable here, and why not."),
    LazyCommand("engines", "deepcite.cli.info", "engines",
                "Which search engines are usable here, and why not."),
    LazyCommand("strategies", "deepcite.cli.info", "strategies",
                "The research strategies and citation handlers, one line each."),
    LazyCommand("verify", "deepcite.cli.verify", "verify_command",
                "Check the citations of a Markdown report against its sources."),
    LazyCommand("history", "deepcite.cli.history", "history_command",
                "List stored runs, newest first."),
    LazyCommand("show", "deepcite.cli.history", "show_command",
                "Print a stored run's report again."),
    LazyCommand("rm", "deepcite.cli.history", "rm_command", "Delete a stored run."),
    LazyCommand("usage", "deepcite.cli.usage", "usage_command",
                "Usage and cost over time: model calls, tokens, searches."),
    LazyCommand("compare", "deepcite.cli.replay", "compare_command",
                "Compare two stored runs: sources, claims, figures, settings."),
    LazyCommand("rerun", "deepcite.cli.replay", "rerun_command",
                "Run a stored run again (--offline: replay its verification)."),
    LazyCommand("export", "deepcite.cli.export", "export_command",
                "Export a stored run: PDF, Word, HTML, BibTeX..."),
    LazyCommand("exporters", "deepcite.cli.exporters", "exporters",
                "The export formats, and whether each is usable here."),
    LazyCommand("mcp", "deepcite.cli.mcp", "mcp_command",
                "Serve deepcite as MCP tools (stdio or HTTP) for assistants."),
    LazyCommand("serve", "deepcite.cli.serve", "serve_command",
                "Serve the web app and REST API (deepcite[web])."),
    LazyCommand("worker", "deepcite.cli.worker", "worker_command",
                "Execute queued research runs (queue.url; deepcite[queue])."),
    LazyCommand("audit", "deepcite.cli.users", "audit_command",
                "Show the audit log, newest first."),
    LazyCommand("collection", "deepcite.cli.collection", "collection_app",
                "Index and search local documents."),
    LazyCommand("bench", "deepcite.cli.bench", "bench_app",
                "Measure answer quality, citation quality and cost on a dataset."),
    LazyCommand("config", "deepcite.cli.info", "config_app", "Inspect settings."),
    LazyCommand("db", "deepcite.cli.db", "db_app", "The history database: migrations."),
    LazyCommand("users", "deepcite.cli.users", "users_app",
                "User accounts and their API tokens (deepcite[web] for argon2-cffi)."),
    LazyCommand("watch", "deepcite.cli.watch", "watch_app",
                "Questions researched again on a schedule, with what changed."),
)


class _DeepciteGroup(LazyGroup):
    lazy_commands = COMMANDS


app = typer.Typer(
    cls=_DeepciteGroup,
    help="deepcite: research questions with answers whose every [n] points at a real source.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


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
