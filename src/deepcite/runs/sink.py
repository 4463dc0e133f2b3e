"""Where a run's events go, and how a front end answers an outline review.

Every front end shows a run its own way - rich bars in the CLI, server-sent events in
the web app, progress notifications over MCP, a Redis announcement from a worker - but
all of them receive the same :class:`~deepcite.types.Event` stream through one
protocol, :class:`RunSink`. The history record (:class:`~deepcite.runs.recorder.
Recorder`) is a sink too, and :func:`tee` feeds several.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from deepcite.types import Event, OutlineEntry

__all__ = ["CallbackSink", "NullSink", "OutlineReviewer", "RunSink", "tee"]

logger = logging.getLogger(__name__)

#: Shown a detailed report's proposed outline; returns the one to write or ``None``.
OutlineReviewer = Callable[[list[OutlineEntry]], list[OutlineEntry] | None]


@runtime_checkable
class RunSink(Protocol):
    """Receives a run's events as they happen (from the run's own threads)."""

    def event(self, event: Event) -> None:
        """Take one event; must not raise (a failure is logged, the run goes on)."""


class NullSink:
    """A sink that drops every event (a script that only wants the result)."""

    def event(self, event: Event) -> None:
        """Drop ``event``."""


class CallbackSink:
    """A plain function as a sink (``on_event=`` of the Python API)."""

    def __init__(self, callback: Callable[[Event], None]) -> None:
        self._callback = callback

    def event(self, event: Event) -> None:
        """Pass ``event`` to the callback."""
        self._callback(event)


class _Tee:
    def __init__(self, sinks: Sequence[RunSink]) -> None:
        self._sinks = list(sinks)

    def event(self, event: Event) -> None:
        for sink in self._sinks:
            try:
                sink.event(event)
            except Exception:  # one broken display must not starve the history
                logger.exception("event sink %s failed for %s", type(sink).__name__,
                                 type(event).__name__)


def tee(*sinks: RunSink | None) -> RunSink:
    """One sink feeding every given one, in order (``None`` entries are skipped)."""
    return _Tee([sink for sink in sinks if sink is not None])
