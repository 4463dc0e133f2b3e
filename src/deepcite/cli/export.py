"""``deepcite export``: a stored run in any format, re-assembled from the history.

The stored body has no Sources block; the exporter renders it from the stored sources,
so the file reads the same numbers as the run did.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from deepcite.cli.common import settings_from, user_errors
from deepcite.cli.running import check_format, check_writable, write_export
from deepcite.export import ExportOptions, export_report
from deepcite.store import HistoryStore


def export_command(
    run: Annotated[str, typer.Argument(help="Run id or a unique prefix (see `deepcite "
                                            "history`).")],
    fmt: Annotated[str, typer.Option(
        "--format", "-f", help="markdown, html, pdf, docx, odt, latex, quarto, ris, bibtex, "
        "csl-json, json; see `deepcite exporters`.")] = "markdown",
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="File to write; - for stdout; default: a name from the "
        "title in the current folder.")] = None,
    links: Annotated[str | None, typer.Option(
        help="Inline links: number, domain, domain-id, domain-id-always, source-tagged, "
             "none.")] = None,
    show_findings: Annotated[bool, typer.Option(
        "--show-findings", help="Append the queries and findings of each phase.")] = False,
) -> None:
    """Export a stored run (``deepcite export ID --format pdf -o report.pdf``)."""
    with user_errors():
        settings = settings_from({"citations.links": links})
        check_format(fmt)
        if output is not None:
            check_writable(output)
        with HistoryStore.open(settings) as store:
            stored = store.get(run)
        options = ExportOptions.for_run(stored.settings, settings, links=links,
                                        show_findings=show_findings)
        write_export(export_report(stored.result, fmt, options), output)
