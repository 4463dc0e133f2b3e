"""One research request, executed: the part every executor shares.

The in-process pool (:mod:`deepcite.web.runs`) and the queue workers
(:mod:`deepcite.distributed.worker`) run a :class:`RunRequest` the same way - quick or
detailed, with the user's materials analysed first - so a run gives the same result
wherever it executes. The caller supplies where events go and learns, through
``on_cancel``, the function that cancels the run once one exists.
"""

from __future__ import annotations

from collections.abc import Callable

from deepcite.api import build_researcher, material_inputs, run_question, with_notices
from deepcite.config import Settings
from deepcite.report.detailed import DetailedReport
from deepcite.research.material_runs import analyse_materials
from deepcite.types import Event, ResearchResult
from deepcite.web.contracts import RunRequest


def execute_request(settings: Settings, request: RunRequest,
                    on_event: Callable[[Event], None],
                    on_cancel: Callable[[Callable[[], None]], None]) -> ResearchResult:
    """Research ``request`` with ``settings``; ``on_cancel`` receives the canceller
    before any work starts (call it at once if a cancel is already pending)."""
    with build_researcher(settings, on_event) as researcher:
        given, notices = material_inputs(request.materials or None, True)
        builder = DetailedReport(researcher)
        on_cancel(builder.cancel if request.mode == "detailed" else researcher.cancel)
        analysed = (analyse_materials(researcher, request.question, given)
                    if given else None)
        if request.mode == "detailed":
            result = builder.run(request.question, materials=analysed)
        else:
            result = run_question(researcher, request.question, materials=analysed)
        return with_notices(result, notices)
