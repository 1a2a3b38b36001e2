"""The send side's hot queries use an index (SecantusDB explain: the filter's fields must be a key prefix)."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from bson import ObjectId

from leadline.models.chats import ChatMessage
from leadline.models.contacts import Contact
from leadline.models.messaging import ScheduledMessage
from leadline.models.templates import MessageTemplate
from tests.helpers import winning_plan

NOW = datetime.now(timezone.utc)


@pytest.mark.parametrize("model, filter, sort", [
    # Template lookups of a send (by provider id; by name and language).
    (MessageTemplate, {"org_id": ObjectId(), "template_id": "1689556908129832"}, None),
    (MessageTemplate, {"org_id": ObjectId(), "name": "order_update", "language": "en"}, None),
    # The recipient's contact, by phone or BSUID.
    (Contact, {"org_id": ObjectId(), "phone": "14155552671"}, None),
    (Contact, {"org_id": ObjectId(), "bsuid": "US.1234"}, None),
    # Status: the message by id.
    (ChatMessage, {"org_id": ObjectId(), "_id": ObjectId()}, None),
    # Schedules: list with and without status, the conditional moves, the sweep.
    (ScheduledMessage, {"org_id": ObjectId()}, [("created_at", -1)]),
    (ScheduledMessage, {"org_id": ObjectId(), "status": "scheduled"}, [("created_at", -1)]),
    (ScheduledMessage, {"org_id": ObjectId(), "_id": ObjectId(), "status": "scheduled"}, None),
    (ScheduledMessage, {"status": "scheduled", "scheduled_at": {"$lte": NOW}}, None),
    (ScheduledMessage, {"status": "sending", "claimed_at": {"$lte": NOW}}, None),
])
async def test_hot_queries_use_an_index(client, model, filter, sort):
    plan = await winning_plan(model, filter, sort)
    assert "IXSCAN" in plan and "COLLSCAN" not in plan, plan
