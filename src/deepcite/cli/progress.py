"""Live progress of a run, drawn from the run's events on stderr.

Everything shown comes from the events: the phase and its iteration out of the
strategy's own iteration count, and "step k/N" with a percentage from the steps the
strategy planned. Nothing is taken from the settings, which do not know how a strategy
iterates (focused-iteration runs eight short iterations whatever
``research.iterations`` says).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from deepcite.cli.common import err, warn
from deepcite.types import (
    Event,
    Finished,
    ModelCall,
    OutlineReady,
    PhaseStarted,
    RunWarning,
    SearchDone,
    SectionStarted,
    SourcesAdded,
)

_PHASES = {
    "questions": "Generating search queries",
    "search": "Searching",
    "relevance": "Choosing the relevant results",
    "topics": "Grouping the sources into topics",
    "agent": "Agent turn",
    "synthesis": "Writing the cited answer",
    "index": "Building the demo collection's index",
    "materials": "Reading your materials",
    "outline": "Writing the outline",
    "verify": "Verifying the citations",
    "check": "Checking claims",
}


class RunProgress:
    """A rich progress line: phase, step k/N and percentage, searches, calls, sources."""

    def __init__(self, enabled: bool = True) -> None:
        self._enabled = enabled
        self._lock = threading.Lock()
        self._searches = self._calls = self._sources = 0
        self._phase = "Starting"
        self._section = ""  # "Part 2/5: Title" while a detailed report researches a part
        self._step: tuple[int, int] | None = None
        self._done = False
        self._progress = Progress(
            SpinnerColumn(), TextColumn("{task.description}"),
            TextColumn("[dim]{task.fields[stats]}"), TimeElapsedColumn(),
            console=err, transient=True, disable=not enabled,
        )
        self._task: TaskID | None = None

    def __enter__(self) -> RunProgress:
        self._progress.__enter__()
        self._task = self._progress.add_task(self._phase, total=None, stats="")
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._progress.__exit__(exc_type, exc, tb)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Stop drawing while the user is asked something (outline review)."""
        self._progress.stop()
        try:
            yield
        finally:
            if self._enabled:
                self._progress.start()

    def status(self, text: str) -> None:
        """Show a free-form status (e.g. while cancelling)."""
        with self._lock:
            self._phase = text
        self._refresh()

    @property
    def line(self) -> str:
        """The progress line as shown: phase, then step, percentage and counts."""
        with self._lock:
            return f"{self._label()} · {self._stats()}"

    def __call__(self, event: Event) -> None:
        with self._lock:
            if isinstance(event, PhaseStarted) and event.phase == "check":
                # a document check announces each claim: "Checking claim 3 of 12"
                self._phase = _PHASES["check"]
                if event.step is not None and event.total:
                    self._phase = f"Checking claim {event.step} of {event.total}"
                    self._step = (event.step, event.total)
            elif isinstance(event, PhaseStarted):
                label = _PHASES.get(event.phase, event.phase)
                if event.iteration is not None:
                    of = f"/{event.iterations}" if event.iterations else ""
                    label += f" (iteration {event.iteration}{of})"
                self._phase = label
                if event.step is not None and event.total:
                    self._step = (event.step, event.total)
            elif isinstance(event, SearchDone):
                self._searches += 1
            elif isinstance(event, ModelCall):
                self._calls += 1
            elif isinstance(event, SourcesAdded):
                self._sources = event.total
            elif isinstance(event, SectionStarted):
                self._section = f"Part {event.index}/{event.total}: {event.title}"
                self._step, self._done = None, False
            elif isinstance(event, OutlineReady):
                self._phase = f"Outline ready: {len(event.entries)} headings"
            elif isinstance(event, Finished):
                self._phase = "Done"
                self._done = True
        if isinstance(event, RunWarning) and self._enabled:
            warn(event.message)
        self._refresh()

    def _label(self) -> str:
        return f"{self._section} · {self._phase}" if self._section else self._phase

    def _stats(self) -> str:
        """Step and counts; the percentage counts the steps finished before this one."""
        parts = []
        if self._step is not None:
            step, total = self._step
            done = total if self._done else step - 1
            parts.append(f"step {min(step, total)}/{total} · {100 * done // total}%")
        parts.append(f"searches {self._searches} · model calls {self._calls} · "
                     f"sources {self._sources}")
        return " · ".join(parts)

    def _refresh(self) -> None:
        if self._task is None:
            return
        with self._lock:
            phase, stats = self._label(), self._stats()
        self._progress.update(self._task, description=phase, stats=stats)
