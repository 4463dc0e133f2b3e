"""``deepcite verify REPORT --sources FILE``: check a saved report's citations.

A report saved earlier (or written by hand) can be rechecked against the sources it
cites without rerunning the research: the sources JSON is the ``--json`` output of
``deepcite ask`` (``{"sources": [...]}``) or a plain list of entries with ``number``,
``title``, ``url`` and ``snippet``/``full_text``/``text``. No model is used, so the
check is free, deterministic and offline (see :mod:`deepcite.citations.verify`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

import typer

from deepcite.citations.verify import Verification, verify
from deepcite.cli.common import err, fail, out, user_errors

# A trailing sources block is a list of entries, not claims: checked, it would be
# "unsupported" line by line. It is set aside and put back unchanged.
_SOURCES_BLOCK = re.compile(r"\n#{1,6}[ \t]+Sources[ \t]*\n(?:(?!\n#{1,6}[ \t]).)*\Z",
                            re.DOTALL | re.IGNORECASE)


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"Cannot read {what} {path} ({getattr(exc, 'strerror', None) or exc})")


def _entries(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(_read(path, "sources file"))
    except json.JSONDecodeError as exc:
        fail(f"{path} is not valid JSON (line {exc.lineno}): expected deepcite ask --json "
             "output or a list of sources")
    items = data.get("sources") if isinstance(data, dict) else data
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        fail(f"{path} holds no list of sources: expected {{\"sources\": [...]}} or [...]")
    return items


def split_sources_block(markdown: str) -> tuple[str, str]:
    """The report body and its trailing ``## Sources`` block ('' when there is none)."""
    match = _SOURCES_BLOCK.search(markdown)
    if not match:
        return markdown, ""
    return markdown[: match.start()], markdown[match.start():]


def _summary(result: Verification, flag: bool) -> str:
    fate = "flagged" if flag else "removed"
    return (f"Checked {result.markers_checked} citation(s): {result.supported} supported, "
            f"{result.partial} partial, {result.unsupported} unsupported ({fate}); "
            f"{result.markers_removed} unresolvable marker(s) removed.")


def verify_command(
    report: Annotated[Path, typer.Argument(help="Markdown report to check.")],
    sources: Annotated[Path, typer.Option("--sources", help=(
        "Sources JSON: `deepcite ask --json` output or a list of sources."))],
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    flag: Annotated[bool, typer.Option("--flag", help=(
        "Keep unsupported citations, marked ^(unverified), instead of removing them."))
    ] = False,
) -> None:
    """Check that every [n] in a report resolves and that source n supports its claim."""
    body, block = split_sources_block(_read(report, "report"))
    entries = _entries(sources)
    with user_errors():
        result = verify(body, entries, unsupported="flag" if flag else "remove")
    if as_json:
        out.print_json(json.dumps(result.model_dump()))
        return
    text = result.text.rstrip("\n") + ("\n" + block if block else "\n")
    out.print(text, markup=False, end="")
    err.print(_summary(result, flag), markup=False)
