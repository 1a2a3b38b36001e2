"""The lead segmentation's reads and conditional writes are index scans (explain), in the shapes sent."""
from __future__ import annotations

import pytest
from bson import ObjectId

from leadline.models.contacts import Contact, ContactTermCount
from leadline.models.leads import LeadSegmentation
from tests.helpers import winning_plan


@pytest.mark.parametrize("model, filter", [
    # the document of the organisation, and the versioned replacement of it
    (LeadSegmentation, {"org_id": ObjectId()}),
    (LeadSegmentation, {"org_id": ObjectId(), "version": 3}),
    # contacts of a category (count before a delete; the rename and reassignment multi-update)
    (Contact, {"org_id": ObjectId(), "terms": f"{ObjectId()}|lead_category|s:Hot"}),
    # the spellings of a category that contacts carry (their term counts, one range)
    (ContactTermCount, {"org_id": ObjectId(), "term": {"$gte": "x|lead_category|s:", "$lt": "x|lead_category|s:\U0010ffff"}}),
    # the lock written after an upsert
    (Contact, {"org_id": ObjectId(), "_id": ObjectId()}),
])
async def test_lead_queries_use_an_index(client, model, filter):
    plan = await winning_plan(model, filter)
    assert "IXSCAN" in plan and "COLLSCAN" not in plan, plan
