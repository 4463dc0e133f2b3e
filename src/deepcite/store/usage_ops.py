"""Usage and cost over time: what the runs of a time range asked of models and search
engines, per period, per model and - for an admin - per user.

One read (:meth:`UsageOps.usage`) answers the usage page, ``GET /api/v1/usage`` and
``deepcite usage`` alike. A run's figures live in its ``metrics`` JSON column
(:class:`~deepcite.types.RunMetrics`); the database adds them up itself, grouped by UTC
day, owner, model and status (``JSON_EXTRACT`` on SQLite, ``->>`` on PostgreSQL), so
however many runs there are the rows read are at most days x users x models x states.
The days are then folded into the periods shown: days up to a month, weeks (from
Monday) up to half a year, months beyond.

Cost is never invented: it is reckoned only for models ``llm.prices`` gives a price
(:class:`~deepcite.config_sections.ModelPrice`), and a model that runs on this machine
(the bundled llama.cpp one, Ollama) costs nothing and says so. Figures of a model with
no price are counted, and their cost is left unknown rather than taken as zero.

Like every read naming runs it takes the caller's
:class:`~deepcite.store.user_rights.Access`: a user's usage is their own runs'; an
admin's (and the command line's) is everyone's, with a line per user.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from sqlalchemy import ColumnElement, case, func, select

from deepcite.config_sections import ModelPrice
from deepcite.store.base import StoreBase
from deepcite.store.models import Run, UserRow
from deepcite.store.user_rights import Access

Period = Literal["day", "week", "month"]
"""How long one row of the usage table is."""
#: The longest range one read covers (about ten years of months).
MAX_DAYS = 3660
#: Ranges up to this many days are shown day by day, up to :data:`WEEKS_UP_TO` by week.
DAYS_UP_TO = 31
WEEKS_UP_TO = 186
#: Where a model label says the model runs on this machine (``ChatClient.model_label``'s
#: words): such a model has no per-token charge.
LOCAL_KINDS = ("(in-process llama.cpp)", "(Ollama)")
#: What a local model's cost line says.
LOCAL_NOTE = "local model: no charge"
#: What a model without a price says, naming where one is set.
NO_PRICE_NOTE = "no price set (llm.prices)"
#: What the line of runs stored before the model was recorded says: no price can apply.
UNRECORDED_NOTE = "unknown: these runs did not record their model"
#: The model line of runs that made no model call (nothing to price).
NO_MODEL = "no model call"
#: The model line of runs stored before the model was recorded.
UNRECORDED_MODEL = "model not recorded"
_MILLION = 1_000_000


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class UsageFigures(_Record):
    """What some runs used. ``cost_usd`` is the cost of the model calls whose model has
    a price (local ones count 0); ``unpriced_calls`` the calls of models without one,
    whose cost is unknown - so a total with ``unpriced_calls`` is a lower bound, and
    ``cost_usd`` is ``None`` when no call at all could be priced."""

    runs: int = 0
    failed: int = 0
    cancelled: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    searches: int = 0
    model_seconds: float = 0.0
    cost_usd: float | None = None
    unpriced_calls: int = 0

    @property
    def tokens(self) -> int:
        """Prompt and completion tokens together."""
        return self.prompt_tokens + self.completion_tokens

    def plus(self, other: UsageFigures) -> UsageFigures:
        """These figures and ``other``'s added up (an unknown cost stays unknown only
        when both are)."""
        cost = (None if self.cost_usd is None and other.cost_usd is None
                else (self.cost_usd or 0.0) + (other.cost_usd or 0.0))
        return UsageFigures(
            runs=self.runs + other.runs, failed=self.failed + other.failed,
            cancelled=self.cancelled + other.cancelled,
            model_calls=self.model_calls + other.model_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            searches=self.searches + other.searches,
            model_seconds=self.model_seconds + other.model_seconds,
            cost_usd=cost, unpriced_calls=self.unpriced_calls + other.unpriced_calls)


class PeriodUsage(_Record):
    """One period of the range: from ``start`` (a UTC day) for one ``period``."""

    start: date
    label: str
    figures: UsageFigures


class ModelUsage(_Record):
    """One model's share: ``model`` as the runs recorded it (``ChatClient.model_label``),
    and ``pricing``, what its cost rests on - the price matched, :data:`LOCAL_NOTE` or
    :data:`NO_PRICE_NOTE` (empty when it made no call)."""

    model: str
    pricing: str
    figures: UsageFigures


class UserUsage(_Record):
    """One user's share, for an admin: ``name`` is the account's (a removed account's
    id, or no one for runs without an owner)."""

    user_id: int | None
    name: str
    figures: UsageFigures


class UsageReport(_Record):
    """The usage of the ``days`` days up to ``end`` (exclusive; UTC): totals, every
    period (empty ones too, for a steady chart), each model, and each user when the
    caller may see everyone's runs (``by_user`` is ``None`` otherwise)."""

    days: int
    start: datetime
    end: datetime
    period: Period
    totals: UsageFigures
    periods: list[PeriodUsage]
    models: list[ModelUsage]
    by_user: list[UserUsage] | None
    #: Whether any price is set (``llm.prices``): without one no hosted cost is shown.
    prices_set: bool


