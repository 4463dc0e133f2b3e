"""``deepcite exporters``: every export format, whether it works here, and why not.

Cells are :class:`rich.text.Text`, never markup: descriptions come from plugins and
error messages quote ``deepcite[pdf]``, which markup would swallow.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from deepcite.cli.common import out
from deepcite.export import DEFAULT_EXPORTER, exporter_statuses


def exporters(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List the export formats, their file extension, and whether each is usable here.

    Plugins are listed after the built-ins; a format whose extra is missing, or a plugin
    that cannot be loaded, is a row saying what to install rather than an error.
    """
    rows = exporter_statuses()
    if as_json:
        out.print_json(json.dumps({
            "default": DEFAULT_EXPORTER,
            "exporters": [{"name": r.name, "extension": r.extension, "usable": r.usable,
                           "builtin": r.builtin, "description": r.description}
                          for r in rows],
        }))
        return
    table = Table("format", "extension", "usable", "what it writes")
    for row in rows:
        suffix = " (default)" if row.name == DEFAULT_EXPORTER else "" if row.builtin \
            else " (plugin)"
        table.add_row(Text(row.name + suffix), Text(row.extension),
                      Text("yes" if row.usable else "no"),
                      Text(row.description if row.usable else f"(unavailable: {row.description})"))
    out.print(table)
