"""A run's progress folded from its events, for the run page as served.

The page shows this before any script runs, so reloading it is the no-JavaScript live
view; ``static/run.js`` folds the same events from the SSE stream the same way (it reads
:data:`PHASE_LABELS` from the page, so both name the phases alike).

What the page says is what happens: every phase that takes time is named (building the
demo index, reading the materials, writing the outline, part k of N), the bar moves
with the events' ``step``/``total``, a run is "queued" only while something is ahead of
it, and once a run has ended its counters are the stored result's (:func:`ended_with`),
the numbers its report shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from deepcite.types import Event, ResearchResult

#: Sub-queries kept on the page; a long run's list is cut to the latest.
MAX_QUERIES = 50
#: Lines of the event log kept on the page (the latest).
MAX_LOG = 300

#: The step while the outline is written (``run.js`` says the same): not "-" for the
#: seconds the model takes.
OUTLINE_STEP = "one model call, then the parts"
#: What each phase is called on the page (also given to ``run.js``).
PHASE_LABELS: dict[str, str] = {
    "waiting": "Waiting for its turn",
    "starting": "Starting: loading the model and opening the sources",
    "index": "Building the demo collection's index (first use only)",
    "materials": "Reading your materials",
    "questions": "Writing search queries",
    "search": "Searching",
    "relevance": "Choosing the relevant results",
    "topics": "Grouping the sources into topics",
    "agent": "Agent turn",
    "synthesis": "Writing the cited answer",
    "verify": "Verifying the citations",
    "outline": "Writing the outline",
    "check": "Checking the claims",
    "saving": "Saving the result",
    "assembling": "Putting the report together",
    "cancelled": "Cancelled",
    "failed": "Failed",
    "interrupted": "Interrupted: the server stopped",
    "completed": "Done",
}


def phase_label(phase: str) -> str:
    """The page's name for ``phase`` (a phase a plugin added is shown as it is)."""
    return PHASE_LABELS.get(phase, phase)


@dataclass
class QueryRow:
    """One query of the current iteration and what its searches found so far."""

    text: str
    searches: list[str] = field(default_factory=list)


@dataclass
class Progress:
    """What the run page shows about a run so far."""

    phase: str = "waiting"
    iteration: str = ""
    step: str = ""
    #: How far the whole run is, 0-100; ``None`` while that cannot be told (a detailed
    #: report before its parts are known): the bar is then indeterminate.
    percent: int | None = None
    queries: list[QueryRow] = field(default_factory=list)
    all_queries: int = 0
    sources: int = 0
    searches: int = 0
    model_calls: int = 0
    tokens: int = 0
    warnings: list[str] = field(default_factory=list)
    section: str = ""
    log: list[tuple[float, str]] = field(default_factory=list)
    #: From the stored result (:func:`ended_with`) rather than the events.
    stored: bool = False
    _part: int = 0
    _parts: int = 0
    _fraction: float | None = None

    @property
    def label(self) -> str:
        return phase_label(self.phase)


def describe(event: Event) -> str:
    """One line of the event log for ``event`` (plain text: the page escapes it)."""
    if event.kind == "phase_started":
        text = phase_label(event.phase)
        if event.iteration is not None:
            text += f" (iteration {event.iteration}" + (
                f" of {event.iterations})" if event.iterations else ")")
        if event.step is not None and event.total:
            text += f" - step {event.step} of {event.total}"
        return text
    if event.kind == "questions_generated":
        return f"Queries for iteration {event.iteration}: " + "; ".join(event.questions)
    if event.kind == "search_done":
        found = (f"failed ({event.error})" if event.error
                 else f"{event.results} result{'s' if event.results != 1 else ''}")
        return f"Searched {event.engine} for \u201c{event.query}\u201d: {found}"
    if event.kind == "sources_added":
        return f"{len(event.numbers)} new source(s), {event.total} in all"
    if event.kind == "model_call":
        tokens = event.prompt_tokens + event.completion_tokens
        return f"Model call ({event.purpose}): {tokens:,} tokens in {event.seconds:.1f} s"
    if event.kind == "warning":
        return f"Warning: {event.message}"
    if event.kind == "outline_ready":
        return f"Outline ready: {len(event.entries)} headings" + (
            " (built from the question and the evidence)" if event.fallback else "")
    if event.kind == "section_started":
        return f"Part {event.index} of {event.total}: {event.title}"
    if event.kind == "finished":
        return ("Research cancelled" if event.cancelled
                else f"Research stopped: {event.error}" if event.error
                else "Research step done")
    return event.kind


