"""The insights' reads and aggregations are index scans in SecantusDB (explain), in the shapes the code sends."""
from __future__ import annotations

from datetime import date

import pytest
from bson import ObjectId

from leadline.models.chats import ChatMessage
from leadline.models.contacts import Contact
from leadline.models.events import DomainEvent
from leadline.models.insights import DailySummary, PipelineSnapshot
from leadline.resolvers.insights import rollups, snapshots
from leadline.resolvers.insights.days import bounds
from tests.helpers import winning_plan

START, END = bounds(date(2026, 3, 1), "Asia/Kolkata")
DAY = {"$gte": "2026-02-01", "$lte": "2026-03-01"}


@pytest.mark.parametrize("model, filter", [
    (DailySummary, {"org_id": ObjectId(), "date": DAY}),
    (DailySummary, {"org_id": ObjectId(), "date": "2026-03-01"}),
    (DailySummary, {"org_id": ObjectId(), "date": "2026-03-01", "platform": "chatapp"}),
    (PipelineSnapshot, {"org_id": ObjectId(), "date": DAY}),
    (PipelineSnapshot, {"org_id": ObjectId(), "date": "2026-03-01"}),
    # The first $match of each aggregation, as aggregate_in builds it (the organisation last).
    (ChatMessage, {"created_at": {"$gte": START, "$lt": END}, "org_id": ObjectId()}),
    (DomainEvent, {"kind": "contact.updated", "created_at": {"$gte": START, "$lt": END}, "org_id": ObjectId()}),
    (Contact, {"org_id": ObjectId()}),
])
async def test_insight_reads_use_an_index(client, model, filter):
    plan = await winning_plan(model, filter)
    assert "IXSCAN" in plan and "COLLSCAN" not in plan, plan


async def aggregate_plan(model, pipeline: list) -> str:
    coll = model.get_pymongo_collection()
    explain = await coll.database.command({"explain": {"aggregate": coll.name, "pipeline": pipeline, "cursor": {}}})
    return str(explain.get("queryPlanner", explain))


@pytest.mark.parametrize("model, pipeline", [
    (ChatMessage, rollups.pipeline(START, END, "Asia/Kolkata")),
    (Contact, snapshots.contacts_pipeline(START, END)),
    (DomainEvent, snapshots.opt_outs_pipeline(START, END)),
])
async def test_the_aggregations_start_with_an_index_range(client, model, pipeline):
    org = ObjectId()
    first, *rest = pipeline
    scoped = [{"$match": {**first["$match"], "org_id": org}}, *rest]
    plan = await aggregate_plan(model, scoped)
    assert "IXSCAN" in plan and "COLLSCAN" not in plan, plan
