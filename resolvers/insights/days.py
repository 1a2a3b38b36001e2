"""Organisation-local days: the query's date range and platform, and a day's bounds in UTC.

Dates are `YYYY-MM-DD` exactly. A bad date, `from` after `to` or a range over 366 days is
400 INVALID_DATE_RANGE; a platform other than chatapp, photoapp, pageapp or all is 400 VALIDATION_ERROR.
"""
from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from leadline.models.insights import PLATFORMS
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.json_limits import clip

MAX_DAYS = 366
DEFAULT_SPAN = 30
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def zone(tz: str | None) -> ZoneInfo:
    return ZoneInfo(tz or "UTC")


def today(tz: str | None) -> date:
    return datetime.now(zone(tz)).date()


def bounds(day: date, tz: str | None) -> tuple[datetime, datetime]:
    """[start, end) of the local day, in UTC (23 or 25 hours long on a daylight-saving change).

    OverflowError for a day whose bounds fall outside the representable years 1-9999 (the first or last
    day, depending on the zone): no message can be stored on it."""
    local = zone(tz)
    start = datetime.combine(day, time(0), local)
    end = datetime.combine(day + timedelta(days=1), time(0), local)
    return start.astimezone(timezone.utc), end.astimezone(timezone.utc)


def parse_day(value: str, name: str) -> date:
    if not _DATE.match(value):
        raise ApiError("INVALID_DATE_RANGE", f"{name} must be a date as YYYY-MM-DD (got '{clip(value)}').")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ApiError("INVALID_DATE_RANGE", f"{name} is not a calendar date (got '{clip(value)}').") from None


def date_range(tz: str | None, first: str | None, last: str | None) -> tuple[date, date]:
    """`to` defaults to today, `from` to 30 days before `to`; both inclusive."""
    end = parse_day(last, "to") if last is not None else today(tz)
    # The default span stops at the first representable day (`?to=0001-01-05`).
    start = parse_day(first, "from") if first is not None else date.fromordinal(max(1, end.toordinal() - DEFAULT_SPAN))
    if start > end:
        raise ApiError("INVALID_DATE_RANGE", f"from ({start}) is after to ({end}).")
    if (end - start).days + 1 > MAX_DAYS:
        raise ApiError("INVALID_DATE_RANGE", f"The range holds {(end - start).days + 1} days; at most {MAX_DAYS}.")
    return start, end


def each_day(start: date, end: date) -> list[date]:
    return [start + timedelta(days=n) for n in range((end - start).days + 1)]


def platforms(value: str | None) -> tuple[str, ...]:
    if value is None or value.strip().lower() == "all":
        return PLATFORMS
    chosen = value.strip().lower()
    if chosen not in PLATFORMS:
        raise validation_error([detail("platform", "INVALID_VALUE",
                                       f"platform must be one of: {', '.join(PLATFORMS)}, all")])
    return (chosen,)