def period_for(days: int) -> Period:
    """The period that keeps a range of ``days`` to a readable number of rows."""
    if days <= DAYS_UP_TO:
        return "day"
    return "week" if days <= WEEKS_UP_TO else "month"


def period_start(day: date, period: Period) -> date:
    """The first day of the period ``day`` falls in (weeks start on Monday)."""
    if period == "week":
        return day - timedelta(days=day.weekday())
    if period == "month":
        return day.replace(day=1)
    return day


def _label(start: date, period: Period) -> str:
    if period == "month":
        return start.strftime("%Y-%m")
    if period == "week":
        return f"week of {start.isoformat()}"
    return start.isoformat()


def _model_name(label: str) -> str:
    """The model's own name in a label such as ``"gpt-4o (OpenAI-compatible server)"``."""
    if label.endswith(")") and " (" in label:
        return label.rsplit(" (", 1)[0]
    return label


def price_for(model: str, prices: Mapping[str, ModelPrice]) -> tuple[str, ModelPrice] | None:
    """The pattern of ``prices`` that names ``model`` and its price, or ``None``.

    A pattern (``fnmatch``, case-insensitive) is tried against the model's own name and
    its whole label; of several that match, the longest - the most particular - wins,
    so ``gpt-4o-mini*`` beats ``gpt-4o*`` whatever order they were written in."""
    candidates = {model.casefold(), _model_name(model).casefold()}
    matched = [(pattern, price) for pattern, price in prices.items()
               if any(fnmatch.fnmatchcase(name, pattern.casefold()) for name in candidates)]
    return max(matched, key=lambda item: (len(item[0]), item[0])) if matched else None


def is_local(model: str) -> bool:
    """Whether ``model`` (a recorded label) ran on this machine, at no per-token charge."""
    return model.endswith(LOCAL_KINDS)


def pricing_of(model: str, prices: Mapping[str, ModelPrice]) -> str:
    """What a model's cost rests on, in the words the page and the command show."""
    if model in (NO_MODEL, UNRECORDED_MODEL):
        return "" if model == NO_MODEL else UNRECORDED_NOTE
    found = price_for(model, prices)
    if found is not None:
        pattern, price = found
        cached = ("" if price.cached_input is None
                  else f", cached input ${price.cached_input:g}")
        return (f"${price.input:g} in / ${price.output:g} out per million tokens{cached} "
                f"({pattern})")
    return LOCAL_NOTE if is_local(model) else NO_PRICE_NOTE


def cost_of(model: str, figures: UsageFigures, prices: Mapping[str, ModelPrice]
            ) -> float | None:
    """The cost in USD of ``figures`` run on ``model``: ``None`` when it is not known
    (a hosted model with no price); 0 for a local model or no call at all."""
    if figures.model_calls == 0 and figures.tokens == 0:
        return 0.0
    found = price_for(model, prices) if model not in (NO_MODEL, UNRECORDED_MODEL) else None
    if found is None:
        return 0.0 if is_local(model) else None
    price = found[1]
    cached = min(figures.cached_tokens, figures.prompt_tokens)
    cached_rate = price.input if price.cached_input is None else price.cached_input
    return ((figures.prompt_tokens - cached) * price.input + cached * cached_rate
            + figures.completion_tokens * price.output) / _MILLION


def cost_text(figures: UsageFigures) -> str:
    """The cost of ``figures`` as the page and the command show it: dollars where the
    calls were priced, what was left unpriced said beside them, ``"unknown"`` when no
    call could be priced, ``"-"`` when nothing was used."""
    unpriced = (f"{figures.unpriced_calls:,} call{'s' if figures.unpriced_calls != 1 else ''}"
                " without a price")
    if figures.cost_usd is None:
        return "unknown (" + unpriced + ")" if figures.unpriced_calls else "-"
    cost = figures.cost_usd
    shown = (f"${cost:,.2f}" if cost >= 0.01 or cost == 0
             else f"${cost:.4f}" if cost >= 0.0001 else "under $0.0001")
    return f"{shown} + {unpriced}" if figures.unpriced_calls else shown


def _priced(figures: UsageFigures, cost: float | None) -> UsageFigures:
    if cost is None:
        return figures.model_copy(update={"cost_usd": None,
                                          "unpriced_calls": figures.model_calls})
    return figures.model_copy(update={"cost_usd": cost, "unpriced_calls": 0})


def _sum(figures: Iterable[UsageFigures]) -> UsageFigures:
    total = UsageFigures()
    for item in figures:
        total = total.plus(item)
    return total


