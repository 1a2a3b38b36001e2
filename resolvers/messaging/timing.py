"""`scheduledAt` + `timezone`: a time without an offset is read in that IANA zone; stored in UTC.
A send is scheduled at most MAX_AHEAD (365 days) ahead."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from leadline.models.base import utcnow
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.json_limits import clip

DEFAULT_TIMEZONE = "UTC"
MAX_AHEAD = timedelta(days=365)


def zone(name: str | None) -> tuple[str, ZoneInfo]:
    tz_name = (name or "").strip() or DEFAULT_TIMEZONE
    try:
        return tz_name, ZoneInfo(tz_name)
    except (ZoneInfoNotFoundError, ValueError):
        raise validation_error([detail("timezone", "INVALID_VALUE",
                                       f"'{clip(tz_name)}' is not an IANA time zone (e.g. Asia/Kolkata)")]) from None


def schedule_time(raw: str | None, tz: str | None) -> tuple[datetime, str] | None:
    """(UTC time, zone name), or None for an immediate send. INVALID_SCHEDULE_TIME when malformed,
    not in the future, or more than MAX_AHEAD ahead."""
    if raw is None or not str(raw).strip():
        return None
    tz_name, tzinfo = zone(tz)
    try:
        parsed = datetime.fromisoformat(str(raw).strip())
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=tzinfo)
        at = parsed.astimezone(timezone.utc)  # OverflowError at the ends of the calendar (year 1, 9999)
    except (ValueError, OverflowError):
        raise ApiError("INVALID_SCHEDULE_TIME", f"scheduledAt '{clip(raw)}' is not an ISO 8601 time.") from None
    now = utcnow()
    if at <= now:
        raise ApiError("INVALID_SCHEDULE_TIME", "scheduledAt must be in the future.")
    if at > now + MAX_AHEAD:
        raise ApiError("INVALID_SCHEDULE_TIME", f"scheduledAt must be at most {MAX_AHEAD.days} days ahead.")
    return at, tz_name
