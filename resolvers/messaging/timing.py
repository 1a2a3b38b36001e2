"""`scheduledAt` + `timezone`: a time without an offset is read in that IANA zone; stored in UTC."""
from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from leadline.models.base import utcnow
from leadline.resolvers.errors import ApiError, detail, validation_error

DEFAULT_TIMEZONE = "UTC"


def zone(name: str | None) -> tuple[str, ZoneInfo]:
    tz_name = (name or "").strip() or DEFAULT_TIMEZONE
    try:
        return tz_name, ZoneInfo(tz_name)
    except (ZoneInfoNotFoundError, ValueError):
        raise validation_error([detail("timezone", "INVALID_VALUE",
                                       f"'{tz_name}' is not an IANA time zone (e.g. Asia/Kolkata)")]) from None


def schedule_time(raw: str | None, tz: str | None) -> tuple[datetime, str] | None:
    """(UTC time, zone name), or None for an immediate send. INVALID_SCHEDULE_TIME when malformed
    or not in the future."""
    if raw is None or not str(raw).strip():
        return None
    tz_name, tzinfo = zone(tz)
    try:
        parsed = datetime.fromisoformat(str(raw).strip())
    except ValueError:
        raise ApiError("INVALID_SCHEDULE_TIME", f"scheduledAt '{raw}' is not an ISO 8601 time.") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=tzinfo)
    at = parsed.astimezone(timezone.utc)
    if at <= utcnow():
        raise ApiError("INVALID_SCHEDULE_TIME", "scheduledAt must be in the future.")
    return at, tz_name
