"""A duration written the way configuration files write it: ``30m``, ``"10m"``,
``lock_wait = "30m"``. Read by its unit alone "m" is metres, so a claim's "waits up to
an hour" met a length; a number glued to "m" in a sentence or table row speaking of
time (waiting, delay, timeout, interval, schedule) is minutes.

Its own module so that :mod:`~deepcite.factcheck.values` (reading each kind of value)
stays about reading; this is a pass over what it read.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from deepcite.factcheck.value import Value

__all__ = ["as_durations"]

# words saying the value is a time ("how long a queued job waits", "random delay")
# (not "minutes" or "seconds": "the 100m sprint in 10 seconds" is a length)
_TIME_WORDS = re.compile(r"\b(?:wait\w*|delay\w*|timeouts?|interval|jitter|duration|"
                         r"expir\w*|ttl|retry|retries|sleep|schedul\w*|how\s+long)\b",
                         re.IGNORECASE)
_GLUED_M = re.compile(r"^\d+(?:\.\d+)?m$")
_MINUTE = 60.0


def as_durations(text: str, values: Sequence[Value]) -> list[Value]:
    """``values`` with each number glued to "m" (``30m``) read as minutes where
    ``text`` speaks of time; the others as they are."""
    glued = {id(v) for v in values if v.unit == "m" and _GLUED_M.match(v.text)}
    if not glued or not _TIME_WORDS.search(text):
        return list(values)  # (most texts have none: no search of their words)
    return [dataclasses.replace(v, unit="minute", dimension="time",
                                amount=None if v.amount is None else v.amount * _MINUTE)
            if id(v) in glued else v for v in values]
