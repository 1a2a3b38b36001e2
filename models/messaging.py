"""The send side of messaging: scheduled messages (docs/messaging.md).

A schedule holds a fully validated send; it is dispatched by an arq job deferred to
`scheduled_at`, and recovered from the database by a sweep if that job is ever lost. Every
status move is a conditional update on the current status, so a cancel and a dispatch
racing each other cannot both win.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from beanie import PydanticObjectId
from pydantic import Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from leadline.models.base import TenantDocument

# `sending` is the short-lived claim of one dispatcher; the spec's four are the others.
ScheduleStatus = Literal["scheduled", "sending", "sent", "failed", "cancelled"]
SCHEDULE_STATUSES: tuple[str, ...] = ("scheduled", "sending", "sent", "failed", "cancelled")


class ScheduledMessage(TenantDocument):
    kind: Literal["template", "message"]
    brand_number: str
    # What was sent to: phone digits or a BSUID, forwarded unchanged.
    recipient: str
    scheduled_at: datetime  # UTC
    timezone: str = "UTC"
    status: ScheduleStatus = "scheduled"
    # Template sends: {name, id, language} as reported; freeform: the message type.
    template: dict[str, Any] | None = None
    message_type: str | None = None
    # The validated send, replayed at dispatch (resolvers/messaging/schedules.py).
    request: dict[str, Any] = Field(default_factory=dict)
    message_id: PydanticObjectId | None = None
    error: dict[str, Any] | None = None  # {code, message} of a failed dispatch
    claimed_at: datetime | None = None
    sent_at: datetime | None = None
    cancelled_at: datetime | None = None

    class Settings:
        name = "scheduled_messages"
        indexes = [
            # List, newest first, with and without the status filter.
            IndexModel([("org_id", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("status", ASCENDING), ("created_at", DESCENDING)]),
            # The conditional status moves: {_id, org_id, status}.
            IndexModel([("_id", ASCENDING), ("org_id", ASCENDING), ("status", ASCENDING)]),
            # The recovery sweep, across organisations: due `scheduled`, stale `sending`.
            IndexModel([("status", ASCENDING), ("scheduled_at", ASCENDING)]),
            IndexModel([("status", ASCENDING), ("claimed_at", ASCENDING)]),
        ]
