"""From the outbox to deliveries: one delivery per event and active endpoint subscribed to its kind.

A batch of undispatched events becomes its deliveries in one `insert_many` (ids derived from the event
and the endpoint, so a batch dispatched twice, by a process that died before marking it or by two
dispatchers at once, creates each delivery once), and only then are the events marked dispatched. An
endpoint receives the events that happened after it was created.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from bson import ObjectId

from leadline.models.base import in_batches
from leadline.models.events import DomainEvent, WebhookDelivery, WebhookEndpoint


def delivery_id(event_id: ObjectId, endpoint_id: ObjectId) -> ObjectId:
    return ObjectId(hashlib.sha256(f"{event_id}|{endpoint_id}".encode()).digest()[:12])


def iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def body_of(event: dict[str, Any]) -> str:
    """The JSON every attempt sends: `{"type", "timestamp" (when it happened), "data"}`."""
    return json.dumps({"type": event["kind"], "timestamp": iso(event["created_at"]), "data": event.get("payload") or {}},
                      separators=(",", ":"), ensure_ascii=False, default=str)


def subscribed(endpoint: dict[str, Any], event: dict[str, Any]) -> bool:
    kinds = endpoint.get("events") or []
    return (endpoint.get("is_active", True) and (not kinds or event["kind"] in kinds)
            and aware(endpoint["created_at"]) <= aware(event["created_at"]))


def aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


async def endpoints_of(orgs: Iterable[ObjectId]) -> list[dict[str, Any]]:
    """Every endpoint of these organisations, raw (system work)."""
    return await WebhookEndpoint.find_raw_across_orgs_each("org_id", orgs)


def deliveries_for(events: list[dict[str, Any]], endpoints: list[dict[str, Any]]) -> list[tuple[dict, dict]]:
    """(event, endpoint) for every delivery these events make, in event order."""
    by_org: dict[ObjectId, list[dict]] = {}
    for endpoint in endpoints:
        if endpoint.get("is_active", True):
            by_org.setdefault(endpoint["org_id"], []).append(endpoint)
    return [(event, endpoint) for event in events for endpoint in by_org.get(event["org_id"], ())
            if subscribed(endpoint, event)]


def delivery(event: dict[str, Any], endpoint: dict[str, Any], *, claim: str | None, due_at: datetime,
             now: datetime) -> WebhookDelivery:
    document = WebhookDelivery(org_id=event["org_id"], endpoint_id=endpoint["_id"], event_id=event["_id"],
                               kind=event["kind"], body=body_of(event), event_at=event["created_at"],
                               due_at=due_at, claim=claim, created_at=now, updated_at=now)
    document.id = delivery_id(event["_id"], endpoint["_id"])
    return document


async def create(deliveries: list[WebhookDelivery]) -> list[WebhookDelivery]:
    """Insert in one command; returns those created now (the others existed already)."""
    refused = await create_refused(deliveries)
    return [d for i, d in enumerate(deliveries) if i not in refused]


async def create_refused(deliveries: list[WebhookDelivery]) -> set[int]:
    """Insert in one command; returns the positions that existed already."""
    return await WebhookDelivery.insert_many_across_orgs(deliveries)


async def mark_dispatched(event_ids: list[ObjectId], now: datetime) -> None:
    async def mark(group: list) -> list:
        await DomainEvent.update_many_across_orgs({"_id": {"$in": group}}, {"$set": {"dispatched_at": now}})
        return []

    await in_batches(event_ids, mark)
