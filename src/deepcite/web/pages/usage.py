"""Usage and cost over time: the runs of the last 7, 30 or 90 days - model calls,
tokens, searches, failed and cancelled runs - per period, per model and, for an admin,
per user (:meth:`deepcite.store.HistoryStore.usage`, the one read the REST API and
``deepcite usage`` share).

The chart is HTML and CSS only: one bar per period, its width a share of the largest,
with the number written beside it, so it reads without colour, images or script. Costs
come from ``llm.prices`` alone; a local model says it costs nothing, a hosted one
without a price says so rather than showing a figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from deepcite.errors import DeepciteError
from deepcite.store.usage_ops import UsageReport, cost_text
from deepcite.web.pages.kit import Kit

#: The ranges offered, in days; the first page shows :data:`DEFAULT_DAYS`.
RANGES = (7, 30, 90)
DEFAULT_DAYS = 30

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Bar:
    """One bar of the chart: its period, its tokens and model calls in words, and its
    width as a percentage of the largest bar (a bar with any use is at least 1%)."""

    label: str
    tokens: int
    calls: int
    width: float


def bars(report: UsageReport) -> list[Bar]:
    """The chart's bars: tokens per period (model calls said beside them)."""
    largest = max((period.figures.tokens for period in report.periods), default=0)
    return [Bar(period.label, period.figures.tokens, period.figures.model_calls,
                0.0 if not period.figures.tokens
                else max(1.0, round(100 * period.figures.tokens / largest, 1)))
            for period in report.periods]


def seconds_text(seconds: float) -> str:
    """Model time in a reader's units."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{int(seconds) // 60} min {int(seconds) % 60:02d} s"
    return f"{int(seconds) // 3600} h {int(seconds) % 3600 // 60:02d} min"


@router.get("/usage", response_class=HTMLResponse)
def usage(kit: Kit, request: Request, days: str = str(DEFAULT_DAYS)) -> Response:
    session = kit.session_for(request)
    problems = []
    chosen = int(days) if days.isdigit() and int(days) in RANGES else DEFAULT_DAYS
    if days != str(chosen):
        problems.append(f"Usage is shown for the last {', '.join(map(str, RANGES[:-1]))} "
                        f"or {RANGES[-1]} days: showing {chosen}")
    report: UsageReport | None = None
    try:
        report = kit.history.usage(kit.access(session), days=chosen,
                                   prices=kit.state.settings.llm.prices)
    except DeepciteError as exc:
        problems.append(str(exc))
    admin = session.user is not None and session.user.is_admin
    return kit.render(
        request, session, "usage.html", title="Usage", report=report, days=chosen,
        ranges=RANGES, problems=problems, bars=bars(report) if report else [],
        show_users=bool(report and report.by_user is not None
                        and (admin or any(u.user_id is not None for u in report.by_user))),
        last_day=(report.end - timedelta(days=1)).date().isoformat() if report else "",
        cost=cost_text, seconds=seconds_text)