def _percent(progress: Progress, mode: str) -> int | None:
    fraction = progress._fraction
    if mode != "detailed":
        return None if fraction is None else round(100 * fraction)
    if not progress._parts:
        return None
    done = progress._part + (fraction or 0.0)
    return min(99, round(100 * done / (progress._parts + 1)))


def progress_of(events: Iterable[Event], *, mode: str = "quick",
                started: float | None = None) -> Progress:
    """Fold ``events`` (in order) into one :class:`Progress`.

    ``mode`` is the run's (a detailed report's bar counts its parts, a check's step is
    the claim it is at, "3 of 12"); ``started`` the
    run's start (epoch seconds), from which the log's times are counted.
    """
    progress = Progress()
    #: What each query's searches found, by query: a part searched ahead says its
    #: searches as they happen and its queries only when it begins.
    found_for: dict[str, list[str]] = {}
    for event in events:
        if started is None:
            started = event.at
        progress.log.append((max(0.0, event.at - started), describe(event)))
        if event.kind == "phase_started":
            progress.phase = event.phase
            progress.iteration = ""
            if event.iteration is not None:
                progress.iteration = (f"{event.iteration} of {event.iterations}"
                                      if event.iterations else str(event.iteration))
            if mode == "check" and event.phase != "check":
                pass  # a claim's own searching: the step stays the claim's number
            elif event.step is not None and event.total:
                # in a detailed report a step is the current part's, and says so
                progress.step = f"{event.step} of {event.total}" + (
                    f" (part {progress._part} of {progress._parts})" if progress._parts
                    else "")
                progress._fraction = (min(event.step, event.total) - 1) / event.total
            elif event.phase in ("index", "materials"):
                progress.step, progress._fraction = "", 0.0
            elif event.phase == "outline":
                progress.step, progress._fraction = OUTLINE_STEP, None
        elif event.kind == "questions_generated":
            # a report's part announces its queries when it begins, searched ahead
            # while earlier parts were written: what they found was said then
            progress.queries = [QueryRow(q, list(found_for.get(q, ())))
                                for q in event.questions[:MAX_QUERIES]]
            progress.all_queries += len(event.questions)
        elif event.kind == "search_done":
            progress.searches += 1
            found = (f"{event.engine}: failed" if event.error
                     else f"{event.engine}: {event.results}")
            found_for.setdefault(event.query, []).append(found)
            rows = [row for row in progress.queries if row.text == event.query]
            if rows:
                rows[0].searches.append(found)
        elif event.kind == "sources_added":
            progress.sources = event.total
        elif event.kind == "model_call":
            progress.model_calls += 1
            progress.tokens += event.prompt_tokens + event.completion_tokens
            if event.purpose == "verify":
                progress.phase = "verify"
        elif event.kind == "warning":
            progress.warnings.append(event.message)
        elif event.kind == "section_started":
            progress.section = f"{event.index} of {event.total}: {event.title}"
            progress._part, progress._parts = event.index, event.total
            progress.queries = []  # a part's queries are its own (none: it searches none)
            progress.step, progress._fraction = f"starting part {event.index}", 0.0
        elif event.kind == "finished":
            # one Finished per research: a detailed report goes on to its outline and
            # parts, so the page says "finished" only once the run itself has ended
            if mode != "detailed":
                progress.phase, progress._fraction = "saving", 1.0
            elif progress._parts and progress._part >= progress._parts:
                progress.phase, progress._fraction = "assembling", 1.0
            else:
                progress._fraction = 1.0
        progress.percent = _percent(progress, mode)
    del progress.log[:-MAX_LOG]
    return progress


def ended_with(progress: Progress, state: str, result: ResearchResult | None) -> Progress:
    """``progress`` of a run that has ended in ``state``: the phase says how it ended,
    the counters are the stored result's (what its report shows), when there is one."""
    progress.phase = state if state in PHASE_LABELS else progress.phase
    if state == "completed":
        progress.percent = 100
    if result is not None:
        metrics = result.metrics
        progress.model_calls = metrics.model_calls
        progress.tokens = metrics.prompt_tokens + metrics.completion_tokens
        progress.searches = metrics.searches
        progress.sources = len(result.sources)
        progress.stored = True
    return progress


def elapsed(since: datetime, until: datetime) -> str:
    """``until - since`` as the page shows it: ``42 s``, ``3 min 05 s``."""
    seconds = max(0, int((until - since).total_seconds()))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
