"""Running research from the CLI: interrupts, the history record, outline review, output.

Shared by ``ask``, ``report`` and ``rerun``. A run is admitted as the local user's
(:func:`deepcite.runs.admission.admit` with :attr:`~deepcite.runs.admission.Door.LOCAL`:
its parent read and checked, no server caps), then goes on in a worker thread so that
Ctrl-C and SIGTERM cancel it cleanly (the first interrupt keeps what was found, a
second quits at once); the history record is :class:`deepcite.runs.Recorder`'s.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Protocol, TypeVar

import click
import typer

from deepcite.cli.common import err, fail, out, warn
from deepcite.cli.progress import RunProgress
from deepcite.collections import ensure_demo_collection
from deepcite.config import Settings
from deepcite.export import ExportOptions, ExportResult, export_report, exporter_status
from deepcite.research.report.outline import outline_text, parse_outline
from deepcite.research.threads import Worker
from deepcite.runs import CallbackSink, CancelScope, RunRequest
from deepcite.runs.admission import Door, admit
from deepcite.runs.build import DEMO_COLLECTION
from deepcite.store import HistoryStore
from deepcite.types import OutlineEntry, ResearchResult

EXIT_CANCELLED = 130
T = TypeVar("T")


class StatusLine(Protocol):
    """Where the "Cancelling ..." notice goes (a progress display)."""

    def status(self, text: str) -> None:
        """Show ``text`` as the current state."""


def run_interruptibly(job: Callable[[], T], cancel: Callable[[], None],
                      progress: StatusLine) -> T:
    """Run ``job`` in a worker so Ctrl-C and SIGTERM cancel cleanly and keep what was found.

    Signals reach only the main thread, so elsewhere (a test runner's thread, an
    embedding app) the run is just waited for.
    """
    worker = Worker(job, name="deepcite-run")
    if threading.current_thread() is not threading.main_thread():
        _wait_cancelling(worker, cancel, progress)
    else:
        previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
        try:
            _wait_cancelling(worker, cancel, progress)
        finally:
            signal.signal(signal.SIGTERM, previous)
    if not worker.done:  # interrupted before the thread ever started
        fail("The run ended without a result; see the log above")
    return worker.result()  # the run's own error, raised here with its traceback


def _terminate_as_interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (a service manager, ``timeout``, ``kill``) stops a run like Ctrl-C does."""
    raise KeyboardInterrupt


def _wait_cancelling(worker: Worker[T], cancel: Callable[[], None],
                     progress: StatusLine) -> None:
    try:
        worker.start()  # inside the try: Ctrl-C can land while start() waits
        worker.wait()
    except KeyboardInterrupt:
        cancel()
        progress.status("Cancelling - keeping what was found (Ctrl-C again to quit now)")
        try:
            worker.wait()
        except KeyboardInterrupt:
            raise typer.Exit(EXIT_CANCELLED) from None


def outline_reviewer(progress: RunProgress) -> Callable[[list[OutlineEntry]], list[OutlineEntry]
                                                      | None]:
    """``--review-outline``: show the outline, then approve, edit (in $EDITOR) or quit."""
    def review(entries: list[OutlineEntry]) -> list[OutlineEntry] | None:
        with progress.paused():
            while True:
                err.print("\nProposed outline:\n", markup=False)
                err.print(outline_text(entries), markup=False)
                choice = typer.prompt("\n[a]pprove, [e]dit, or [q]uit", default="a",
                                      err=True).strip().lower()[:1]
                if choice == "a":
                    return entries
                if choice == "q":
                    return None
                if choice == "e":
                    edited = click.edit(outline_text(entries) + "\n")
                    if edited is None:
                        continue  # closed without saving: show the same outline again
                    parsed = parse_outline(edited, max_sections=50, max_subsections=50)
                    if parsed:
                        entries = parsed
                    else:
                        warn("That outline has fewer than two usable sections; "
                             "keeping the previous one")
    return review


def check_format(fmt: str | None) -> None:
    """Refuse an unknown or unusable ``--format`` before the run, not after it: an
    unknown name gets the registry's did-you-mean, a missing extra says what to install."""
    if fmt is None:
        return
    status = exporter_status(fmt)
    if not status.usable:
        fail(f"Cannot export as {status.name}: {status.description}", 2)


