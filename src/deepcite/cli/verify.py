"""``deepcite verify REPORT --sources FILE``: check a saved report's citations.

A report saved earlier (or written by hand) can be rechecked against the sources it
cites without rerunning the research: the sources JSON is the ``--json`` output of
``deepcite ask`` (``{"sources": [...]}``) or a plain list of entries with ``number``,
``title``, ``url`` and ``snippet``/``full_text``/``text``. No model is used, so the
check is free, deterministic and offline (see :mod:`deepcite.citations.verify`).

``--attribute`` then cites what an edit added (:mod:`deepcite.citations.attribution`):
sentences left without a valid citation get the ``[n]`` of a source that strongly
supports them; sentences with valid citations are not touched, and no existing number
changes. With ``--previous OLD.md`` only sentences not already in the old version are
considered, so sentences deliberately left uncited stay that way.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

import typer

from deepcite.citations.attribution import Attribution, attribute
from deepcite.citations.verify import Verification, verify
from deepcite.cli.common import err, fail, out, user_errors
from deepcite.text.frames import variants

# A trailing sources block is a list of entries, not claims: checked, it would be
# "unsupported" line by line. It is set aside and put back unchanged.
_SOURCES_BLOCK = re.compile(r"\n#{1,6}[ \t]+(?:"
                            + "|".join(re.escape(name) for name in variants("sources"))
                            + r")[ \t]*\n(?:(?!\n#{1,6}[ \t]).)*\Z",
                            re.DOTALL | re.IGNORECASE)


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"Cannot read {what} {path} ({getattr(exc, 'strerror', None) or exc})")


# What a sources file must hold, for every message about one that does not.
_EXPECTED = ("expected the --json output of `deepcite ask` ({\"sources\": [...]}) or a list "
             "of {number, title, url, snippet} objects")


def _entries(path: Path) -> list[dict[str, Any]]:
    """The source entries in ``path``, or a one-line error saying what shape is expected.

    Entries are checked one by one later (:func:`deepcite.citations.verify.verify`); here
    the file must be JSON and hold a list of objects. Exit code 2 for a file of the wrong
    shape, as for other bad input; 1 when it is not JSON at all.
    """
    # A byte order mark (Windows editors, PowerShell) is not JSON but means no harm.
    text = _read(path, "sources file").removeprefix("\ufeff")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"{path} is not valid JSON (line {exc.lineno}): {_EXPECTED}")
    except RecursionError:
        # json recurses once per bracket: [[[[...]]]] thousands deep exhausts the stack.
        fail(f"{path} is nested too deeply to be a sources file: {_EXPECTED}", 2)
    except ValueError:
        # Valid JSON that Python refuses, such as an integer of over 4,300 digits.
        fail(f"{path} holds a value too large to read: {_EXPECTED}", 2)
    items = data.get("sources") if isinstance(data, dict) else data
    if not isinstance(items, list):
        what = "an object without a \"sources\" list" if isinstance(data, dict) else \
            f"a JSON {_json_type(data)}"
        fail(f"{path} holds {what}: {_EXPECTED}", 2)
    for position, item in enumerate(items, 1):
        if not isinstance(item, dict):
            fail(f"{path}: source entry {position} is a JSON {_json_type(item)}, not an "
                 f"object: {_EXPECTED}", 2)
    return items


def _json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for messages."""
    names = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
             float: "number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


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


def _attribution_summary(result: Attribution, marked: bool) -> str:
    fate = " (marked)" if marked and result.unsupported_sentences else ""
    return (f"Attributed {len(result.added)} sentence(s); "
            f"{len(result.unsupported_sentences)} unsupported sentence(s){fate}.")


def verify_command(
    report: Annotated[Path, typer.Argument(help="Markdown report to check.")],
    sources: Annotated[Path, typer.Option("--sources", help=(
        "Sources JSON: `deepcite ask --json` output or a list of sources."))],
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    flag: Annotated[bool, typer.Option("--flag", help=(
        "Keep unsupported citations, marked ^(unverified), instead of removing them."))
    ] = False,
    attribute_: Annotated[bool, typer.Option("--attribute", help=(
        "Then cite uncited sentences a source strongly supports; existing numbers never "
        "change."))] = False,
    previous: Annotated[Path | None, typer.Option("--previous", help=(
        "An earlier version of the report: only sentences not in it are attributed "
        "(implies --attribute)."))] = None,
    mark_unsupported: Annotated[bool, typer.Option("--mark-unsupported", help=(
        "Mark sentences no source supports ^(unsupported) (implies --attribute)."))
    ] = False,
) -> None:
    """Check that every [n] in a report resolves and that source n supports its claim."""
    body, block = split_sources_block(_read(report, "report"))
    entries = _entries(sources)
    old = split_sources_block(_read(previous, "previous report"))[0] if previous else None
    attributed: Attribution | None = None
    with user_errors():
        result = verify(body, entries, unsupported="flag" if flag else "remove")
        if attribute_ or previous is not None or mark_unsupported:
            attributed = attribute(result.text, entries, previous=old,
                                   mark_unsupported=mark_unsupported)
    final = attributed.text if attributed is not None else result.text
    if as_json:
        data = result.model_dump()
        if attributed is not None:
            data["text"] = final
            data["attribution"] = {
                "added": [{"sentence": s, "number": n} for s, n in attributed.added],
                "unsupported_sentences": attributed.unsupported_sentences,
            }
        # Highlighting costs more than the check itself on a long report (minutes for a
        # few MB); skip it where no colour could show, e.g. when piped to a file.
        out.print_json(data=data, highlight=out.color_system is not None)
        return
    text = final.rstrip("\n") + ("\n" + block if block else "\n")
    out.print(text, markup=False, end="")
    err.print(_summary(result, flag), markup=False)
    if attributed is not None:
        err.print(_attribution_summary(attributed, mark_unsupported), markup=False)
