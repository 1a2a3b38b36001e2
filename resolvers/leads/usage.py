"""Plan-limit usage of the lead segmentation (the billing read-out's `used`): read from the one document."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.leads import LeadSegmentation
from leadline.resolvers.billing.usage import usage_counter

_PROJECTION = {"categories.followups.delay": 1, "defaultFollowups.delay": 1, "audienceSegments.key": 1}


async def _stored(org_id: ObjectId) -> dict:
    return await LeadSegmentation.find_one_raw_in(org_id, {}, _PROJECTION) or {}


@usage_counter("max_lead_categories")
async def lead_categories_used(org_id: ObjectId, timezone: str) -> int:
    return len((await _stored(org_id)).get("categories", []))


@usage_counter("max_ai_followups")
async def ai_followups_used(org_id: ObjectId, timezone: str) -> int:
    stored = await _stored(org_id)
    return (sum(len(c.get("followups", [])) for c in stored.get("categories", []))
            + len(stored.get("defaultFollowups", [])))


@usage_counter("max_ai_insights")
async def ai_insights_used(org_id: ObjectId, timezone: str) -> int:
    return len((await _stored(org_id)).get("audienceSegments", []))
