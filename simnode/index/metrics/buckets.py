"""Metric buckets in UTC: an hour, a day, a week from Monday 0:00, a month from the 1st 0:00.

A bucket is [start, next_start) in Unix seconds; a block belongs to the bucket holding its
timestamp. Interval codes are stored in keys (one byte), so they never change. Starts are
unsigned: the week holding the first days of 1970 (a genesis at time 0) starts at 0, not on the
Monday before the epoch.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime

HOUR, DAY, WEEK, MONTH = 0, 1, 2, 3
INTERVALS = (HOUR, DAY, WEEK, MONTH)
INTERVAL_NAMES = {"hour": HOUR, "day": DAY, "week": WEEK, "month": MONTH}
HOUR_S = 3600
DAY_S = 86_400
WEEK_S = 7 * DAY_S
_MONDAY_OFFSET = 3 * DAY_S  # 1970-01-01 was a Thursday: Monday 1969-12-29 is 3 days before it


def bucket_start(interval: int, t: int) -> int:
    """The start of the `interval` bucket holding second `t` (t >= 0)."""
    if interval == HOUR:
        return t - t % HOUR_S
    if interval == DAY:
        return t - t % DAY_S
    if interval == WEEK:
        return max(0, t - (t + _MONDAY_OFFSET) % WEEK_S)
    d = datetime.fromtimestamp(t, UTC)
    return int(datetime(d.year, d.month, 1, tzinfo=UTC).timestamp())


def next_start(interval: int, start: int) -> int:
    """The start of the bucket after the one starting at `start`."""
    if interval == HOUR:
        return start + HOUR_S
    if interval == DAY:
        return start + DAY_S
    if interval == WEEK:
        return start - (start + _MONDAY_OFFSET) % WEEK_S + WEEK_S
    d = datetime.fromtimestamp(start, UTC)
    year, month = (d.year + 1, 1) if d.month == 12 else (d.year, d.month + 1)
    return int(datetime(year, month, 1, tzinfo=UTC).timestamp())


@functools.lru_cache(maxsize=4)  # a chain's blocks share seconds, its index calls it per block
def starts(t: int) -> tuple[int, int, int, int]:
    """The hour, day, week and month bucket starts of second `t`, in INTERVALS order."""
    day = t - t % DAY_S
    d = datetime.fromtimestamp(t, UTC)
    month = int(datetime(d.year, d.month, 1, tzinfo=UTC).timestamp())
    return t - t % HOUR_S, day, max(0, t - (t + _MONDAY_OFFSET) % WEEK_S), month
