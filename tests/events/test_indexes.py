"""The delivery engine's and the dashboard's queries use an index (SecantusDB scans the collection for a
filter that is not a prefix of some index's key)."""
from __future__ import annotations

import pytest
from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.events import DomainEvent, WebhookDelivery, WebhookEndpoint
from tests.helpers import winning_plan

ORG, ID = ObjectId(), ObjectId()


@pytest.mark.parametrize("model, filter, sort", [
    (DomainEvent, {"dispatched_at": None}, [("created_at", 1)]),  # the outbox
    (DomainEvent, {"_id": {"$in": [ID, ObjectId()]}}, None),  # marking dispatched
    (WebhookEndpoint, {"org_id": {"$in": [ORG, ObjectId()]}}, None),  # a batch's endpoints
    (WebhookEndpoint, {"_id": {"$in": [ID]}}, None),
    (WebhookEndpoint, {"org_id": ORG}, [("created_at", 1)]),
    (WebhookDelivery, {"due_at": {"$lte": utcnow()}}, [("due_at", 1)]),  # the sweeper
    (WebhookDelivery, {"_id": ID, "claim": "token"}, None),  # claims and outcomes
    (WebhookDelivery, {"org_id": ORG, "_id": ID, "claim": None}, None),  # replay
    (WebhookDelivery, {"_id": {"$in": [ID]}}, None),  # claims read back
    (WebhookDelivery, {"org_id": ORG, "endpoint_id": ID}, [("created_at", -1)]),  # the log
    (WebhookDelivery, {"org_id": ORG, "endpoint_id": ID, "status": "failed"}, [("created_at", -1)]),
])
async def test_events_queries_use_an_index(client, model, filter, sort):
    plan = await winning_plan(model, filter, sort)
    assert "IXSCAN" in plan and "COLLSCAN" not in plan, plan
