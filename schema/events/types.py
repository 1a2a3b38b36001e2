"""Webhook endpoint and delivery output types. The secret appears only in the answers of creation and
rotation; an endpoint never shows it."""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import strawberry

from leadline.models.events import WebhookDelivery, WebhookEndpoint
from leadline.resolvers.events.endpoints import CreatedEndpoint, RotatedSecret
from leadline.schema.scalars import JSON


@strawberry.type(name="WebhookEndpoint")
class WebhookEndpointType:
    endpoint_id: str
    url: str
    description: str | None
    events: list[str] = strawberry.field(description="Event kinds delivered here; empty = all.")
    is_active: bool
    disabled_reason: str | None = strawberry.field(
        description="Why it is disabled: gone (a 410), failing (five days of failures), manual.")
    disabled_at: datetime | None
    failing_since: datetime | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, e: WebhookEndpoint) -> WebhookEndpointType:
        return cls(endpoint_id=str(e.id), url=e.url, description=e.description, events=list(e.events),
                   is_active=e.is_active, disabled_reason=None if e.is_active else e.disabled_reason,
                   disabled_at=None if e.is_active else e.disabled_at, failing_since=e.failing_since,
                   created_at=e.created_at, updated_at=e.updated_at)


@strawberry.type
class CreatedWebhookEndpoint:
    endpoint: WebhookEndpointType
    secret: str = strawberry.field(description="whsec_...: shown this once.")

    @classmethod
    def from_domain(cls, created: CreatedEndpoint) -> CreatedWebhookEndpoint:
        return cls(endpoint=WebhookEndpointType.from_domain(created.endpoint), secret=created.secret)


@strawberry.type
class RotatedWebhookSecret:
    endpoint_id: str
    secret: str = strawberry.field(description="The new whsec_... secret: shown this once.")
    previous_secret_valid_until: datetime = strawberry.field(
        description="Until then every delivery is signed with both secrets.")

    @classmethod
    def from_domain(cls, rotated: RotatedSecret) -> RotatedWebhookSecret:
        return cls(endpoint_id=str(rotated.endpoint.id), secret=rotated.secret,
                   previous_secret_valid_until=rotated.previous_valid_until)


@strawberry.type
class WebhookEndpointDeleted:
    endpoint_id: str
    deleted: bool


@strawberry.type
class WebhookAttempt:
    attempt: int
    at: datetime
    http_status: int | None
    duration_ms: int
    error: str | None
    response_snippet: str | None = strawberry.field(description="The response's first 1 KB.")

    @classmethod
    def from_domain(cls, a: dict[str, Any]) -> WebhookAttempt:
        return cls(attempt=a["attempt"], at=a["at"], http_status=a.get("httpStatus"),
                   duration_ms=a.get("durationMs") or 0, error=a.get("error"), response_snippet=a.get("responseSnippet"))


@strawberry.type(name="WebhookDelivery")
class WebhookDeliveryType:
    delivery_id: str
    endpoint_id: str
    event_id: str = strawberry.field(description="The webhook-id header of every attempt.")
    event_type: str
    status: str = strawberry.field(description="pending, delivered or failed.")
    attempts: list[WebhookAttempt]
    next_attempt_at: datetime | None
    failure: str | None = strawberry.field(description="Why it failed without an attempt (endpoint disabled).")
    payload: JSON = strawberry.field(description="The body sent: {type, timestamp, data}.")
    event_at: datetime
    created_at: datetime
    delivered_at: datetime | None

    @classmethod
    def from_domain(cls, d: WebhookDelivery) -> WebhookDeliveryType:
        return cls(delivery_id=str(d.id), endpoint_id=str(d.endpoint_id), event_id=str(d.event_id), event_type=d.kind,
                   status=d.status, attempts=[WebhookAttempt.from_domain(a) for a in d.attempts],
                   next_attempt_at=d.due_at if d.status == "pending" else None, failure=d.failure,
                   payload=json.loads(d.body), event_at=d.event_at, created_at=d.created_at,
                   delivered_at=d.delivered_at)
