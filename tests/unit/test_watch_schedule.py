"""Cron schedules of watches read as crontab(5) reads them: the day of month and the day
of week are ORed when both are restricted, and either alone counts when the other is
``*``. Moments are fixed (no clock): 2026-12-02 is a Wednesday, 2026-12-28 a Monday,
2027-01-01 a Friday."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from deepcite.errors import InputError
from deepcite.watches.schedule import parse_schedule

WEDNESDAY = datetime(2026, 12, 2, 0, 0, tzinfo=UTC)
MONDAY_28TH = datetime(2026, 12, 28, 7, 0, tzinfo=UTC)  # after that Monday's 06:00


def at(year: int, month: int, day: int, hour: int = 6, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def slots(text: str, start: datetime, count: int) -> list[datetime]:
    """The next ``count`` slots of ``text`` after ``start``."""
    schedule = parse_schedule(text)
    found: list[datetime] = []
    moment = start
    for _ in range(count):
        following = schedule.next_after(moment)
        assert following is not None
        found.append(following)
        moment = following
    return found


def test_both_day_fields_restricted_means_the_1st_or_a_monday() -> None:
    # crontab: 06:00 on every Monday and on the 1st of each month
    assert slots("0 6 1 * 1", WEDNESDAY, 6) == [
        at(2026, 12, 7), at(2026, 12, 14), at(2026, 12, 21), at(2026, 12, 28),
        at(2027, 1, 1),  # a Friday: the 1st is enough
        at(2027, 1, 4)]


def test_the_1st_comes_first_when_it_is_earlier_than_the_next_monday() -> None:
    assert parse_schedule("0 6 1 * 1").next_after(MONDAY_28TH) == at(2027, 1, 1)


def test_a_day_of_month_list_ors_with_weekdays_within_the_month_field() -> None:
    # the 13th or any Friday, in February only
    assert slots("30 9 13 2 5", WEDNESDAY, 5) == [
        at(2027, 2, 5, 9, 30), at(2027, 2, 12, 9, 30), at(2027, 2, 13, 9, 30),
        at(2027, 2, 19, 9, 30), at(2027, 2, 26, 9, 30)]


def test_a_stepped_day_of_month_counts_as_restricted() -> None:
    # odd days of the month, or Sundays (crontab 0): 2026-12-06 is a Sunday
    assert slots("0 6 */2 * 0", at(2026, 12, 3, 7), 3) == [
        at(2026, 12, 5), at(2026, 12, 6), at(2026, 12, 7)]


@pytest.mark.parametrize(("text", "expected"), [
    ("0 6 1 * *", [at(2027, 1, 1), at(2027, 2, 1), at(2027, 3, 1)]),  # the 1st only
    ("0 6 * * 1", [at(2026, 12, 7), at(2026, 12, 14), at(2026, 12, 21)]),  # Mondays only
    ("0 6 * * 7", [at(2026, 12, 6), at(2026, 12, 13), at(2026, 12, 20)]),  # 7 is Sunday
    ("0 6 * * *", [at(2026, 12, 2), at(2026, 12, 3), at(2026, 12, 4)]),  # every day
    ("0 6 * 1 1-5", [at(2027, 1, 1), at(2027, 1, 4), at(2027, 1, 5)]),  # January weekdays
])
def test_one_day_field_alone_is_the_only_one_that_counts(
        text: str, expected: list[datetime]) -> None:
    assert slots(text, WEDNESDAY, 3) == expected


def test_a_slot_equal_to_the_moment_is_not_after_it() -> None:
    assert parse_schedule("0 6 1 * 1").next_after(at(2026, 12, 7)) == at(2026, 12, 14)


def test_a_bad_field_in_either_day_field_is_still_refused() -> None:
    for text in ("0 6 32 * 1", "0 6 1 * 9"):
        with pytest.raises(InputError, match="is not a cron expression"):
            parse_schedule(text)