def check_writable(output: Path) -> None:
    """Refuse an ``-o`` path that cannot be written before the run, not after it."""
    if str(output) == "-":
        return
    folder = output.parent if str(output.parent) else Path(".")
    if output.is_dir():
        fail(f"Cannot write {output}: it is a folder - name a file with -o", 2)
    if not folder.is_dir():
        fail(f"Cannot write {output}: folder {folder} does not exist - create it or "
             "choose another path with -o", 2)
    if not os.access(output if output.exists() else folder, os.W_OK):
        fail(f"Cannot write {output}: permission denied - choose another path with -o", 2)


def write_export(exported: ExportResult, output: Path | None) -> None:
    """Write an export to ``output`` (``-`` for stdout); without one, to a file named
    from the title in the current folder."""
    if output is not None and str(output) == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(exported.data)
        sys.stdout.buffer.flush()
        return
    target = output if output is not None else Path(exported.filename)
    try:
        target.write_bytes(exported.data)
    except OSError as exc:
        fail(f"Cannot write {target} ({exc.strerror}); choose another path with -o")
    err.print(f"Wrote {target} ({len(exported.data):,} bytes)", markup=False)


def print_result(result: ResearchResult, settings: Settings, *, fmt: str | None,
                 as_json: bool, output: Path | None, show_findings: bool) -> None:
    """Show the result on stdout and write the file ``-o`` and ``--format`` ask for.

    stdout gets JSON with ``--json`` (or ``--format json`` and no ``-o``), the export
    itself for another text format without ``-o``, and the Markdown report otherwise.
    The file gets the ``--format`` export (Markdown by default); a binary format
    without ``-o`` is written to a file named from the title.
    """
    options = ExportOptions.from_settings(settings, show_findings=show_findings)
    exported = export_report(result, fmt, options) if fmt is not None else None
    textual = exported is not None and _is_text(exported)
    if as_json or (fmt == "json" and output is None):
        # pretty, with control characters kept escaped
        out.print_json(export_report(result, "json", options).data.decode("utf-8"))
    elif exported is not None and textual and output is None:
        out.print(exported.data.decode("utf-8"), markup=False)
    else:
        out.print(export_report(result, "markdown", options).data.decode("utf-8"),
                  markup=False)
    if output is not None:
        write_export(exported or export_report(result, "markdown", options), output)
    elif exported is not None and not textual:
        write_export(exported, None)


def _is_text(exported: ExportResult) -> bool:
    """Whether an export can be shown on a terminal (Markdown, BibTeX, RIS, JSON...)."""
    if exported.media_type.startswith("text/"):
        return True
    try:
        exported.data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in exported.data


def run_with_progress(request: RunRequest, settings: Settings, *,
                      store: HistoryStore | None, save: bool, quiet: bool
                      ) -> tuple[ResearchResult, str | None]:
    """Admit ``request`` as the local user's (its parent, named by id or prefix, read
    from ``store``), then run it with live progress, kept in the history (unless
    ``save`` is off); Ctrl-C cancels it and keeps what was found. Returns the result
    and its run id."""
    admitted = admit(store, request, settings, Door.LOCAL)
    if DEMO_COLLECTION in admitted.settings.search.collections:
        with err.status("Preparing the demo collection (built once, offline)..."):
            ensure_demo_collection(admitted.settings, on_notice=warn)
    scope = CancelScope()
    with admitted.record(store, save=save, on_problem=warn) as recorder, \
            RunProgress(enabled=not quiet) as progress:
        reviewer = outline_reviewer(progress) if request.review_outline else None
        result = run_interruptibly(
            lambda: admitted.run(recorder, CallbackSink(progress), scope,
                                 reviewer=reviewer),
            scope.cancel, progress)
    return result, recorder.run_id


def run_command_request(request: RunRequest, settings: Settings, *, no_save: bool,
                        quiet: bool) -> tuple[ResearchResult, str | None]:
    """:func:`run_with_progress` as ``ask``, ``report`` and ``check`` run a request: the
    history opened only to read the request's parent (a follow-up's run, a check's
    earlier check), the run kept unless ``--no-save`` or ``store.save`` is off, and its
    id named on stderr so it can be shown, exported or compared."""
    store = HistoryStore.open(settings) if request.parent_id is not None else None
    try:
        result, run_id = run_with_progress(request, settings, store=store,
                                           save=settings.store.save and not no_save,
                                           quiet=quiet)
    finally:
        if store is not None:
            store.close()
    if run_id is not None and not quiet:
        err.print(f"Saved as {run_id[:8]} (deepcite show {run_id[:8]})", markup=False)
    return result, run_id
