"""The campaign's hot reads use an index (SecantusDB `explain`): audience pages, contacts-mode lookups,
chunk claims and recounts, the scheduled and stalled sweeps, the list, and the status fix-up."""
from __future__ import annotations

from datetime import datetime, timezone

from bson import ObjectId

from leadline.models.campaigns import Campaign, CampaignChunk
from leadline.models.chats import ChatMessage
from leadline.models.contacts import Contact
from tests.helpers import winning_plan


def indexed(plan: str, name: str) -> bool:
    return "IXSCAN" in plan and name in plan and "COLLSCAN" not in plan


async def test_campaign_reads_are_index_scans(api, tenant, template):
    org, campaign, now = ObjectId(tenant.org_id), ObjectId(), datetime.now(timezone.utc)
    cases = [
        (Contact, {"org_id": org, "seq": {"$gt": 0, "$lte": 1000}}, None, "org_id_1_seq_-1"),
        (Contact, {"org_id": org, "phone": {"$in": ["14155552000", "14155552001"]}}, None, "org_id_1_phone_1"),
        (CampaignChunk, {"org_id": org, "campaign_id": campaign, "index": 3, "state": {"$in": ["pending", "claimed"]}},
         None, "org_id_1_campaign_id_1_index_1"),
        (CampaignChunk, {"org_id": org, "campaign_id": campaign}, None, "org_id_1_campaign_id_1"),
        (CampaignChunk, {"org_id": org, "campaign_id": campaign, "state": {"$in": ["pending", "claimed"]}}, None,
         "org_id_1_campaign_id_1_state_1"),
        (Campaign, {"status": "scheduled", "scheduled_at": {"$lte": now}}, None, "status_1_scheduled_at_1"),
        (Campaign, {"status": "processing", "updated_at": {"$lt": now}}, None, "status_1_updated_at_1"),
        (Campaign, {"org_id": org}, [("created_at", -1)], "org_id_1_created_at_-1"),
        (Campaign, {"org_id": org, "status": "completed"}, [("created_at", -1)], "org_id_1_status_1_created_at_-1"),
        (Campaign, {"org_id": org, "created_at": {"$gte": now}}, None, "org_id_1_created_at_-1"),
        # get_many_in / find_raw_by_ids_in: `_id` alone (with org_id, an `$in` on `_id` scans the collection).
        (ChatMessage, {"_id": {"$in": [ObjectId(), ObjectId()]}}, None, "_id_"),
    ]
    for model, filt, sort, name in cases:
        plan = await winning_plan(model, filt, sort)
        assert indexed(plan, name), (model.__name__, filt, plan)