def _metric(name: str, kind: Literal["int", "float"]) -> ColumnElement[Any]:
    """The sum of one field of the runs' ``metrics`` JSON, 0 where there is none."""
    value = Run.metrics[name]
    typed = value.as_integer() if kind == "int" else value.as_float()
    return func.coalesce(func.sum(typed), 0)


class UsageOps(StoreBase):
    """The usage side of :class:`~deepcite.store.HistoryStore`."""

    def _day_of_run(self) -> ColumnElement[Any]:
        """A run's UTC day as ``YYYY-MM-DD`` text, in the database's own words."""
        if self._engine.dialect.name == "postgresql":
            return func.to_char(func.timezone("UTC", Run.created_at), "YYYY-MM-DD")
        return func.substr(Run.created_at, 1, 10)  # SQLite keeps UTC text

    def usage(self, access: Access, *, days: int = 30,
              prices: Mapping[str, ModelPrice] | None = None,
              now: datetime | None = None) -> UsageReport:
        """The usage of the runs ``access`` may see begun in the ``days`` UTC days up to
        and including ``now``'s (see the module docstring); costs from ``prices``."""
        if not 1 <= days <= MAX_DAYS:
            raise ValueError(f"days must be 1 to {MAX_DAYS}, not {days}")
        prices = prices or {}
        today = (now or datetime.now(UTC)).astimezone(UTC).date()
        first = today - timedelta(days=days - 1)
        start = datetime.combine(first, time(), UTC)
        end = datetime.combine(today + timedelta(days=1), time(), UTC)
        period = period_for(days)
        day = self._day_of_run().label("day")
        model = Run.metrics["model"].as_string().label("model")
        # runs that made no call apart from those that did, when neither names a model
        called = case((Run.metrics["model_calls"].as_integer() > 0, 1), else_=0).label("called")
        statement = (
            select(day, Run.owner_id, model, Run.status, called, func.count().label("runs"),
                   _metric("model_calls", "int"), _metric("prompt_tokens", "int"),
                   _metric("completion_tokens", "int"), _metric("cached_tokens", "int"),
                   _metric("searches", "int"), _metric("model_seconds", "float"))
            .where(Run.created_at >= start, Run.created_at < end, access.runs())
            .group_by(day, Run.owner_id, model, Run.status, called))
        by_period: dict[date, list[UsageFigures]] = {}
        by_model: dict[str, list[UsageFigures]] = {}
        by_owner: dict[int | None, list[UsageFigures]] = {}
        with self._reading() as session:
            rows = session.execute(statement).all()
            owners = {row[1] for row in rows if row[1] is not None}
            names: dict[int, str] = {
                user_id: name for user_id, name in session.execute(
                    select(UserRow.id, UserRow.name).where(UserRow.id.in_(owners)))
            } if owners else {}
        for (day_text, owner, model_label, status, _, runs, calls, prompt, completion,
             cached, searches, seconds) in rows:
            label = model_label or (UNRECORDED_MODEL if calls else NO_MODEL)
            figures = UsageFigures(
                runs=runs, failed=runs if status == "failed" else 0,
                cancelled=runs if status == "cancelled" else 0, model_calls=int(calls),
                prompt_tokens=int(prompt), completion_tokens=int(completion),
                cached_tokens=int(cached), searches=int(searches),
                model_seconds=float(seconds))
            figures = _priced(figures, cost_of(label, figures, prices))
            begun = period_start(date.fromisoformat(str(day_text)[:10]), period)
            by_period.setdefault(begun, []).append(figures)
            by_model.setdefault(label, []).append(figures)
            by_owner.setdefault(owner, []).append(figures)
        periods = []
        cursor = period_start(first, period)
        while cursor <= today:
            periods.append(PeriodUsage(start=cursor, label=_label(cursor, period),
                                       figures=_sum(by_period.get(cursor, ()))))
            cursor = (cursor + timedelta(days={"day": 1, "week": 7}[period])
                      if period != "month"
                      else (cursor.replace(day=28) + timedelta(days=4)).replace(day=1))
        models = sorted((ModelUsage(model=name, pricing=pricing_of(name, prices),
                                    figures=_sum(items))
                         for name, items in by_model.items()),
                        key=lambda item: (-item.figures.model_calls, -item.figures.runs,
                                          item.model))
        by_user = None
        if access.sees_all:
            by_user = sorted((UserUsage(user_id=owner, name=_owner_name(owner, names),
                                        figures=_sum(items))
                              for owner, items in by_owner.items()),
                             key=lambda item: (-item.figures.runs, item.name))
        return UsageReport(days=days, start=start, end=end, period=period,
                           totals=_sum(item.figures for item in models), periods=periods,
                           models=models, by_user=by_user, prices_set=bool(prices))


def _owner_name(owner: int | None, names: Mapping[int, str]) -> str:
    if owner is None:
        return "no owner (command line, or before accounts)"
    return names.get(owner, f"user #{owner} (removed)")
