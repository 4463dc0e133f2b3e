"""``deepcite usage``: what the stored runs of the last days used - runs, model calls,
tokens, searches, model time and, where ``llm.prices`` gives a price, cost - per
period, per model and per user (the numbers of the web app's usage page and
``GET /api/v1/usage``, read by :meth:`deepcite.store.HistoryStore.usage`).

The command line sees the whole history, as its other commands do. The store is
imported when the command runs, never when the CLI starts.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from deepcite.cli.common import out, settings_from, user_errors
from deepcite.store.usage_ops import MAX_DAYS, UsageFigures, cost_text

_HEADERS = ("runs", "failed", "cancelled", "model calls", "prompt tokens",
            "completion tokens", "cached tokens", "searches", "model s", "cost")


def usage_command(
    days: Annotated[int, typer.Option("--days", min=1, max=MAX_DAYS,
                                      help="The last N days, today included (UTC).")] = 30,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Usage and cost over time: runs, model calls, tokens, searches, by period,
    model and user."""
    from deepcite.store import HistoryStore
    from deepcite.store.user_rights import EVERYTHING

    settings = settings_from({})
    with user_errors(), HistoryStore.open(settings) as store:
        report = store.usage(EVERYTHING, days=days, prices=settings.llm.prices)
    if as_json:
        out.print_json(json.dumps(report.model_dump(mode="json")))
        return
    totals = report.totals
    out.print(Text(
        f"Usage from {report.start:%Y-%m-%d} to today (UTC), by {report.period}: "
        f"{totals.runs:,} runs ({totals.failed:,} failed, {totals.cancelled:,} cancelled), "
        f"{totals.model_calls:,} model calls, {totals.prompt_tokens:,} prompt + "
        f"{totals.completion_tokens:,} completion tokens, {totals.searches:,} searches, "
        f"cost {cost_text(totals)}"))
    if not totals.runs:
        out.print(Text(f"No runs in the last {days} days."))
        return
    out.print(_table(report.period, [(p.label, p.figures) for p in report.periods
                                     if p.figures.runs]))
    if report.models:
        out.print(_table("model", [(m.model, m.figures) for m in report.models],
                         [m.pricing or "-" for m in report.models]))
    if report.by_user and any(line.user_id is not None for line in report.by_user):
        out.print(_table("user", [(u.name, u.figures) for u in report.by_user]))
    if not report.prices_set:
        out.print(Text("No prices are set (llm.prices): costs of hosted models are "
                       "unknown; local models cost nothing."))


def _table(first: str, rows: list[tuple[str, UsageFigures]],
           pricing: list[str] | None = None) -> Table:
    """One table of figures, a row per period, model or user (empty periods left out)."""
    table = Table(first, *_HEADERS, *(["price"] if pricing is not None else []))
    for index, (label, f) in enumerate(rows):
        cells = [label, *(f"{value:,}" for value in (
            f.runs, f.failed, f.cancelled, f.model_calls, f.prompt_tokens,
            f.completion_tokens, f.cached_tokens, f.searches)),
            f"{f.model_seconds:,.1f}", cost_text(f)]
        if pricing is not None:
            cells.append(pricing[index])
        table.add_row(*(Text(cell) for cell in cells))
    return table
