"""A campaign by its id in this organisation: anything else, a bad id included, is CAMPAIGN_NOT_FOUND."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.campaigns import Campaign
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError


async def campaign_of(ctx: RequestContext, raw_id: str | None) -> Campaign:
    campaign = await Campaign.get_in(ctx, raw_id) if raw_id and ObjectId.is_valid(raw_id) else None
    if campaign is None:
        raise ApiError("CAMPAIGN_NOT_FOUND", "No campaign with this id in this organisation.")
    return campaign
