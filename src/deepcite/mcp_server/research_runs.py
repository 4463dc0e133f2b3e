"""A research tool call's run: admitted as every server admits one, run on a worker
thread, its events sent as MCP progress notifications, kept in the history.

The research itself is synchronous, so it runs in a worker thread; its events become
MCP progress notifications, sent on the event loop from that thread. Every run is kept
in the history like a ``deepcite ask`` run, so ``get_report`` (or ``deepcite show``)
finds it again, and belongs to the caller, whatever the arguments say.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from deepcite.errors import DeepciteError
from deepcite.export.markdown import to_json_dict, to_markdown
from deepcite.factcheck import check_json, render_markdown
from deepcite.mcp_server.calls import caller, fresh_settings, text_result, tool_error
from deepcite.runs import CallbackSink, CancelScope, Recorder, RunRequest
from deepcite.runs.admission import Admitted, admit
from deepcite.security.terminal import one_line
from deepcite.store import HistoryStore
from deepcite.types import Event, PhaseStarted, ReportMode, ResearchResult, SectionStarted

logger = logging.getLogger(__name__)

#: What a run's history says when its client stopped waiting for it.
CLIENT_GONE = ("The MCP client cancelled the call or went away; the run was cancelled "
               "and keeps what it had found")


class Progress:
    """Turns run events into MCP progress values.

    MCP wants progress to grow with every notification, but a detailed report runs the
    phases once per part, so their ``step`` restarts. A report is therefore counted in
    units: the first research is unit 0, part ``i`` is unit ``i``, and a phase adds its
    fraction of a unit. A quick run is its phases, ``step`` of ``total``. Values that
    would not grow are dropped.
    """

    def __init__(self, mode: ReportMode) -> None:
        self._mode = mode
        self._unit = 0
        self._parts: int | None = None
        self._last = 0.0

    def update(self, event: Event) -> tuple[float, float | None, str] | None:
        """``(progress, total, message)`` to send for ``event``, or ``None``."""
        value: float
        total: float | None
        if isinstance(event, SectionStarted):
            self._unit, self._parts = event.index, event.total
            value, total = float(event.index), float(event.total + 1)
            message = f"Part {event.index}/{event.total}: {one_line(event.title)}"
        elif isinstance(event, PhaseStarted) and event.step is not None and event.total:
            message = (f"Claim {event.step}/{event.total}" if event.phase == "check"
                       else f"Step {event.step}/{event.total}: {event.phase}")
            if self._mode != "detailed":
                value, total = float(event.step), float(event.total)
            else:
                value = self._unit + (event.step - 1) / event.total
                total = float(self._parts + 1) if self._parts is not None else None
        else:
            return None
        if value <= self._last and self._last:
            return None
        self._last = value
        return value, total, message


def _request(fields: Mapping[str, Any]) -> RunRequest:
    """The run request of a tool call; a bad argument is one line naming it."""
    given = {key: value for key, value in fields.items() if value not in (None, [])}
    return RunRequest.parse(**given, origin="mcp")


def _prepare(request: RunRequest) -> tuple[Admitted, Recorder]:
    """The request admitted as every server admits a run
    (:func:`~deepcite.runs.admission.admit`: its owner as they are now, its settings,
    its parent, the collections it will search) and its history record."""
    base = fresh_settings()
    with HistoryStore.open(base) as store:
        admitted = admit(store, request, base)
    return admitted, admitted.record(None, save=admitted.settings.store.save)


async def run_research(ctx: Context, fields: Mapping[str, Any]) -> CallToolResult:
    """Run research in a worker thread, forwarding its progress; the tool's answer.
    The run belongs to the caller, whatever the arguments say."""
    try:
        request = _request(fields).asked_by("mcp", caller(ctx).owner)
        # The same submit checks as the REST API: a run that cannot work is a tool error
        # now, not a failure minutes into the research.
        admitted, recorder = await anyio.to_thread.run_sync(_prepare, request)
    except DeepciteError as exc:
        return tool_error(str(exc))
    progress = Progress(admitted.request.mode)
    scope = CancelScope()
    # Events come from the run's own threads (parallel searches too), not only from the
    # worker this call starts: they reach the loop by its token, one at a time so that
    # the values arrive in the order they were computed.
    loop = anyio.lowlevel.current_token()
    sending = threading.Lock()

    def on_event(event: Event) -> None:
        with sending:
            update = progress.update(event)
            if update is None:
                return
            try:
                anyio.from_thread.run(ctx.report_progress, *update, token=loop)
            except Exception:  # a closed session must not end the research
                logger.debug("progress notification not sent", exc_info=True)

    def research() -> ResearchResult:
        with recorder:
            return admitted.run(recorder, CallbackSink(on_event), scope)

    try:
        result = await anyio.to_thread.run_sync(research, abandon_on_cancel=True)
    except DeepciteError as exc:
        return tool_error(str(exc))
    except anyio.get_cancelled_exc_class():
        scope.cancel()  # the client gave up: the worker stops and stores what it found
        with anyio.CancelScope(shield=True):  # said now, not when the worker notices
            await anyio.to_thread.run_sync(recorder.stop, CLIENT_GONE)
        raise
    run_id = recorder.run_id
    if result.mode == "check":  # the verdicts, in the shape `deepcite check --json` has
        markdown, data = render_markdown(result), check_json(result, run_id=run_id)
    else:
        markdown, data = to_markdown(result), to_json_dict(result) | {"id": run_id}
    if run_id is None:
        return text_result(markdown, data)
    return text_result(markdown, data,
                       f"Stored as run {run_id} (get_report with its first 8 characters "
                       "shows it again).")
