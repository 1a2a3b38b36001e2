"""Domain events recorded for delivery to customer URLs (delivery itself comes with outgoing events)."""
from __future__ import annotations

from typing import Any

from pydantic import Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from leadline.models.base import TenantDocument


class DomainEvent(TenantDocument):
    kind: str
    payload: dict[str, Any] = Field(default_factory=dict)
    # Set when the event has been handed to delivery; None = not yet.
    dispatched_at: Any = None

    class Settings:
        name = "domain_events"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("kind", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("dispatched_at", ASCENDING), ("created_at", ASCENDING)]),
        ]
