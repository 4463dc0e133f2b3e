"""``deepcite check FILE``: check a document claim by claim against the user's sources.

The document (Markdown, plain text, HTML, DOCX or PDF) is read, split into checkable
claims, and each claim is researched in the chosen collections, engines and materials;
every claim gets a verdict - supported, partly supported, contradicted (naming the
source's own value) or not found. The check is a run like ``deepcite ask``'s: admitted
as the local user's (:func:`deepcite.cli.running.run_with_progress`), shown with live
progress ("claim 3 of 12"), cancelled by Ctrl-C keeping the claims checked so far, kept
in the history (``deepcite show``, ``rerun``, ``compare``, ``export``).

Output: the annotated document as Markdown on stdout (each claim followed by its verdict
and ``[n]``, then a Sources block); ``--json`` the verdicts as JSON (``docs/check.md``);
``-o FILE`` writes ``--format md``, ``html`` (highlights, evidence on hover and focus)
or ``docx`` (a comment on each claim) - the format follows the file's suffix when
``--format`` is not given. ``--previous ID`` names the check of the document's earlier
version: only claims that are new or changed since are researched again.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated

import typer

from deepcite.cli.common import err, fail, out, settings_from, user_errors
from deepcite.cli.options import (
    Collections,
    Engines,
    Gguf,
    Materials,
    Model,
    NoSave,
    Offline,
    Provider,
    Quiet,
    given_materials,
    source_and_model_settings,
)
from deepcite.cli.running import EXIT_CANCELLED, check_writable, run_command_request
from deepcite.factcheck import check_json, read_document, render_docx, render_html, render_markdown
from deepcite.runs import RunRequest
from deepcite.types import ResearchResult


class CheckFormat(enum.StrEnum):
    """What ``-o`` writes."""

    md = "md"
    html = "html"
    docx = "docx"


#: The format a file suffix implies when ``--format`` is not given.
_SUFFIX_FORMATS = {".md": CheckFormat.md, ".markdown": CheckFormat.md, ".txt": CheckFormat.md,
                   ".html": CheckFormat.html, ".htm": CheckFormat.html,
                   ".docx": CheckFormat.docx}


def check_command(
    file: Annotated[Path, typer.Argument(
        help="The document to check: Markdown, text, HTML, DOCX or PDF.")],
    collection: Collections = None,
    engine: Engines = None,
    material: Materials = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the verdicts as JSON (docs/check.md).")] = False,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Write the annotated document to this file (md, html or "
        "docx, from --format or the suffix); - for stdout.")] = None,
    fmt: Annotated[CheckFormat | None, typer.Option(
        "--format", "-f", help="md: annotated Markdown; html: highlights with the evidence; "
        "docx: a comment on each claim.")] = None,
    previous: Annotated[str | None, typer.Option(
        "--previous", help="The check of this document's earlier version (id from "
        "`deepcite history`): only new or changed claims are checked again.")] = None,
    title: Annotated[str | None, typer.Option(
        help="What to call the document (default: its file name).")] = None,
    offline: Offline = None,
    provider: Provider = None,
    model: Model = None,
    gguf: Gguf = None,
    no_save: NoSave = False,
    quiet: Quiet = False,
) -> None:
    """Check FILE claim by claim: supported, partly supported, contradicted, not found."""
    with user_errors():
        settings = settings_from(source_and_model_settings(
            collection=collection, engine=engine, offline=offline, provider=provider,
            model=model, gguf=gguf))
        chosen = _format(fmt, output)
        if output is not None:
            check_writable(output)
        text = read_document(file)
        request = RunRequest.parse(
            mode="check", document={"text": text, "title": title, "filename": file.name},
            materials=given_materials(material), parent_id=previous, origin="cli")
        result, run_id = run_command_request(request, settings, no_save=no_save,
                                             quiet=quiet)
        # the text as checked (a stray control character made a space: same offsets)
        checked = request.document.text if request.document is not None else text
        _present(result, checked, run_id, as_json=as_json, output=output, fmt=chosen,
                 stem=file.stem)
    if result.cancelled:
        raise typer.Exit(EXIT_CANCELLED)


def _format(fmt: CheckFormat | None, output: Path | None) -> CheckFormat:
    """``--format``, else the one ``-o``'s suffix names, else Markdown; a suffix that
    names none, or DOCX to stdout, is refused before the check, not after it."""
    to_stdout = output is not None and str(output) == "-"
    if fmt is None and output is not None and not to_stdout:
        fmt = _SUFFIX_FORMATS.get(output.suffix.lower())
        if fmt is None:
            fail(f"Cannot tell the format of {output.name} - name a file ending in .md, "
                 ".html or .docx, or pass --format md|html|docx", 2)
    if to_stdout and fmt is CheckFormat.docx:
        fail("A DOCX file cannot go to stdout - name a file with -o", 2)
    return fmt or CheckFormat.md


def _present(result: ResearchResult, document: str, run_id: str | None, *, as_json: bool,
             output: Path | None, fmt: CheckFormat, stem: str) -> None:
    """Print the check - JSON, the annotated HTML when that is the format and no file
    is named, else the annotated Markdown - and write the file asked for; a DOCX
    without ``-o`` goes to ``<stem>.checked.docx`` in the current folder."""
    to_stdout = output is not None and str(output) == "-"
    if as_json:
        out.print_json(json.dumps(check_json(result, run_id=run_id), ensure_ascii=False))
    elif fmt is CheckFormat.html and (output is None or to_stdout):
        out.print(render_html(result, document), markup=False)
    else:
        out.print(render_markdown(result), markup=False)
    if to_stdout or (output is None and fmt is not CheckFormat.docx):
        return
    target = output if output is not None else Path(f"{stem}.checked.docx")
    try:
        if fmt is CheckFormat.docx:
            render_docx(result, document, target)
        else:
            text = (render_html(result, document) if fmt is CheckFormat.html
                    else render_markdown(result))
            target.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"Cannot write {target} ({exc.strerror}); choose another path with -o")
    err.print(f"Wrote {target} ({target.stat().st_size:,} bytes)", markup=False)
