"""Live progress of a run, drawn from the run's events on stderr."""

from __future__ import annotations

import threading
from types import TracebackType

from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from deepcite.cli.common import err, warn
from deepcite.types import (
    Event,
    Finished,
    ModelCall,
    PhaseStarted,
    RunWarning,
    SearchDone,
    SourcesAdded,
)

_PHASES = {
    "questions": "Generating search queries",
    "search": "Searching",
    "synthesis": "Writing the cited answer",
}


class RunProgress:
    """A rich progress line (phase, iteration, searches, model calls, sources)."""

    def __init__(self, iterations: int, enabled: bool = True) -> None:
        self._iterations = iterations
        self._enabled = enabled
        self._lock = threading.Lock()
        self._searches = self._calls = self._sources = 0
        self._phase = "Starting"
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

    def status(self, text: str) -> None:
        """Show a free-form status (e.g. while cancelling)."""
        with self._lock:
            self._phase = text
        self._refresh()

    def __call__(self, event: Event) -> None:
        with self._lock:
            if isinstance(event, PhaseStarted):
                label = _PHASES.get(event.phase, event.phase)
                if event.iteration is not None:
                    label += f" (iteration {event.iteration}/{self._iterations})"
                self._phase = label
            elif isinstance(event, SearchDone):
                self._searches += 1
            elif isinstance(event, ModelCall):
                self._calls += 1
            elif isinstance(event, SourcesAdded):
                self._sources = event.total
            elif isinstance(event, Finished):
                self._phase = "Done"
        if isinstance(event, RunWarning) and self._enabled:
            warn(event.message)
        self._refresh()

    def _refresh(self) -> None:
        if self._task is None:
            return
        stats = (f"searches {self._searches} · model calls {self._calls} · "
                 f"sources {self._sources}")
        self._progress.update(self._task, description=self._phase, stats=stats)
