"""Custom scalars: UTC timestamps as ISO 8601 with a `Z`, and free-form JSON."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import strawberry
from strawberry.scalars import JSON  # noqa: F401  (re-exported for the domain types)


def serialize_datetime(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_datetime(value: Any) -> datetime:
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


DateTimeScalar = strawberry.scalar(
    name="DateTime",
    description="ISO 8601 timestamp in UTC, e.g. 2026-01-31T09:30:00.000Z",
    serialize=serialize_datetime,
    parse_value=_parse_datetime,
)

SCALAR_OVERRIDES = {datetime: DateTimeScalar}
