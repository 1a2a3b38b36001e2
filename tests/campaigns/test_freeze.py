"""An immediate campaign is `processing` while its create freezes the recipients, and each chunk is
offered to the workers as soon as it is written: the campaign completes only once the freeze is over,
whichever finishes last, and a create that died mid-freeze leaves a cancelled campaign, not a stuck one."""
from __future__ import annotations

from datetime import timedelta

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.campaigns import Campaign
from leadline.models.events import DomainEvent
from leadline.resolvers.campaigns import fanout
from tests.campaigns.support import add_contacts, body, report
from tests.helpers import assert_error


async def still_freezing(api, tenant, writer, template, **fields) -> Campaign:
    """A created campaign, put back as its create left it while still freezing."""
    await add_contacts(api, writer, 3)
    resp = await api.post("/v2.0/campaigns", writer, json=body(template))
    assert resp.status == 201, resp.body
    org, campaign_id = ObjectId(tenant.org_id), ObjectId(resp.body["data"]["campaignId"])
    await Campaign.update_one_in(org, {"_id": campaign_id}, {"$set": {"freezing": True, "chunks_total": 0, **fields}})
    return await Campaign.get_in(org, campaign_id)


async def completed_events(tenant) -> int:
    return await DomainEvent.count_in(ObjectId(tenant.org_id), {"kind": "campaign.completed"})


async def test_chunks_sent_before_the_freeze_ends_complete_with_it(api, tenant, brand, template, writer, run_worker):
    campaign = await still_freezing(api, tenant, writer, template)
    await run_worker()  # the only chunk is sent while the "create" is still freezing
    got = await report(api, writer, str(campaign.id))
    assert got["status"] == "processing" and got["counters"]["pending"] == 0
    assert await completed_events(tenant) == 0

    await fanout.end_freeze(campaign, 3, 1)
    got = await report(api, writer, str(campaign.id))
    assert got["status"] == "completed" and got["totalContacts"] == 3 and got["completedAt"]
    assert await completed_events(tenant) == 1


async def test_a_create_that_died_mid_freeze_leaves_a_cancelled_campaign(api, services, tenant, brand, template, writer):
    campaign = await still_freezing(api, tenant, writer, template, updated_at=utcnow() - timedelta(hours=1))
    assert await fanout.restart_stalled(services) == 1
    got = await report(api, writer, str(campaign.id))
    assert got["status"] == "cancelled" and got["cancelledAt"] and got["totalContacts"] == 3
    assert got["counters"]["skipped"] == 3 and got["counters"]["pending"] == 0
    resp = await api.post(f"/v2.0/campaigns/{campaign.id}/cancel", writer)
    assert_error(resp, 409, "CAMPAIGN_NOT_CANCELLABLE", marker="error")
    assert await completed_events(tenant) == 0
