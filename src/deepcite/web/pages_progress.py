"""A run's progress folded from its events, for the run page as served.

The page shows this before any script runs, so reloading it is the no-JavaScript live
view; ``static/run.js`` folds the same events from the SSE stream the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from deepcite.types import Event

#: Sub-queries kept on the page; a long run's list is cut to the latest.
MAX_QUERIES = 50


@dataclass
class Progress:
    """What the run page shows about a run so far."""

    phase: str = "waiting"
    iteration: str = ""
    queries: list[str] = field(default_factory=list)
    sources: int = 0
    searches: int = 0
    model_calls: int = 0
    tokens: int = 0
    warnings: list[str] = field(default_factory=list)
    section: str = ""


def progress_of(events: Iterable[Event]) -> Progress:
    """Fold ``events`` (in order) into one :class:`Progress`."""
    progress = Progress()
    for event in events:
        if event.kind == "phase_started":
            progress.phase = event.phase
            if event.iteration is not None:
                progress.iteration = (f"{event.iteration} of {event.iterations}"
                                      if event.iterations else str(event.iteration))
        elif event.kind == "questions_generated":
            progress.queries.extend(event.questions)
            del progress.queries[:-MAX_QUERIES]
        elif event.kind == "search_done":
            progress.searches += 1
        elif event.kind == "sources_added":
            progress.sources = event.total
        elif event.kind == "model_call":
            progress.model_calls += 1
            progress.tokens += event.prompt_tokens + event.completion_tokens
        elif event.kind == "warning":
            progress.warnings.append(event.message)
        elif event.kind == "section_started":
            progress.section = f"{event.index} of {event.total}: {event.title}"
        elif event.kind == "finished":
            progress.phase = "cancelled" if event.cancelled else (
                "failed" if event.error else "finished")
    return progress
