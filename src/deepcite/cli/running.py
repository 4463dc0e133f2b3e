"""Running research from the CLI: interrupts, the history record, outline review, output.

Shared by ``ask`` and ``report``. A run goes on in a worker thread so that Ctrl-C and
SIGTERM cancel it cleanly (the first interrupt keeps what was found, a second quits at
once), every event goes both to the progress display and to the history store, and a
run that crashes or is interrupted is still stored, as such, with what it had.
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
from deepcite.config import Settings
from deepcite.errors import DeepciteError
from deepcite.export import ExportOptions, ExportResult, export_report, exporter_status
from deepcite.report.outline import outline_text, parse_outline
from deepcite.research.threads import Worker
from deepcite.store import HistoryStore
from deepcite.types import Event, OutlineEntry, ReportMode, ResearchResult

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


class Recorder:
    """The history record of one CLI run; does nothing when saving is off or broken.

    A store that cannot be opened is a warning, not a failed run: the research is what
    the user came for, and losing it to a history problem would be the worse outcome.
    """

    def __init__(self, store: HistoryStore | None, run_id: str | None) -> None:
        self._store = store
        self.run_id = run_id

    @classmethod
    def start(cls, settings: Settings, question: str, *, mode: ReportMode, save: bool,
              parent_id: str | None = None, store: HistoryStore | None = None) -> Recorder:
        if not save:
            return cls(store, None)
        try:
            store = store or HistoryStore.open(settings)
            run_id = store.begin(question, mode=mode, settings=settings, parent_id=parent_id)
        except DeepciteError as exc:
            warn(f"This run will not be saved to the history: {exc}")
            return cls(store, None)
        return cls(store, run_id)

    def event(self, event: Event) -> None:
        if self._store is not None and self.run_id is not None:
            self._store.record_event(self.run_id, event)

    def finish(self, result: ResearchResult) -> None:
        if self._store is None or self.run_id is None:
            return
        try:
            self._store.finish(self.run_id, result)
        except DeepciteError as exc:
            warn(f"The run could not be saved to the history: {exc}")

    def fail(self, error: str) -> None:
        if self._store is None or self.run_id is None:
            return
        try:
            self._store.fail(self.run_id, error)
        except DeepciteError as exc:
            warn(f"The failed run could not be saved to the history: {exc}")

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def tee(*sinks: Callable[[Event], None]) -> Callable[[Event], None]:
    """One event callback feeding several (progress display and history)."""
    def send(event: Event) -> None:
        for sink in sinks:
            sink(event)
    return send


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
