"""How a claim records its recipients' outcomes: the whole list in one write when nobody touched it
since the claim, else only the claim's own slots, so a status or a cancel's skip written meanwhile
stays."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.campaigns import Campaign, CampaignChunk
from leadline.resolvers.campaigns import fanout
from tests.campaigns.support import add_contacts, body


async def claimed_chunk(api, tenant, writer, template) -> tuple[Campaign, CampaignChunk, str]:
    await add_contacts(api, writer, 3)
    resp = await api.post("/v2.0/campaigns", writer, json=body(template))
    assert resp.status == 201, resp.body
    org, campaign_id = ObjectId(tenant.org_id), ObjectId(resp.body["data"]["campaignId"])
    token = "test-claim"
    raw = await CampaignChunk.find_one_and_update_in(org, {"campaign_id": campaign_id, "index": 0},
                                                     {"$set": {"state": "claimed", "claimed_by": token}})
    chunk = CampaignChunk.model_validate({**raw, "state": "claimed", "claimed_by": token})
    return await Campaign.get_in(org, campaign_id), chunk, token


async def outcomes_of(chunk: CampaignChunk) -> tuple[list[str], str]:
    raw = await CampaignChunk.find_one_raw_in(chunk, {"_id": chunk.id}, {"outcomes": 1, "state": 1})
    return raw["outcomes"], raw["state"]


async def test_an_untouched_chunk_gets_its_outcomes_in_one_write(api, services, tenant, brand, template, writer):
    campaign, chunk, token = await claimed_chunk(api, tenant, writer, template)
    await fanout._finish(services, campaign, chunk, token, {0: "sent", 2: "failed:131026"}, [], pending=True)
    assert await outcomes_of(chunk) == (["sent", "pending", "failed:131026"], "pending")


async def test_an_outcome_written_during_the_claim_stays(api, services, tenant, brand, template, writer):
    campaign, chunk, token = await claimed_chunk(api, tenant, writer, template)
    # While the claimer sends, slot 2 moves on (a status of an earlier claim's send, or a cancel's skip).
    await CampaignChunk.update_one_in(chunk, {"_id": chunk.id}, {"$set": {"outcomes.2": "delivered"}})
    await fanout._finish(services, campaign, chunk, token, {0: "sent", 1: "failed:131026"}, [])
    assert await outcomes_of(chunk) == (["sent", "failed:131026", "delivered"], "done")


async def test_a_claim_that_was_taken_over_writes_nothing(api, services, tenant, brand, template, writer):
    campaign, chunk, token = await claimed_chunk(api, tenant, writer, template)
    await CampaignChunk.update_one_in(chunk, {"_id": chunk.id}, {"$set": {"claimed_by": "a later claimer"}})
    await fanout._finish(services, campaign, chunk, token, {0: "sent", 1: "sent", 2: "sent"}, [])
    assert await outcomes_of(chunk) == (["pending"] * 3, "claimed")
