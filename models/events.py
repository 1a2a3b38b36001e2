"""Outgoing events: the outbox of domain events, the organisations' webhook endpoints, and one delivery
per event and subscribed endpoint with its attempt log (docs/events.md).

`DomainEvent` is written with the change that caused it (resolvers/events/__init__.py: `emit`);
`dispatched_at` stays None until its deliveries exist. A `WebhookDelivery` is claimed by one worker at a
time (`claim`, a token of that worker) and is looked at again when `due_at` passes: its next attempt, or
the end of the lease of a claimer that died. The few queries the delivery engine runs across
organisations on hot paths are here, with their indexes (SecantusDB uses an index only when the
filter's fields are a prefix of its key).
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from beanie import PydanticObjectId
from pydantic import Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from leadline.models.base import TenantDocument

# The delivery log is kept this long after a delivery is created (a TTL index on created_at).
DELIVERY_LOG_SECONDS = 30 * 24 * 3600
# `due_at` of a finished delivery: never due. Not null: SecantusDB's range scan of {due_at: {$lte: now}}
# would read every null entry of the index (every finished delivery) to find the few due ones.
NEVER = datetime(9999, 1, 1, tzinfo=UTC)


class DomainEvent(TenantDocument):
    kind: str
    payload: dict[str, Any] = Field(default_factory=dict)
    # Set when the event's deliveries have been created; None = not yet (the outbox).
    dispatched_at: Any = None

    class Settings:
        name = "domain_events"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("kind", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("dispatched_at", ASCENDING), ("created_at", ASCENDING)]),
        ]

    @classmethod
    async def undispatched(cls, limit: int) -> list[dict[str, Any]]:
        """System work: the oldest events without deliveries yet, raw (any organisation)."""
        cursor = cls.get_pymongo_collection().find({"dispatched_at": None}).sort([("created_at", ASCENDING)])
        return await cursor.limit(limit).to_list()


class WebhookEndpoint(TenantDocument):
    url: str
    description: str | None = None
    # Event kinds delivered here; empty = every kind.
    events: list[str] = Field(default_factory=list)
    is_active: bool = True
    # `whsec_...`, sealed (resolvers/secrets.py). After a rotation the previous one keeps signing until
    # `previous_secret_until` (every delivery then carries both signatures).
    secret: str
    previous_secret: str | None = None
    previous_secret_until: datetime | None = None
    # When the current run of failed attempts began (None after a success); five days of it disables.
    failing_since: datetime | None = None
    disabled_at: datetime | None = None
    disabled_reason: str | None = None  # "gone" (410), "failing" (5 days), "manual"

    class Settings:
        name = "webhook_endpoints"
        indexes = [IndexModel([("org_id", ASCENDING), ("created_at", ASCENDING)])]


class WebhookDelivery(TenantDocument):
    """One event to one endpoint. `_id` is derived from both (resolvers/events/dispatch.py), so creating
    it twice is refused; `event_id` is the `webhook-id` of every attempt and replay."""

    endpoint_id: PydanticObjectId
    event_id: PydanticObjectId
    kind: str
    body: str  # the exact JSON sent (signed as is)
    event_at: datetime  # when the change happened (the event's creation)
    status: str = "pending"  # pending | delivered | failed
    # Attempts in the retry schedule so far (a replay of a finished delivery is not one), and numbered
    # attempts of the log (`attempts`, the most recent MAX_LOG kept).
    tries: int = 0
    attempt_count: int = 0
    attempts: list[dict[str, Any]] = Field(default_factory=list)
    due_at: datetime = NEVER
    claim: str | None = None
    replay: bool = False
    delivered_at: datetime | None = None
    failure: str | None = None  # why a delivery ended failed without an attempt (endpoint disabled, deleted)

    class Settings:
        name = "webhook_deliveries"
        indexes = [
            # Due work: the next attempt, or a dead claimer's lease ending.
            IndexModel([("due_at", ASCENDING)]),
            # Outcomes are written only by the claimer ({_id, claim}); a replay adds the organisation.
            IndexModel([("_id", ASCENDING), ("claim", ASCENDING), ("org_id", ASCENDING)]),
            # The dashboard's log of one endpoint, optionally by status, newest first ({org_id, endpoint_id}
            # is a prefix too: SecantusDB reads every match of a limited query anyway, so one index serves
            # both, and each delivery written maintains one index fewer).
            IndexModel([("org_id", ASCENDING), ("endpoint_id", ASCENDING), ("status", ASCENDING),
                        ("created_at", DESCENDING)]),
            IndexModel([("created_at", ASCENDING)], expireAfterSeconds=DELIVERY_LOG_SECONDS),
        ]

    @classmethod
    async def due(cls, now: datetime, limit: int) -> list[dict[str, Any]]:
        """System work: deliveries whose time has come (any organisation), earliest first, raw."""
        cursor = cls.get_pymongo_collection().find({"due_at": {"$lte": now}}).sort([("due_at", ASCENDING)])
        return await cursor.limit(limit).to_list()


MODELS = [DomainEvent, WebhookEndpoint, WebhookDelivery]
