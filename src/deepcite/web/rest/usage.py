"""The REST route for usage and cost over time (``GET /api/v1/usage?days=30``): the
numbers of the usage page, as the store's typed
:class:`~deepcite.store.usage_ops.UsageReport` - the caller's own runs, an admin's
everyone's with ``by_user``. Costs come from the server's ``llm.prices`` only."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from deepcite.store.usage_ops import MAX_DAYS, UsageReport
from deepcite.web.rest.common import AskedBy, State, history_store

router = APIRouter()


@router.get("/usage", tags=["usage"])
def usage(state: State, caller: AskedBy,
          days: Annotated[int, Query(ge=1, le=MAX_DAYS)] = 30) -> UsageReport:
    """Runs, model calls, tokens, searches, model time and known cost of the last
    ``days`` UTC days (today included), per period, per model and - for an admin -
    per user."""
    return history_store(state).usage(caller.access, days=days,
                                      prices=state.settings.llm.prices)
