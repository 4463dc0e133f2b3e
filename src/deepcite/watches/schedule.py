"""When a watch runs: every so often, on a cron expression, or only when asked.

Three forms are accepted, and stored as their normal text (:attr:`Schedule.text`):

* ``every 30m`` / ``every 6h`` / ``every 1d`` / ``every 2w`` - an interval of at least one
  minute (``every 90m`` is fine; seconds are not offered);
* a five-field cron expression (``0 6 * * 1-5``: minute, hour, day of month, month, day of
  week), in UTC, meaning what it means in crontab(5) - read with APScheduler's
  :class:`~apscheduler.triggers.cron.CronTrigger`, with two crontab rules it does not
  follow by itself: days of the week count from Sunday (0 or 7), and when *both* the
  day of month and the day of week are restricted (neither is ``*``) a day matches if
  *either* does - ``0 6 1 * 1`` is 06:00 on the 1st of every month *and* on every
  Monday (APScheduler alone would want a 1st that is a Monday). A field such as
  ``*/2`` counts as restricted (Vixie cron's "starts with ``*``" quirk is not copied);
* ``on demand`` (or ``manual``): never by itself, only ``deepcite watch run``.

:meth:`Schedule.next_after` is the first slot strictly after a moment. An interval's slots
are counted from the watch's last due time, so a watch keeps its rhythm; one whose slot
was missed by hours (everything was down) gets the next slot after *now* - it is run once,
not once per missed slot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from deepcite.errors import InputError

__all__ = ["FORMS", "MIN_INTERVAL", "Schedule", "parse_schedule"]

FORMS = ("'every 30m' (m, h, d or w; at least 1 minute), a 5-field cron expression such "
         "as '0 6 * * 1-5' (UTC), or 'on demand'")
MIN_INTERVAL = timedelta(minutes=1)
_MAX_INTERVAL = timedelta(weeks=520)
_UNITS = {"m": 60, "h": 3600, "d": 86_400, "w": 604_800}
_EVERY = re.compile(r"every\s+(\d{1,7})\s*([mhdw])", re.IGNORECASE)
_MANUAL = frozenset({"on demand", "on-demand", "manual", "manually", "never"})


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule; build one with :func:`parse_schedule`."""

    kind: Literal["every", "cron", "manual"]
    #: The schedule as stored and shown: ``every 6h``, ``0 6 * * 1-5``, ``on demand``.
    text: str
    interval: timedelta | None = None

    @property
    def manual(self) -> bool:
        """Whether the watch runs only when asked."""
        return self.kind == "manual"

    def next_after(self, moment: datetime, *, anchor: datetime | None = None
                   ) -> datetime | None:
        """The first slot strictly after ``moment`` (aware; ``None``: on demand).

        ``anchor`` is a past slot of an interval schedule (the watch's last due time):
        slots are ``anchor + k * interval``, so the rhythm stays; without it the next
        slot is ``moment + interval``.
        """
        moment = _aware(moment)
        if self.kind == "manual":
            return None
        if self.kind == "every":
            assert self.interval is not None
            if anchor is None or _aware(anchor) > moment:
                return moment + self.interval
            anchor = _aware(anchor)
            steps = (moment - anchor) // self.interval + 1
            return anchor + steps * self.interval
        # Cron slots are whole seconds: start at the second after ``moment`` (truncated),
        # so a slot equal to ``moment`` is not "after" it and a later one is not skipped.
        start = moment.replace(microsecond=0) + timedelta(seconds=1)
        found = [slot for slot in (trigger.get_next_fire_time(None, start)
                                   for trigger in _cron(self.text)) if slot is not None]
        return min(found).astimezone(UTC) if found else None

    def __str__(self) -> str:
        return self.text


def parse_schedule(text: str) -> Schedule:
    """``text`` as a :class:`Schedule`; an :class:`~deepcite.errors.InputError` whose
    one line names the accepted forms for anything else."""
    cleaned = " ".join(str(text).split())
    if not cleaned:
        raise InputError(f"A watch needs a schedule: {FORMS}")
    if cleaned.casefold() in _MANUAL:
        return Schedule("manual", "on demand")
    every = _EVERY.fullmatch(cleaned)
    if every is not None:
        count, unit = int(every.group(1)), every.group(2).lower()
        interval = timedelta(seconds=count * _UNITS[unit])
        if interval < MIN_INTERVAL:
            raise InputError(f"Schedule {cleaned!r} is too often - the shortest is "
                             f"'every 1m'; accepted: {FORMS}")
        if interval > _MAX_INTERVAL:
            raise InputError(f"Schedule {cleaned!r} is too far apart - at most every "
                             f"520w; accepted: {FORMS}")
        return Schedule("every", f"every {count}{unit}", interval)
    fields = cleaned.split(" ")
    if len(fields) == 5 and not cleaned.casefold().startswith("every"):
        try:
            _cron(cleaned)
        except ValueError as exc:
            raise InputError(f"Schedule {cleaned!r} is not a cron expression "
                             f"({_first_line(exc)}); accepted: {FORMS}") from None
        return Schedule("cron", cleaned)
    raise InputError(f"Schedule {cleaned!r} is not understood; accepted: {FORMS}")


_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


def _cron(text: str) -> tuple[Any, ...]:
    """APScheduler triggers whose earliest next slot is crontab ``text``'s, in UTC.

    APScheduler 3 numbers days of the week from Monday (0) while crontab numbers them
    from Sunday (0 or 7); the day-of-week field is turned into day names first, so
    ``1-5`` means Monday to Friday as in every crontab. APScheduler also requires every
    field to match, where crontab takes a day that matches the day of month *or* the day
    of week when both are restricted: that case is two triggers, one per day field, and
    a slot of either is a slot (a ``ValueError`` for a bad field, from either)."""
    from apscheduler.triggers.cron import CronTrigger

    minute, hour, day, month, weekday = text.split(" ")
    days = _weekdays(weekday)

    def trigger(day_field: str, weekday_field: str) -> Any:
        return CronTrigger(minute=minute, hour=hour, day=day_field, month=month,
                           day_of_week=weekday_field, timezone=UTC)

    if day != "*" and weekday != "*":  # crontab(5): either day field may match
        return trigger(day, "*"), trigger("*", days)
    return (trigger(day, days),)


def _weekdays(field: str) -> str:
    """A crontab day-of-week field as a comma list of day names (``*`` stays)."""
    if field == "*":
        return field
    days: set[int] = set()
    for part in field.split(","):
        base, _, step_text = part.partition("/")
        step = int(step_text) if step_text.isdigit() and int(step_text) > 0 else None
        if step_text and step is None:
            raise ValueError(f"bad step in day of week {part!r}")
        if base == "*":
            first, last = 0, 6
        elif "-" in base:
            start, _, end = base.partition("-")
            first, last = _day(start), _day(end)
            if last == 0 and end.strip() == "7":
                last = 7
            if first > last:
                raise ValueError(f"day-of-week range {base!r} runs backwards")
        else:
            first = last = _day(base)
        days.update(n % 7 for n in range(first, last + 1, step or 1))
    return ",".join(_DAYS[n] for n in sorted(days))


def _day(text: str) -> int:
    name = text.strip().lower()
    if name in _DAYS:
        return _DAYS.index(name)
    if name.isdigit() and 0 <= int(name) <= 7:
        return int(name) % 7
    raise ValueError(f"day of week {text!r} is not 0-7 or sun-sat")


def _aware(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        raise ValueError("a schedule needs an aware datetime (UTC)")
    return moment.astimezone(UTC)


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
