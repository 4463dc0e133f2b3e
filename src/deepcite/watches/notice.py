"""What a watch delivers: the notice the scheduler, the store and the channels share.

A run of a watch ends in a :class:`Notice` - the one-line summary of what changed since
the watch's previous run, the change itself as Markdown, and the report as an export -
and every delivery target of the watch gets it (:mod:`deepcite.watches.channels`: the
web inbox and the Atom feed read notices from the store; email and webhook targets are
sent them, each attempt recorded so that a failed delivery is retried and visible,
never lost silently).

It is data (a pydantic model stored as JSON with each delivery), so the scheduler, the
store, the channels, the REST API and the pages agree on one shape.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

__all__ = ["MAX_TARGETS", "Notice"]

MAX_TARGETS = 8
"""Delivery targets one watch may have (besides its inbox and feed, which all have)."""


class Notice(BaseModel):
    """What one run of a watch has to say, ready for every delivery target.

    ``summary`` is one line ("2 new sources, 1 claim lost its support" or "Nothing new
    since <date>"); ``changes_markdown`` the comparison with the previous run, claim by
    claim; ``nothing_new`` tells senders they may send the summary alone.
    """

    model_config = ConfigDict(extra="forbid")

    watch_id: str
    watch_name: str
    run_id: str
    previous_run_id: str | None = None
    question: str
    created_at: datetime
    summary: str
    nothing_new: bool = False
    changes_markdown: str = ""
    #: The run's link in the web app, when the server knows its public address.
    url: str | None = None
